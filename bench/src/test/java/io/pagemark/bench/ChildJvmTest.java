package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildJvmTest {
  @Test
  void readsTheResultLinesFields() {
    assertThat(ChildJvm.fields(" seconds=12.5 entries=200000  vmHwmKb=1024 "),
        is(Map.of("seconds", "12.5", "entries", "200000", "vmHwmKb", "1024")));
  }
}
