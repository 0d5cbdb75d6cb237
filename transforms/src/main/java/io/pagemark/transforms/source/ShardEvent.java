package io.pagemark.transforms.source;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * What the shard-position tracker learns about one record of its shard: that it was read and how many parts (changes,
 * dead letter) it has to write ({@link #read}), or that one of its parts is durable ({@link #written}). Events of one
 * record add up ({@link #plus}); a record read twice expects its parts twice, so a replay never makes a record look
 * done before every copy's parts are written.
 *
 * @param sequenceNumber the record's sequence number
 * @param arrivalMillis its approximate arrival time in Kinesis, or -1 when this event does not say
 * @param expected the parts the record's reads announced
 * @param written the parts written so far
 */
public record ShardEvent(String sequenceNumber, long arrivalMillis, int expected, int written)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A record was read and decoded into {@code parts} changes and dead letters (0 when it changes nothing). */
  public static ShardEvent read(String sequenceNumber, long arrivalMillis, int parts) {
    return new ShardEvent(sequenceNumber, arrivalMillis, parts, 0);
  }

  /** One part of a record is durable. */
  public static ShardEvent written(String sequenceNumber) {
    return new ShardEvent(sequenceNumber, -1, 0, 1);
  }

  /** The events of one record taken together. */
  public ShardEvent plus(ShardEvent o) {
    return new ShardEvent(sequenceNumber, Math.max(arrivalMillis, o.arrivalMillis), expected + o.expected,
        written + o.written);
  }

  /** Whether the record was read and every part its reads announced is durable. */
  public boolean complete() {
    return arrivalMillis >= 0 && written >= expected;
  }

  /** Encodes the four fields in order. Deterministic. */
  public static final class Coder extends AtomicCoder<ShardEvent> {
    private static final Coder INSTANCE = new Coder();

    private Coder() {}

    public static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(ShardEvent v, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(v.sequenceNumber(), out);
      VarLongCoder.of().encode(v.arrivalMillis(), out);
      VarIntCoder.of().encode(v.expected(), out);
      VarIntCoder.of().encode(v.written(), out);
    }

    @Override
    public ShardEvent decode(InputStream in) throws IOException {
      return new ShardEvent(StringUtf8Coder.of().decode(in), VarLongCoder.of().decode(in), VarIntCoder.of().decode(in),
          VarIntCoder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
