package io.pagemark.pipelines.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name=value} command-line options, as Beam parses them, so that one syntax serves every subcommand. Unknown
 * or malformed options are usage errors ({@link UsageException}, exit code 2).
 */
public final class Args {
  private final Map<String, String> values = new LinkedHashMap<>();

  private Args() {}

  /** Parses the arguments, accepting only the given option names. */
  public static Args parse(List<String> args, Set<String> known) throws UsageException {
    Args a = new Args();
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        throw new UsageException("unexpected argument \"" + arg + "\" (options look like --name=value)");
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      if (!known.contains(name)) {
        throw new UsageException("unknown option --" + name);
      }
      if (eq < 0) {
        throw new UsageException("option --" + name + " needs a value: --" + name + "=...");
      }
      String value = arg.substring(eq + 1);
      if (a.values.put(name, value) != null) {
        throw new UsageException("option --" + name + " given twice");
      }
    }
    return a;
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  public String required(String name) throws UsageException {
    String v = values.get(name);
    if (v == null || v.isEmpty()) {
      throw new UsageException("missing required option --" + name);
    }
    return v;
  }

  /** A whole number in [min, max]; a usage error naming the option otherwise. */
  public static long number(String option, String text, long min, long max) throws UsageException {
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + option + " must be a whole number, not \"" + text + "\"");
    }
    if (v < min || v > max) {
      throw new UsageException("--" + option + " must be between " + min + " and " + max + ", not " + v);
    }
    return v;
  }

  /** A comma-separated list of whole numbers in [min, max]. */
  public static List<Long> numbers(String option, String text, long min, long max) throws UsageException {
    List<Long> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      out.add(number(option, part, min, max));
    }
    return out;
  }

  /** A usage error: exit code 2, the message on one line. */
  public static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
      super(message);
    }
  }
}
