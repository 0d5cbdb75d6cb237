package io.pagemark.transforms.source;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;

/**
 * The Kinesis record a change or a dead letter came from: its shard and sequence number. A store's write step names
 * the records of everything it made durable, so that the shard positions move only over records whose every part is
 * written ({@link TrackShardPositionsFn}).
 *
 * @param shardId the Kinesis shard id
 * @param sequenceNumber the record's sequence number in that shard
 */
public record RecordRef(String shardId, String sequenceNumber) implements Serializable {
  private static final long serialVersionUID = 1L;

  public RecordRef {
    Objects.requireNonNull(shardId, "shardId");
    Objects.requireNonNull(sequenceNumber, "sequenceNumber");
  }

  /** Encodes the shard id, then the sequence number. Deterministic. */
  public static final class Coder extends AtomicCoder<RecordRef> {
    private static final Coder INSTANCE = new Coder();
    private static final StringUtf8Coder TEXT = StringUtf8Coder.of();

    private Coder() {}

    public static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(RecordRef value, OutputStream out) throws IOException {
      TEXT.encode(value.shardId(), out);
      TEXT.encode(value.sequenceNumber(), out);
    }

    @Override
    public RecordRef decode(InputStream in) throws IOException {
      return new RecordRef(TEXT.decode(in), TEXT.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
