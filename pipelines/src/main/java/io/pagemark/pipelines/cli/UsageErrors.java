package io.pagemark.pipelines.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Prints a usage error the way every pagemark command does: {@code pagemark lookup: unknown option --colour}, picocli's
 * suggestions if it has any, the command's synopsis and where its help is; exit code 2. The first line names the
 * option and the bad value in pagemark's words rather than picocli's, the same for every command.
 */
final class UsageErrors implements CommandLine.IParameterExceptionHandler {
  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println(cl.getCommandSpec().qualifiedName() + ": " + message(e));
    boolean stray = e instanceof UnmatchedArgumentException || e instanceof MissingParameterException;
    if (stray && !cl.getUnmatchedArguments().isEmpty()) {
      new UnmatchedArgumentException(cl, cl.getUnmatchedArguments()).printSuggestions(err);
    }
    err.print(cl.getHelp().fullSynopsis());
    err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    return ExitCode.USAGE;
  }

  static String message(ParameterException e) {
    CommandLine cl = e.getCommandLine();
    List<String> unmatched = cl.getUnmatchedArguments();
    // picocli checks required options before stray arguments; a stray argument is the likelier mistake.
    if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      return unmatched(cl, u.getUnmatched().get(0));
    }
    if (e instanceof MissingParameterException m) {
      if (!unmatched.isEmpty()) {
        return unmatched(cl, unmatched.get(0));
      }
      if (m.getMessage().startsWith("Missing required parameter") && m.getMissing().size() == 1) {
        String name = name(m.getMissing().get(0));
        return "option " + name + " needs a value: " + name + "=" + m.getMissing().get(0).paramLabel();
      }
      List<String> names = new ArrayList<>();
      m.getMissing().forEach(a -> names.add(name(a)));
      return "missing required option" + (names.size() == 1 ? " " : "s ") + String.join(", ", names);
    }
    if (e instanceof OverwrittenOptionException o) {
      return "option " + name(o.getOverwritten()) + " given twice";
    }
    if (e.getCause() instanceof TypeConversionException && e.getArgSpec() != null) {
      String name = name(e.getArgSpec());
      String what = e.getCause().getMessage();
      return what.startsWith(name + " ") ? what : name + " " + what;
    }
    return e.getMessage();
  }

  private static String unmatched(CommandLine cl, String arg) {
    if (!arg.startsWith("-") && !cl.getSubcommands().isEmpty()) {
      List<String> names = new ArrayList<>(cl.getCommandSpec().subcommands().keySet());
      String noun = cl.getCommandSpec().parent() == null ? "command" : "action";
      String last = names.remove(names.size() - 1);
      return "unknown " + noun + " \"" + arg + "\" (" + (names.isEmpty() ? "" : String.join(", ", names) + " or ")
          + last + ")";
    }
    if (arg.startsWith("-")) {
      int eq = arg.indexOf('=');
      return "unknown option " + (eq < 0 ? arg : arg.substring(0, eq));
    }
    return "unexpected argument \"" + arg + "\" (options look like --name=value)";
  }

  private static String name(ArgSpec arg) {
    return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
  }
}
