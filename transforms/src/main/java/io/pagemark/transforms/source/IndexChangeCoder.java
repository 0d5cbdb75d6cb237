package io.pagemark.transforms.source;

import io.pagemark.change.ChangeCodec;
import io.pagemark.change.IndexChange;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;

/** Encodes an {@link IndexChange}: its group key, then the change as a WAL segment stores it. Deterministic. */
public final class IndexChangeCoder extends AtomicCoder<IndexChange> {
  private static final IndexChangeCoder INSTANCE = new IndexChangeCoder();

  private IndexChangeCoder() {}

  public static IndexChangeCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(IndexChange value, OutputStream outStream) throws IOException {
    DataOutputStream out = new DataOutputStream(outStream);
    ChangeCodec.writeKey(out, value.group());
    ChangeCodec.writeChange(out, value);
    out.flush();
  }

  @Override
  public IndexChange decode(InputStream inStream) throws IOException {
    DataInputStream in = new DataInputStream(inStream);
    try {
      return ChangeCodec.readChange(in, ChangeCodec.readKey(in));
    } catch (IllegalArgumentException e) {
      throw new CoderException(e.getMessage());
    }
  }

  @Override
  public void verifyDeterministic() {}
}
