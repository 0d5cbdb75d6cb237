package io.pagemark.pipelines.stream;

import io.pagemark.transforms.source.ReadStart;
import io.pagemark.wal.ShardPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Where a resumed stream starts reading: the earliest arrival time any store still needs. For each shard Kinesis
 * lists: a shard every store has a position for needs that position's arrival time (records after it arrived no
 * earlier); a closed shard every store has applied to its end needs nothing; a shard some store has no position for
 * (new, a child of a split, or never read) needs its oldest record's arrival, and an empty one nothing. When no shard
 * needs anything, or an oldest record cannot be found, the stream starts at the oldest records. Records read again
 * are dropped unread where the stores' positions cover them.
 */
final class ResumeStart {
  /** GetRecords answers without records to accept while looking for a shard's oldest record. */
  static final int EMPTY_ANSWERS = 50;

  private ResumeStart() {}

  /** The start for {@code stores}, each a map of shard id to position, read from {@code stream}. */
  static ReadStart of(KinesisClient kinesis, String stream, List<Map<String, ShardPosition>> stores) {
    if (stores.stream().allMatch(Map::isEmpty)) {
      return ReadStart.trimHorizon();
    }
    Instant earliest = null;
    for (Shard shard : shards(kinesis, stream)) {
      String id = shard.shardId();
      ShardPosition least = null;
      boolean everyStore = true;
      for (Map<String, ShardPosition> positions : stores) {
        ShardPosition p = positions.get(id);
        if (p == null) {
          everyStore = false;
        } else if (least == null || least.isAfter(p)) {
          least = p;
        }
      }
      Instant needs;
      if (everyStore) {
        String end = shard.sequenceNumberRange().endingSequenceNumber();
        needs = end != null && least.covers(end) ? null : least.arrival();
      } else {
        Oldest oldest = oldestArrival(kinesis, stream, id);
        if (oldest == Oldest.UNKNOWN) {
          return ReadStart.trimHorizon();
        }
        needs = oldest.arrival();
      }
      if (needs != null && (earliest == null || needs.isBefore(earliest))) {
        earliest = needs;
      }
    }
    return earliest == null ? ReadStart.trimHorizon() : ReadStart.at(earliest);
  }

  static List<Shard> shards(KinesisClient kinesis, String stream) {
    List<Shard> all = new ArrayList<>();
    ListShardsResponse r = kinesis.listShards(b -> b.streamName(stream));
    all.addAll(r.shards());
    while (r.nextToken() != null) {
      String token = r.nextToken();
      r = kinesis.listShards(b -> b.nextToken(token));
      all.addAll(r.shards());
    }
    return all;
  }

  /** A shard's oldest record's arrival: null for an empty shard. */
  record Oldest(Instant arrival) {
    static final Oldest UNKNOWN = new Oldest(Instant.MIN);
  }

  static Oldest oldestArrival(KinesisClient kinesis, String stream, String shardId) {
    String iterator = kinesis.getShardIterator(b -> b.streamName(stream).shardId(shardId)
        .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
    for (int i = 0; i < EMPTY_ANSWERS && iterator != null; i++) {
      String it = iterator;
      GetRecordsResponse r = kinesis.getRecords(b -> b.shardIterator(it).limit(1));
      if (!r.records().isEmpty()) {
        return new Oldest(r.records().get(0).approximateArrivalTimestamp());
      }
      if (r.nextShardIterator() == null || r.millisBehindLatest() == null || r.millisBehindLatest() == 0) {
        return new Oldest(null);
      }
      iterator = r.nextShardIterator();
    }
    return Oldest.UNKNOWN;
  }
}
