package io.pagemark.transforms.source;

import io.pagemark.wal.ShardPosition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.checkerframework.checker.nullness.qual.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * A shard's records as Kinesis itself orders them: a fresh shard iterator (AFTER_SEQUENCE_NUMBER of the position, or
 * this run's {@link ReadStart}), then GetRecords until records come, the shard ends, or the reader is at its tip.
 * Each call reads again records the stream has read; that is the price of knowing the order without trusting the
 * order in which a runner delivers them.
 *
 * @param connection how to reach Kinesis
 * @param stream the stream name
 * @param start where this run of the stream started reading
 */
public record KinesisShardSequence(KinesisConnection connection, String stream, ReadStart start)
    implements ShardSequence {
  private static final long serialVersionUID = 1L;
  /** Kinesis may answer GetRecords with no records before the tip of a shard; this many empty answers end a look. */
  static final int EMPTY_ANSWERS = 20;

  public KinesisShardSequence {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(start, "start");
  }

  @Override
  public Reader open() {
    KinesisClient client = connection.client();
    return new Reader() {
      @Override
      public List<ShardPosition> next(String shardId, @Nullable ShardPosition after, int limit) throws IOException {
        try {
          GetShardIteratorRequest.Builder b = GetShardIteratorRequest.builder().streamName(stream).shardId(shardId);
          b = after == null ? start.applyTo(b)
              : b.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER)
                  .startingSequenceNumber(after.sequenceNumber());
          String iterator = client.getShardIterator(b.build()).shardIterator();
          List<ShardPosition> out = new ArrayList<>();
          for (int i = 0; i < EMPTY_ANSWERS && iterator != null; i++) {
            String it = iterator;
            GetRecordsResponse r = client.getRecords(g -> g.shardIterator(it).limit(Math.min(limit, 10_000)));
            for (Record rec : r.records()) {
              out.add(new ShardPosition(rec.sequenceNumber(), rec.approximateArrivalTimestamp()));
            }
            if (!out.isEmpty() || r.millisBehindLatest() == null || r.millisBehindLatest() == 0) {
              break;
            }
            iterator = r.nextShardIterator();
          }
          return out;
        } catch (SdkException e) {
          throw new IOException("cannot read shard " + shardId + " of Kinesis stream " + stream + " at " + connection
              + ": " + e.getMessage(), e);
        }
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
