package io.pagemark.transforms.sink.file;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * What writing one group file produced: its manifest line and the counts the build summary adds up.
 *
 * @param file the file's path relative to the build directory
 * @param manifestLine the group's line of {@code manifest.jsonl}
 */
record GroupSummary(String file, String manifestLine, long entries, long tieRuns, long unresolvedRuns)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * Encodes a summary as its fields, one after another. A build has one summary per group, and each crosses at least
   * one exchange and the publish step's view: Java serialization (which {@code SerializableCoder} uses) costs about
   * ten times as much per summary, and Beam's DirectRunner copies what it groups once per bundle it adds.
   */
  static final class Coder extends AtomicCoder<GroupSummary> {
    private static final Coder INSTANCE = new Coder();
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();
    private static final VarLongCoder LONG = VarLongCoder.of();

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(GroupSummary s, OutputStream out) throws IOException {
      STRING.encode(s.file(), out);
      STRING.encode(s.manifestLine(), out);
      LONG.encode(s.entries(), out);
      LONG.encode(s.tieRuns(), out);
      LONG.encode(s.unresolvedRuns(), out);
    }

    @Override
    public GroupSummary decode(InputStream in) throws IOException {
      return new GroupSummary(STRING.decode(in), STRING.decode(in), LONG.decode(in), LONG.decode(in), LONG.decode(in));
    }
  }
}
