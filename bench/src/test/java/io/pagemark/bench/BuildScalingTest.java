package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

/** The scaling and end-to-end benchmarks ask for the sizes issue #17 names, and quick mode stays small. */
class BuildScalingTest {
  @Test
  void fullSizesAreTheIssuesAndTheClusterBuildIsFigureThreesBuild() {
    BuildScaling.Plan plan = BuildScaling.plan(Sizes.FULL);
    assertThat(plan.clusterBuild(), equalTo(new SyntheticEntries(10_000_000, 10_000, 2_000_000)));
    assertThat(plan.parallelisms(), contains(1, 2, 4));
    assertThat(plan.localBuilds().stream().map(SyntheticEntries::entries).toList(),
        contains(1_000_000L, 10_000_000L, 30_000_000L));
    assertThat(plan.maxPartEntries(), is(Sizes.FULL.maxPartEntries()));
    assertThat(new BuildScaling().figures(Sizes.FULL), hasSize(6));
  }

  @Test
  void quickModeIsOneClusterBuildAndOneLocalBuild() {
    assertThat(new BuildScaling().figures(Sizes.QUICK), contains(
        "build on a 2-TaskManager session cluster, parallelism 2, 50,000 entries, vs GNU sort",
        "build time per entry, local Flink, 50,000 entries, vs GNU sort"));
  }

  @Test
  void backfillEndToEndReadsAMillionItemsAtFullSize() {
    assertThat(new BackfillEndToEnd().figures(Sizes.FULL), contains(
        "backfill end to end from DynamoDB Local, 1,000,000 items, local Flink, vs a parallel SDK Scan loop",
        "backfill's Scan step alone, 1,000,000 items, local Flink, vs a parallel SDK Scan loop"));
    assertThat(BackfillEndToEnd.items(Sizes.QUICK), is(20_000));
  }
}
