package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SortBaselineTest {
  @TempDir Path dir;

  @Test
  void sortsTheEntriesAndMeasuresItsCpuFromBashsTimes() throws Exception {
    SyntheticEntries spec = new SyntheticEntries(2_000, 20, 400);
    Path in = SortBaseline.input(spec, dir);
    SortBaseline.Sorted sorted = SortBaseline.measure(in, spec.entries(), dir);
    assertThat(sorted.cpuSeconds(), greaterThanOrEqualTo(0.0));
    assertThat("the output is checked, then deleted", Files.exists(dir.resolve("sorted.tsv")), is(false));
    assertThrows(IllegalStateException.class, () -> SortBaseline.measure(in, spec.entries() + 1, dir));
  }

  @Test
  void theChildrensUserAndSystemTimeAreAdded() {
    assertThat(SortBaseline.childCpuSeconds("0m0.004s 0m0.001s\n0m3.570s 0m1.050s\n"), closeTo(4.62, 1e-9));
    assertThat(SortBaseline.childCpuSeconds("0m0.004s 0m0.001s\n2m1.500s 1m0.250s"), closeTo(181.75, 1e-9));
    assertThat("a warning of sort's before it", SortBaseline.childCpuSeconds("sort: warning\n0m0.004s 0m0.001s\n"
        + "0m1.000s 0m0.500s\n"), closeTo(1.5, 1e-9));
    assertThrows(IllegalArgumentException.class, () -> SortBaseline.childCpuSeconds("0m3.570s 0m1.050s"));
    assertThrows(IllegalArgumentException.class, () -> SortBaseline.childCpuSeconds("sort: cannot read\n"));
  }
}
