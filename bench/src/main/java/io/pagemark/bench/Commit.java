package io.pagemark.bench;

import io.pagemark.bench.CommitBenchmark;
import java.util.List;

/**
 * Figure 4, commit: the time to merge {@link Sizes.Commit#changes()} stream changes (a third new items, a third sort
 * key moves, a third removals) into one group of {@link Sizes.Commit#entries()} entries with {@code pagemark commit}
 * (read the write-ahead log, merge, write and check the new group file, publish), measured by {@link
 * CommitBenchmark}: the median of its rounds after one round of warm-up. Two baselines: copying the same group file
 * once in the same rounds (the floor of any commit that rewrites the file), and the 1.3 s the seeds' author reported
 * for the same work (a number from elsewhere, not measured in this run).
 */
final class Commit implements Bench {
  /** The seeds' author's figure for a commit of 1,000 changes into a 2.3-million-entry group. */
  static final double SEEDS_MILLIS = 1_300;

  static String copyName(Sizes.Commit c) {
    return String.format("commit %,d changes into a group of %,d entries, vs copying the group file once",
        c.changes(), c.entries());
  }

  static String seedsName(Sizes.Commit c) {
    return String.format("commit %,d changes into a group of %,d entries, vs the seeds' author's 1.3 s", c.changes(),
        c.entries());
  }

  @Override
  public String id() {
    return "commit";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(copyName(sizes.commit()), seedsName(sizes.commit()));
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    Sizes.Commit c = sizes.commit();
    context.progress().printf("bench: writing a group of %,d entries, then committing %,d changes into it %d times"
        + " (and one warm-up) ...%n", c.entries(), c.changes(), c.rounds());
    CommitBenchmark.Result r = CommitBenchmark.run(context.dir("commit"), c.entries(), c.changes(), c.rounds());
    if (r.entries() != c.entries() || r.changes() != c.changes() || r.fileBytes() <= 0) {
      throw new IllegalStateException("the commit benchmark measured " + r + ", not the sizes asked");
    }
    String note = String.format("one group of %,d demo-like entries (%,d bytes of group file), %,d changes a commit"
        + " (a third new items, a third sort key moves, a third removals) from the write-ahead log; median of %d"
        + " rounds after one warm-up; commit = read the log, merge, write, check and fsync the new group file,"
        + " publish", r.entries(), r.fileBytes(), r.changes(), c.rounds());
    context.report(new Figure(copyName(c), r.commitMillis(), "ms", "Files.copy of the group file once (same rounds,"
        + " warm page cache)", r.copyMillis(), "ms", note));
    context.report(new Figure(seedsName(c), r.commitMillis(), "ms", "the seeds' author's reported 1.3 s (another"
        + " machine; not measured in this run)", SEEDS_MILLIS, "ms", note));
  }
}
