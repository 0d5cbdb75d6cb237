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
 * earlier; Kinesis' AT_TIMESTAMP iterators rest on that order); a closed shard (the parent of a split) every store has
 * applied to its last record needs nothing; a shard some store has no position for (new, a child of a split, or never
 * read) needs its oldest record's arrival, and an empty one nothing. When no shard
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
      boolean closed = shard.sequenceNumberRange().endingSequenceNumber() != null;
      if (everyStore && !closed) {
        needs = least.arrival();
      } else {
        // a closed shard applied to its last record needs nothing; an unseen one, its oldest record
        Next next = nextArrival(kinesis, stream, id, everyStore ? least.sequenceNumber() : null);
        if (next == Next.UNKNOWN) {
          return ReadStart.trimHorizon();
        }
        needs = next.arrival() == null ? null : everyStore ? least.arrival() : next.arrival();
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

  /** The arrival of a shard's first record after a point: null when there is none (yet). */
  record Next(Instant arrival) {
    static final Next UNKNOWN = new Next(Instant.MIN);
  }

  /** The first record after {@code sequenceNumber}, or the oldest when it is null. */
  static Next nextArrival(KinesisClient kinesis, String stream, String shardId, String sequenceNumber) {
    String iterator = kinesis.getShardIterator(b -> {
      b.streamName(stream).shardId(shardId);
      if (sequenceNumber == null) {
        b.shardIteratorType(ShardIteratorType.TRIM_HORIZON);
      } else {
        b.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).startingSequenceNumber(sequenceNumber);
      }
    }).shardIterator();
    for (int i = 0; i < EMPTY_ANSWERS && iterator != null; i++) {
      String it = iterator;
      GetRecordsResponse r = kinesis.getRecords(b -> b.shardIterator(it).limit(1));
      if (!r.records().isEmpty()) {
        return new Next(r.records().get(0).approximateArrivalTimestamp());
      }
      if (r.nextShardIterator() == null || r.millisBehindLatest() == null || r.millisBehindLatest() == 0) {
        return new Next(null);
      }
      iterator = r.nextShardIterator();
    }
    return Next.UNKNOWN;
  }
}
