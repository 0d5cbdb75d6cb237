package io.pagemark.transforms.source;

import java.io.Serializable;
import java.time.Instant;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisIO;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.kinesis.common.InitialPositionInStream;

/**
 * Where a run of the change stream starts reading every shard: at the oldest record Kinesis keeps, or at the first
 * record that arrived at or after an instant. The reader ({@link KinesisIO}) and the shard-position tracker start
 * from the same point, so the tracker knows which record of a shard is the first one this run reads.
 *
 * @param timestampMillis epoch milliseconds, or -1 for the oldest record (TRIM_HORIZON)
 */
public record ReadStart(long timestampMillis) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The oldest record of each shard. */
  public static ReadStart trimHorizon() {
    return new ReadStart(-1);
  }

  /** The first record of each shard that arrived at or after {@code t}. */
  public static ReadStart at(Instant t) {
    return new ReadStart(Math.max(0, t.toEpochMilli()));
  }

  public boolean isTrimHorizon() {
    return timestampMillis < 0;
  }

  /** {@code read} starting here. */
  public KinesisIO.Read applyTo(KinesisIO.Read read) {
    return isTrimHorizon() ? read.withInitialPositionInStream(InitialPositionInStream.TRIM_HORIZON)
        : read.withInitialTimestampInStream(new org.joda.time.Instant(timestampMillis));
  }

  /** A shard iterator request starting here. */
  GetShardIteratorRequest.Builder applyTo(GetShardIteratorRequest.Builder b) {
    return isTrimHorizon() ? b.shardIteratorType(ShardIteratorType.TRIM_HORIZON)
        : b.shardIteratorType(ShardIteratorType.AT_TIMESTAMP).timestamp(Instant.ofEpochMilli(timestampMillis));
  }

  @Override
  public String toString() {
    return isTrimHorizon() ? "the oldest record" : Instant.ofEpochMilli(timestampMillis).toString();
  }
}
