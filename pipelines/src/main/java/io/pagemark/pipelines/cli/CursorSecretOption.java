package io.pagemark.pipelines.cli;

import io.pagemark.lookup.UnionCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * The secret that signs a union's "next" cursors ({@link UnionCursor}), as a picocli mixin: {@code --cursorSecretFile=
 * FILE} (the file's bytes, less one final newline), else the environment variable {@value #ENV} (its UTF-8 bytes); at
 * least 16 bytes either way. Never an option's value, which other users of the machine could read in the process list.
 * Every command and server that reads a cursor needs the secret of the one that made it.
 */
public final class CursorSecretOption {
  /** The environment variable that holds the secret when no file is given. */
  public static final String ENV = "PAGEMARK_CURSOR_SECRET";

  @Option(names = "--cursorSecretFile", paramLabel = "FILE",
      description = "A file whose bytes (16 or more, less a final newline) sign union cursors (default: the"
          + " environment variable " + ENV + "). The same secret reads the cursors back.")
  Path file;

  /**
   * The cursors of the configured secret, or null when neither the file nor the environment variable gives one.
   *
   * @throws picocli.CommandLine.ParameterException (a usage error) for an unreadable file or a secret under 16 bytes
   */
  public UnionCursor cursors(CommandSpec spec) {
    byte[] secret;
    String from;
    if (file != null) {
      try {
        secret = Files.readAllBytes(file);
      } catch (IOException e) {
        throw Cli.usageError(spec, "--cursorSecretFile " + file + " cannot be read: " + e.getMessage());
      }
      int n = secret.length;
      if (n > 0 && secret[n - 1] == '\n') {
        n -= n > 1 && secret[n - 2] == '\r' ? 2 : 1;
      }
      secret = Arrays.copyOf(secret, n);
      from = "--cursorSecretFile " + file;
    } else {
      String env = System.getenv(ENV);
      if (env == null || env.isEmpty()) {
        return null;
      }
      secret = env.getBytes(StandardCharsets.UTF_8);
      from = ENV;
    }
    try {
      return UnionCursor.withSecret(secret);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, from + ": " + e.getMessage());
    }
  }

  /**
   * The cursors of {@code page} and {@code lookup}, once the command names its page one way only: {@code --cursor}, or
   * {@code --page} and {@code --pageSize} (and {@code --order}). Null when no secret is configured and none is needed
   * (a cursor is printed for a union of several groups only).
   */
  UnionCursor forPages(CommandSpec spec, String cursor, int groups) {
    ParseResult given = spec.commandLine().getParseResult();
    if (cursor == null) {
      // as picocli words a missing required option: --cursor is the only way to leave these out
      boolean page = given.hasMatchedOption("--page");
      boolean size = given.hasMatchedOption("--pageSize");
      if (!page || !size) {
        throw Cli.usageError(spec, page || size ? "missing required option " + (page ? "--pageSize" : "--page")
            : "missing required options --page, --pageSize");
      }
      return groups > 1 ? cursors(spec) : null;
    }
    if (given.hasMatchedOption("--page") || given.hasMatchedOption("--pageSize")
        || given.hasMatchedOption("--order")) {
      throw Cli.usageError(spec,
          "--cursor names the page, its size and its order: give it without --page, --pageSize and --order");
    }
    return required(spec);
  }

  /** As {@link #cursors}, for a command given {@code --cursor}: no secret is a usage error that says where to put it. */
  public UnionCursor required(CommandSpec spec) {
    UnionCursor c = cursors(spec);
    if (c == null) {
      throw Cli.usageError(spec, "--cursor needs the secret that signed it: give --cursorSecretFile=FILE or set "
          + ENV + " as for the command or server that printed the cursor");
    }
    return c;
  }
}
