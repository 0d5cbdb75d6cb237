package io.pagemark.transforms.sink.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Adds up a group's parts: its entry count and runs for {@code groups_BUILD}, and where each part starts, so that
 * every entry gets its rank in the group without any worker holding the whole group.
 */
final class SumPartsFn extends DoFn<KV<byte[], Iterable<PartSize>>, GroupRow> {
  @ProcessElement
  public void process(@Element KV<byte[], Iterable<PartSize>> group, OutputReceiver<GroupRow> out) {
    TreeMap<Integer, PartSize> parts = new TreeMap<>();
    for (PartSize p : group.getValue()) {
      parts.put(p.part(), p); // a part counted twice (a retried bundle) counts once
    }
    PartSize any = parts.firstEntry().getValue();
    if (parts.size() != any.parts() || parts.firstKey() != 0 || parts.lastKey() != any.parts() - 1) {
      throw new IllegalStateException("a group has " + parts.size() + " of its " + any.parts() + " parts; the"
          + " build cannot rank its entries");
    }
    List<Long> starts = new ArrayList<>(parts.size());
    long entries = 0;
    long runs = 0;
    long unresolved = 0;
    for (PartSize p : parts.values()) {
      starts.add(entries);
      entries += p.entries();
      runs += p.tieRuns();
      unresolved += p.tieRunsUnresolved();
    }
    out.output(new GroupRow(group.getKey(), any.groupValue(), entries, runs, unresolved, starts));
  }
}
