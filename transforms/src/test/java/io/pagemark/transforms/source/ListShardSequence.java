package io.pagemark.transforms.source;

import io.pagemark.wal.ShardPosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.values.TimestampedValue;
import org.checkerframework.checker.nullness.qual.Nullable;

/** The shards of records a test made, in sequence order, as Kinesis would hold them. */
public record ListShardSequence(TreeMap<String, ArrayList<ShardPosition>> shards) implements ShardSequence {
  private static final long serialVersionUID = 1L;

  /** The shards of {@code records}, whatever order they are given in (duplicates once). */
  public static ListShardSequence of(List<TimestampedValue<KinesisRecord>> records) {
    TreeMap<String, TreeMap<String, ShardPosition>> byShard = new TreeMap<>();
    for (TimestampedValue<KinesisRecord> r : records) {
      KinesisRecord k = r.getValue();
      byShard.computeIfAbsent(k.getShardId(), s -> new TreeMap<>(ShardPosition::compareSequenceNumbers))
          .put(k.getSequenceNumber(), new ShardPosition(k.getSequenceNumber(),
              java.time.Instant.ofEpochMilli(k.getApproximateArrivalTimestamp().getMillis())));
    }
    TreeMap<String, ArrayList<ShardPosition>> shards = new TreeMap<>();
    byShard.forEach((s, m) -> shards.put(s, new ArrayList<>(m.values())));
    return new ListShardSequence(shards);
  }

  /** A stream resume with nothing applied before. */
  public StreamResume fresh() {
    return new StreamResume(this, Map.of());
  }

  @Override
  public Reader open() {
    return new Reader() {
      @Override
      public List<ShardPosition> next(String shardId, @Nullable ShardPosition after, int limit) {
        List<ShardPosition> out = new ArrayList<>();
        for (ShardPosition p : shards.getOrDefault(shardId, new ArrayList<>())) {
          if ((after == null || !after.covers(p.sequenceNumber())) && out.size() < limit) {
            out.add(p);
          }
        }
        out.sort(Comparator.comparing(ShardPosition::sequenceNumber, ShardPosition::compareSequenceNumbers));
        return out;
      }

      @Override
      public void close() {}
    };
  }
}
