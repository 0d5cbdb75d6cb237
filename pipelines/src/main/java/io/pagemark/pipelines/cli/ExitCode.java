package io.pagemark.pipelines.cli;

/** The CLI's exit codes, the same for every subcommand. */
public final class ExitCode {
  public static final int OK = 0;
  public static final int FAILURE = 1;
  public static final int USAGE = 2;
  public static final int NOT_FOUND = 3;

  private ExitCode() {}
}
