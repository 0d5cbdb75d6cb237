package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM flags of the batch commands, read from {@code pipelines/build-jvm.options} by bin/pagemark's own
 * {@code options_file}, start a JVM: its compiler directives ({@code pipelines/build-compiler.json}, named through
 * {@code {dir}}) parse, print nothing on standard output, and keep the optimizing compiler off what they match.
 */
class BuildJvmOptionsTest {
  static final Path REPO = ClassDataArchiveIT.REPO;

  /** The flags bin/pagemark gives a batch command, read by its own function. */
  static List<String> launcherFlags() throws Exception {
    String script = "eval \"$(sed -n '/^options_file() {/,/^}/p' \"$1/bin/pagemark\")\"; "
        + "options_file \"$1/pipelines/build-jvm.options\"";
    Result r = run(List.of("bash", "-c", script, "bash", REPO.toString()));
    assertThat(r.err, r.code, is(0));
    return r.out.lines().toList();
  }

  @Test
  void theDirectivesFileIsNamedByItsFullPathAndParses() throws Exception {
    List<String> flags = launcherFlags();
    Path directives = REPO.resolve("pipelines").resolve("build-compiler.json");
    assertThat(flags, hasItem("-XX:CompilerDirectivesFile=" + directives));
    assertThat(Files.isRegularFile(directives), is(true));
    assertThat(String.join("\n", flags), not(containsString("{dir}")));

    Result quiet = run(java(flags, List.of("-version")));
    assertThat(quiet.err, quiet.code, is(0));
    assertThat(quiet.out, is(emptyString())); // nothing of the JVM's own on a command's standard output
    assertThat(quiet.err, containsString("version \"17"));

    List<String> shown = new ArrayList<>(flags);
    shown.addAll(List.of("-XX:+DisplayVMOutput", "-XX:+CompilerDirectivesPrint"));
    Result printed = run(java(shown, List.of("-version")));
    assertThat(printed.err, printed.code, is(0));
    assertThat(printed.out, containsString("1 compiler directives added"));
    assertThat(printed.out, containsString("jdk/internal/org/objectweb/*.*"));
    assertThat(printed.out, containsString("Exclude:true"));
  }

  /**
   * A method the directives match, called hot, is compiled by the quick compiler alone (level 1), while one they do not
   * match reaches the optimizing compiler (level 4); and the optimizing compiler still inlines the matched one into its
   * hot caller.
   */
  @Test
  void matchedMethodsNeverReachTheOptimizingCompiler(@TempDir Path dir) throws Exception {
    Path source = Files.writeString(dir.resolve("Hot.java"), """
        public class Hot {
          public static void main(String[] args) {
            long n = 0;
            for (int i = 0; i < 3_000_000; i++) {
              n += java.beans.Introspector.decapitalize(i % 2 == 0 ? "Name" : "URL").length();
              n += Integer.toString(i & 1023).hashCode();
            }
            System.out.println(n);
          }
        }
        """);
    List<String> flags = new ArrayList<>(launcherFlags());
    flags.addAll(List.of("-XX:+DisplayVMOutput", "-XX:+PrintCompilation", "-XX:+PrintInlining",
        "-XX:-BackgroundCompilation"));
    Result r = run(java(flags, List.of(source.toString())));
    assertThat(r.err, r.code, is(0));
    List<String> compiled = r.out.lines().filter(l -> l.matches("\\s*\\d+\\s+\\d+ .*")).toList(); // time, id
    List<String> decapitalize = compiled.stream().filter(l -> l.contains("java.beans.Introspector::decapitalize ("))
        .toList();
    assertThat(r.out, decapitalize.stream().anyMatch(l -> level(l) == 1), is(true));
    assertThat(r.out, decapitalize.stream().anyMatch(l -> level(l) == 4), is(false));
    assertThat(r.out, compiled.stream().filter(l -> l.contains("java.lang.Integer::toString ("))
        .anyMatch(l -> level(l) == 4), is(true));
    // and C2 still inlines the matched method where its hot caller (the loop) is compiled
    assertThat(r.out, r.out.lines().anyMatch(l -> l.contains("java.beans.Introspector::decapitalize (")
        && l.contains("inline (hot)")), is(true));
  }

  /** The compile level of a -XX:+PrintCompilation line ({@code time id flags level method (size)}). */
  private static int level(String line) {
    String[] f = line.trim().split("\\s+");
    for (int i = 2; i < f.length; i++) {
      if (f[i].matches("[0-4]")) {
        return Integer.parseInt(f[i]);
      }
    }
    return -1;
  }

  private static List<String> java(List<String> flags, List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(flags);
    cmd.addAll(args);
    return cmd;
  }

  record Result(int code, String out, String err) {}

  private static Result run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).start();
    p.getOutputStream().close();
    var err = new java.util.concurrent.CompletableFuture<String>();
    Thread t = new Thread(() -> {
      try {
        err.complete(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        err.completeExceptionally(e);
      }
    });
    t.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", cmd) + " did not end in 2 minutes");
    }
    t.join();
    return new Result(p.exitValue(), out, err.join());
  }
}
