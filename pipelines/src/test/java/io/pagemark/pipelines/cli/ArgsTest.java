package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArgsTest {
  static final Set<String> KNOWN = Set.of("index", "page", "pageSize");

  static String usageError(List<String> argv) {
    return assertThrows(Args.UsageException.class, () -> Args.parse(argv, KNOWN)).getMessage();
  }

  @Test
  void parsesNameValuePairs() throws Args.UsageException {
    Args a = Args.parse(List.of("--index=/tmp/x=y", "--page=1,2"), KNOWN);
    assertThat(a.required("index"), equalTo("/tmp/x=y")); // only the first '=' separates
    assertThat(a.get("page", "?"), equalTo("1,2"));
    assertThat(a.has("pageSize"), is(false));
    assertThat(a.get("pageSize", "20"), equalTo("20"));
  }

  @Test
  void unknownDuplicateAndStrayArguments() {
    assertThat(usageError(List.of("--index=a", "--colour=red")), equalTo("unknown option --colour"));
    assertThat(usageError(List.of("--page=1", "--page=2")), equalTo("option --page given twice"));
    assertThat(usageError(List.of("index=a")),
        equalTo("unexpected argument \"index=a\" (options look like --name=value)"));
    assertThat(usageError(List.of("-page=1")),
        equalTo("unexpected argument \"-page=1\" (options look like --name=value)"));
    assertThat(usageError(List.of("--Index=a")), equalTo("unknown option --Index"));
  }

  @Test
  void requiredOptions() throws Args.UsageException {
    Args a = Args.parse(List.of("--page="), KNOWN);
    assertThat(assertThrows(Args.UsageException.class, () -> a.required("index")).getMessage(),
        equalTo("missing required option --index"));
    assertThat(assertThrows(Args.UsageException.class, () -> a.required("page")).getMessage(),
        equalTo("missing required option --page"));
  }

  @Test
  void numbers() throws Args.UsageException {
    assertThat(Args.number("pageSize", "20", 1, 100), equalTo(20L));
    assertThat(Args.number("pageSize", " 7 ", 1, 100), equalTo(7L));
    assertThat(Args.numbers("page", "3,1,2", 1, Long.MAX_VALUE), equalTo(List.of(3L, 1L, 2L)));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.number("pageSize", "x", 1, 100)).getMessage(),
        equalTo("--pageSize must be a whole number, not \"x\""));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.number("pageSize", "1.5", 1, 100))
        .getMessage(), equalTo("--pageSize must be a whole number, not \"1.5\""));
    assertThat(assertThrows(Args.UsageException.class,
        () -> Args.number("page", "99999999999999999999", 1, Long.MAX_VALUE)).getMessage(),
        equalTo("--page must be a whole number, not \"99999999999999999999\""));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.number("pageSize", "0", 1, 100)).getMessage(),
        equalTo("--pageSize must be between 1 and 100, not 0"));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.number("pageSize", "-3", 1, 100)).getMessage(),
        equalTo("--pageSize must be between 1 and 100, not -3"));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.numbers("page", "1,,2", 1, 9)).getMessage(),
        equalTo("--page must be a whole number, not \"\""));
    assertThat(assertThrows(Args.UsageException.class, () -> Args.numbers("page", "1,", 1, 9)).getMessage(),
        equalTo("--page must be a whole number, not \"\""));
  }
}
