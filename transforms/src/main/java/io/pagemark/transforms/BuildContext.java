package io.pagemark.transforms;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.PCollectionView;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What every sink of one build shares: the key schema, the build's id and time (fixed when the pipeline is
 * constructed, so every worker and every sink names the same build), how many published builds to keep, and what the
 * source read besides the entries (for the build's accounting: {@code itemsScanned = entries + skipped +
 * deadLetters}).
 *
 * @param scanCounts the source's tallies ({@code itemsScanned}, {@code skippedNoGroupKey}, {@code skippedNoSortKey})
 *     and its dead-letter count, as side inputs
 */
public record BuildContext(
    KeySchema schema, String buildId, long buildTimeMillis, int keepBuilds, ScanCounts scanCounts)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * @throws NullPointerException if the schema, build id or scan counts are null
   * @throws IllegalArgumentException if the build id is not one {@link IndexLayout#checkBuildId} accepts, or
   *     {@code keepBuilds} is below 1
   */
  public BuildContext {
    Objects.requireNonNull(schema, "schema");
    IndexLayout.checkBuildId(Objects.requireNonNull(buildId, "buildId"));
    Objects.requireNonNull(scanCounts, "scanCounts");
    if (keepBuilds < 1) {
      throw new IllegalArgumentException("keepBuilds must be at least 1, not " + keepBuilds);
    }
  }

  /**
   * What the source read besides the entries, as side inputs of the build's last step: tallies by name
   * ({@link #ITEMS_SCANNED}, {@link #SKIPPED_NO_GROUP_KEY}, {@link #SKIPPED_NO_SORT_KEY}; a missing one is 0) and the
   * number of dead letters (null for a source that has none: no steps compute a 0).
   */
  public record ScanCounts(PCollectionView<Map<String, Long>> tallies, @Nullable PCollectionView<Long> deadLetters)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    /** @throws NullPointerException if {@code tallies} is null */
    public ScanCounts {
      Objects.requireNonNull(tallies, "tallies");
    }

    /** The side inputs of a step that reads these counts. */
    public List<PCollectionView<?>> sideInputs() {
      return deadLetters == null ? List.of(tallies) : List.of(tallies, deadLetters);
    }

    /**
     * The build's counts, read in a step given {@link #sideInputs}: what the source read, with what the build
     * indexed.
     *
     * @throws IllegalStateException if the items scanned are not the entries indexed, skipped and dead-lettered
     *     (then nothing may be published)
     */
    public BuildInfo.Counts counted(DoFn<?, ?>.ProcessContext c, String buildId, long entries, long groups,
        long tieRuns, long unresolvedRuns) {
      Map<String, Long> t = c.sideInput(tallies);
      long scanned = t.getOrDefault(ITEMS_SCANNED, 0L);
      long noGroup = t.getOrDefault(SKIPPED_NO_GROUP_KEY, 0L);
      long noSort = t.getOrDefault(SKIPPED_NO_SORT_KEY, 0L);
      long dead = deadLetters == null ? 0 : c.sideInput(deadLetters);
      if (scanned != entries + noGroup + noSort + dead) {
        throw new IllegalStateException("build " + buildId + " does not account for every item: scanned " + scanned
            + " but indexed " + entries + ", skipped " + (noGroup + noSort) + ", dead-lettered " + dead
            + "; nothing was published");
      }
      return new BuildInfo.Counts(scanned, entries, groups, noGroup, noSort, dead, tieRuns, unresolvedRuns);
    }
    /** Items the source read, whatever became of them. */
    public static final String ITEMS_SCANNED = "itemsScanned";
    /** Items without the group key (not in a sparse index). */
    public static final String SKIPPED_NO_GROUP_KEY = "skippedNoGroupKey";
    /** Items without the index's sort key (not in a sparse index). */
    public static final String SKIPPED_NO_SORT_KEY = "skippedNoSortKey";
  }
}
