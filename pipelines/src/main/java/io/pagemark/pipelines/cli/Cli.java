package io.pagemark.pipelines.cli;

import io.pagemark.lookup.Order;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * How every pagemark command line is parsed and run (picocli): exit codes per {@link ExitCode}, usage errors in
 * pagemark's words ({@link UsageErrors}: the message, the synopsis, exit code 2), {@code --help} on every command,
 * and the same value rules everywhere: whole numbers (range checked by the command with {@link #inRange}), no empty
 * values, {@code asc|desc}. A command is a picocli {@code @Command} that implements {@code Callable<Integer>} and
 * returns an exit code; a public constructor {@code (PrintStream out, PrintStream err)} gives it the streams to print
 * to. Options are written {@code --name=value} or {@code --name value}.
 */
public final class Cli {
  /** Wide enough that a command's required options fit on the first line of its synopsis. */
  static final int HELP_WIDTH = 120;

  private Cli() {}

  /** Parses the arguments, runs the command they name and returns its exit code. */
  public static int run(Object command, List<String> args, PrintStream out, PrintStream err) {
    return commandLine(command, out, err).execute(args.toArray(String[]::new));
  }

  /**
   * A command line for {@code command} (and its subcommands) that prints to {@code out} and {@code err} in their
   * encodings.
   */
  public static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(command, new StreamsFactory(out, err));
    cl.setOut(writer(out));
    cl.setErr(writer(err));
    cl.setExpandAtFiles(false); // "@name" is a value (a group key may start with @), never a file to read
    cl.setParameterExceptionHandler(new UsageErrors());
    cl.setExecutionExceptionHandler((e, failed, parsed) -> {
      failed.getErr().println(failed.getCommandSpec().qualifiedName() + ": failed: " + rootMessage(e));
      return ExitCode.FAILURE;
    });
    cl.registerConverter(Long.class, Cli::wholeNumber);
    cl.registerConverter(Long.TYPE, Cli::wholeNumber);
    cl.registerConverter(Integer.class, Cli::intNumber);
    cl.registerConverter(Integer.TYPE, Cli::intNumber);
    cl.registerConverter(String.class, Cli::notEmpty);
    cl.registerConverter(Order.class, Cli::order);
    configure(cl);
    return cl;
  }

  /** The same help layout for every command, and {@code --help} on every subcommand. */
  private static void configure(CommandLine cl) {
    CommandSpec spec = cl.getCommandSpec();
    UsageMessageSpec usage = spec.usageMessage();
    usage.width(HELP_WIDTH).synopsisHeading("usage: ").descriptionHeading("%n").optionListHeading("%nOptions:%n")
        .commandListHeading("%nCommands:%n").footerHeading("%n").sortOptions(false).sortSynopsis(false);
    if (!spec.optionsMap().containsKey("--help")) {
      spec.addOption(OptionSpec.builder("--help").usageHelp(true).description("Print this help and exit.").build());
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      configure(sub);
    }
  }

  /** {@code value} if it is in {@code [min, max]}; else a usage error naming the option. */
  public static long inRange(CommandSpec spec, String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw usageError(spec, option + " must be between " + min + " and " + max + ", not " + value);
    }
    return value;
  }

  /** A comma-separated list of whole numbers in {@code [min, max]}, e.g. {@code --page=1,5,9}. */
  public static List<Long> wholeNumbers(CommandSpec spec, String option, String text, long min, long max) {
    List<Long> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      long n;
      try {
        n = wholeNumber(part);
      } catch (TypeConversionException e) {
        throw usageError(spec, option + " " + e.getMessage());
      }
      out.add(inRange(spec, option, n, min, max));
    }
    return out;
  }

  /** A usage error of the command (exit code 2): the message, then the command's synopsis. */
  public static ParameterException usageError(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /**
   * {@code to.printf(format, args)}, but written in one call: {@code printf} hands the stream each piece of the line
   * on its own, and a log line that another thread (Flink's, Beam's) writes meanwhile to the same terminal or file
   * lands in the middle of it. Commands print their summary lines, which scripts and tests read, this way.
   */
  public static void printAtOnce(PrintStream to, String format, Object... args) {
    to.print(String.format(format, args));
    to.flush();
  }

  /** The message of the innermost cause, which says what went wrong rather than where it was rethrown. */
  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }

  // Converters say what the value must be; UsageErrors puts the option's name in front.

  static long wholeNumber(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("must be a whole number, not \"" + text + "\"");
    }
  }

  private static int intNumber(String text) {
    long n = wholeNumber(text);
    if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
      throw new TypeConversionException(
          "must be between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE + ", not " + n);
    }
    return (int) n;
  }

  private static String notEmpty(String text) {
    if (text.isEmpty()) {
      throw new TypeConversionException("must not be empty");
    }
    return text;
  }

  private static Order order(String text) {
    try {
      return Order.parse(text);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }

  /** A writer onto a print stream that keeps the stream's encoding (System.out's is the platform's). */
  private static PrintWriter writer(PrintStream stream) {
    return new PrintWriter(new Writer() {
      @Override
      public void write(char[] chars, int offset, int length) {
        stream.print(new String(chars, offset, length));
      }

      @Override
      public void flush() {
        stream.flush();
      }

      @Override
      public void close() {
        stream.flush(); // the stream belongs to the caller
      }
    }, true);
  }

  /** Creates commands with the streams of the command line when they take them, others as picocli would. */
  private record StreamsFactory(PrintStream out, PrintStream err) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        return type.getConstructor(PrintStream.class, PrintStream.class).newInstance(out, err);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }
}
