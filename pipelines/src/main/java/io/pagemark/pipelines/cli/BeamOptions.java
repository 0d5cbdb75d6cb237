package io.pagemark.pipelines.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.Hidden;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.options.Validation;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * The options of a command that runs a Beam pipeline, read from its {@link PipelineOptions} interface, which stays
 * their only definition: each property of the interface and of the project's interfaces it extends becomes a picocli
 * option with the property's {@link Description}, {@link Default} and {@link Validation.Required}, so {@code --help}
 * lists it and picocli checks it; every other argument (Beam's own options such as {@code --runner=FlinkRunner}) is
 * passed through. {@link #parse} hands them all to {@link PipelineOptionsFactory}, which has the last word: an option
 * Beam does not know either is a usage error. Use it as {@code @Command(modelTransformer = BeamOptions.class)} on a
 * command that implements {@link PipelineCommand}.
 */
public final class BeamOptions implements CommandLine.IModelTransformer {
  private static final Pattern UNKNOWN =
      Pattern.compile("missing a property named '([^']*)'\\.(?: Did you mean (.*)\\?)?");

  /** A command whose options are those of a Beam options interface. */
  public interface PipelineCommand {
    Class<? extends PipelineOptions> optionsInterface();
  }

  @Override
  public CommandSpec transform(CommandSpec spec) {
    StringBuilder synopsis = new StringBuilder("${COMMAND-FULL-NAME}");
    for (Method getter : properties(((PipelineCommand) spec.userObject()).optionsInterface()).values()) {
      OptionSpec o = option(getter);
      spec.addOption(o);
      if (o.required()) {
        synopsis.append(' ').append(o.longestName()).append('=').append(o.paramLabel());
      }
    }
    spec.usageMessage().customSynopsis(synopsis + " [OPTION...] [BEAM-OPTION...]");
    spec.parser().unmatchedArgumentsAllowed(true);
    List<String> footer = new ArrayList<>(List.of(spec.usageMessage().footer()));
    footer.add("Beam's own options are accepted too, as --name=value: --runner=FlinkRunner, --flinkMaster=HOST:PORT,"
        + " --parallelism=N, --awsRegion=R, --awsCredentialsProvider=JSON and every other option of the Beam"
        + " modules on the class path.");
    spec.usageMessage().footer(footer.toArray(String[]::new));
    return spec;
  }

  /**
   * The options the command line gave, as {@link PipelineOptionsFactory#fromArgs} parses and validates them into
   * {@code type}; a usage error (exit code 2) when Beam rejects them.
   */
  public static <T extends PipelineOptions> T parse(CommandSpec spec, Class<T> type) {
    List<String> args = new ArrayList<>();
    Map<String, Method> properties = properties(type);
    for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
      if (properties.containsKey(o.longestName())) {
        o.stringValues().forEach(v -> args.add(o.longestName() + "=" + v));
      }
    }
    for (String arg : spec.commandLine().getUnmatchedArguments()) {
      if (!arg.startsWith("--")) {
        throw Cli.usageError(spec, "unexpected argument \"" + arg + "\" (options look like --name=value; Beam's"
            + " own options need the '=')");
      }
      args.add(arg);
    }
    T options;
    try {
      PipelineOptionsFactory.register(type);
      options = PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).withValidation().as(type);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, beamsMessage(e.getMessage()));
    }
    directRunnerChecksOffUnlessGiven(args, options);
    return options;
  }

  /**
   * The DirectRunner's checks that no step mutates its input or depends on a coder's round trip encode and compare
   * every element again: in a 250,000-entry build they cost about as much CPU as the build itself (41 s against 24 s
   * of CPU without them). They are there for testing pipelines, and pagemark's transforms are tested with them on
   * ({@code TestPipeline}), so a command turns them off unless its command line names them.
   */
  static void directRunnerChecksOffUnlessGiven(List<String> args, PipelineOptions options) {
    DirectOptions direct = options.as(DirectOptions.class);
    if (args.stream().noneMatch(a -> a.startsWith("--enforceImmutability"))) {
      direct.setEnforceImmutability(false);
    }
    if (args.stream().noneMatch(a -> a.startsWith("--enforceEncodability"))) {
      direct.setEnforceEncodability(false);
    }
  }

  /** Beam names the option it does not know after the Java interface; the user wrote --name. */
  static String beamsMessage(String message) {
    Matcher m = UNKNOWN.matcher(message);
    if (!m.find()) {
      return message;
    }
    return "unknown option --" + m.group(1)
        + (m.group(2) == null ? "" : " (did you mean " + m.group(2).replaceAll("'([^']*)'", "--$1") + "?)");
  }

  /**
   * The properties of {@code type} and of the interfaces it extends that are not Beam's own, by option name, in the
   * order help lists them: the command's interface first, each interface's options by name. Beam's interfaces are
   * left to Beam: reading their getters would load the AWS SDK's classes on every start of the command line.
   */
  static Map<String, Method> properties(Class<?> type) {
    Map<String, Method> out = new LinkedHashMap<>();
    List<Class<?>> interfaces = new ArrayList<>();
    collect(type, interfaces);
    for (Class<?> iface : interfaces) {
      List<Method> getters = new ArrayList<>();
      for (Method m : iface.getDeclaredMethods()) {
        if (isGetter(m) && !Modifier.isStatic(m.getModifiers()) && !m.isDefault()) {
          getters.add(m);
        }
      }
      getters.sort(Comparator.comparing((Method g) -> !isRequired(g)).thenComparing(BeamOptions::optionName));
      getters.forEach(g -> out.putIfAbsent(optionName(g), g));
    }
    return out;
  }

  private static void collect(Class<?> type, List<Class<?>> out) {
    if (type.getName().startsWith("org.apache.beam.") || out.contains(type)) {
      return;
    }
    out.add(type);
    for (Class<?> parent : type.getInterfaces()) {
      collect(parent, out);
    }
  }

  private static boolean isGetter(Method m) {
    String n = m.getName();
    return m.getParameterCount() == 0
        && ((n.startsWith("get") && n.length() > 3)
            || (n.startsWith("is") && n.length() > 2 && m.getReturnType() == boolean.class));
  }

  /** Beam's property name: the getter's name without get/is, first letter lowercase unless two capitals lead. */
  static String optionName(Method getter) {
    String p = getter.getName().substring(getter.getName().startsWith("is") ? 2 : 3);
    if (p.length() > 1 && Character.isUpperCase(p.charAt(0)) && Character.isUpperCase(p.charAt(1))) {
      return "--" + p;
    }
    return "--" + Character.toLowerCase(p.charAt(0)) + p.substring(1);
  }

  private static boolean isRequired(Method getter) {
    Validation.Required required = getter.getAnnotation(Validation.Required.class);
    return required != null && required.groups().length == 0;
  }

  private static OptionSpec option(Method getter) {
    Class<?> type = getter.getReturnType();
    Description description = getter.getAnnotation(Description.class);
    String text = description == null ? "" : description.value();
    String byDefault = defaultOf(getter);
    if (byDefault != null && !text.toLowerCase(Locale.ROOT).contains("(default")) {
      text += " Default: " + byDefault + ".";
    }
    String name = optionName(getter);
    OptionSpec.Builder b = OptionSpec.builder(name).description(text.replace("%", "%%"))
        .hidden(getter.isAnnotationPresent(Hidden.class)).required(isRequired(getter));
    if (type == boolean.class || type == Boolean.class) {
      b.type(String.class).arity("0..1").paramLabel("true|false").fallbackValue("true").converters(BeamOptions::bool);
    } else if (type == int.class || type == Integer.class) {
      b.type(int.class).paramLabel("N");
    } else if (type == long.class || type == Long.class) {
      b.type(long.class).paramLabel("N");
    } else if (List.class.isAssignableFrom(type) || type.isArray()) {
      b.type(List.class).auxiliaryTypes(String.class).paramLabel(label(name)).converters(s -> s);
    } else {
      b.type(String.class).paramLabel(label(name)).converters(s -> s); // Beam converts, and says what it expected
    }
    return b.build();
  }

  /** The value's name in help: the option name's last word, --dynamoEndpoint=ENDPOINT. */
  private static String label(String optionName) {
    int i = optionName.length() - 1;
    while (i > 2 && !Character.isUpperCase(optionName.charAt(i))) {
      i--;
    }
    return optionName.substring(i == 2 ? 2 : i).toUpperCase(Locale.ROOT);
  }

  private static String bool(String text) {
    String t = text.toLowerCase(Locale.ROOT);
    if (!t.equals("true") && !t.equals("false")) {
      throw new TypeConversionException("must be true or false, not \"" + text + "\"");
    }
    return t;
  }

  private static String defaultOf(Method g) {
    if (g.getAnnotation(Default.String.class) != null) {
      return g.getAnnotation(Default.String.class).value();
    } else if (g.getAnnotation(Default.Integer.class) != null) {
      return Integer.toString(g.getAnnotation(Default.Integer.class).value());
    } else if (g.getAnnotation(Default.Long.class) != null) {
      return Long.toString(g.getAnnotation(Default.Long.class).value());
    } else if (g.getAnnotation(Default.Boolean.class) != null) {
      return Boolean.toString(g.getAnnotation(Default.Boolean.class).value());
    } else if (g.getAnnotation(Default.Double.class) != null) {
      return Double.toString(g.getAnnotation(Default.Double.class).value());
    } else if (g.getAnnotation(Default.Enum.class) != null) {
      return g.getAnnotation(Default.Enum.class).value();
    }
    return null;
  }
}
