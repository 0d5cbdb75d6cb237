package io.pagemark.transforms.source;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/** Kinesis records made in memory, to feed the stream's transforms without Kinesis; Beam's coder is not public. */
public final class TestKinesisRecords {
  private TestKinesisRecords() {}

  /** The shard of {@link #record}'s records. */
  public static final String SHARD = "shardId-000000000000";

  /** A record of shard 0, timestamped with its arrival time, as KinesisIO emits it. */
  public static TimestampedValue<KinesisRecord> record(byte[] data, long sequence, long arrivalMillis) {
    Instant arrival = new Instant(arrivalMillis);
    return TimestampedValue.of(new KinesisRecord(ByteBuffer.wrap(data), Long.toString(sequence), 0, "pk", arrival,
        arrival, "stream", SHARD), arrival);
  }

  /** Encodes the fields the stream reads: data, sequence number, arrival time and shard. */
  public static final class Coder extends AtomicCoder<KinesisRecord> {
    @Override
    public void encode(KinesisRecord r, OutputStream os) throws IOException {
      DataOutputStream out = new DataOutputStream(os);
      byte[] d = r.getDataAsBytes();
      out.writeInt(d.length);
      out.write(d);
      out.writeUTF(r.getSequenceNumber());
      out.writeLong(r.getApproximateArrivalTimestamp().getMillis());
      out.writeUTF(r.getShardId());
      out.flush();
    }

    @Override
    public KinesisRecord decode(InputStream is) throws IOException {
      DataInputStream in = new DataInputStream(is);
      byte[] d = new byte[in.readInt()];
      in.readFully(d);
      String seq = in.readUTF();
      Instant t = new Instant(in.readLong());
      return new KinesisRecord(ByteBuffer.wrap(d), seq, 0, "pk", t, t, "stream", in.readUTF());
    }
  }
}
