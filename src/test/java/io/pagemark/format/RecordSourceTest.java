package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A group file read through a {@link RecordSource} other than a local file, as the S3 reader does. */
class RecordSourceTest {
  @TempDir Path dir;

  /** The bytes of a file, with every read recorded as (position, length). */
  static final class CountingSource implements RecordSource {
    final byte[] bytes;
    final List<long[]> reads = new ArrayList<>();

    CountingSource(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public String name() {
      return "mem://group";
    }

    @Override
    public long size() {
      return bytes.length;
    }

    @Override
    public synchronized void readFully(long position, ByteBuffer into) throws IOException {
      int n = into.remaining();
      if (position + n > bytes.length) {
        throw new EOFException("past the end");
      }
      reads.add(new long[] {position, n});
      into.put(bytes, (int) position, n);
    }

    @Override
    public void close() {}
  }

  private byte[] sampleFile(int version) throws IOException {
    Path file = dir.resolve("g.pmi");
    GroupFiles.write(file, "PK2", GroupFileTest.GROUP, GroupFileTest.ATTRIBUTES, "b1", 1L,
        GroupFileTest.sampleRecords(), version);
    return Files.readAllBytes(file);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
  void aRecordIsOneReadOfExactlyItsBytesAndTheHeaderTwo(int version) throws IOException {
    byte[] bytes = sampleFile(version);
    CountingSource source = new CountingSource(bytes);
    try (GroupFile f = GroupFile.open(source)) {
      boolean tieTable = version == 2 && java.nio.ByteBuffer.wrap(bytes).getLong(104) > 0;
      assertThat("magic and length, then the rest of the header (then a version-2 tie table)", source.reads.size(),
          is(tieTable ? 3 : 2));
      int header = java.nio.ByteBuffer.wrap(bytes).getInt(12);
      int width = f.header().recordWidth();
      List<IndexRecord> expected = GroupFiles.readAll(dir.resolve("g.pmi"));
      for (long rank = f.count() - 1; rank >= 0; rank--) {
        source.reads.clear();
        assertThat(f.record(rank), equalTo(expected.get((int) rank)));
        assertThat(source.reads.size(), is(1));
        assertThat(source.reads.get(0), equalTo(new long[] {header + rank * width, width}));
      }
      f.verify();
    }
  }

  @Test
  void aTruncatedOrForeignSourceIsRefusedWithItsName() throws IOException {
    byte[] bytes = sampleFile(GroupFileFormat.defaultVersion());
    IndexFormatException truncated = assertThrows(IndexFormatException.class,
        () -> GroupFile.open(new CountingSource(java.util.Arrays.copyOf(bytes, bytes.length - 1))));
    assertThat(truncated.getMessage(), containsString("mem://group: truncated"));
    IndexFormatException foreign = assertThrows(IndexFormatException.class,
        () -> GroupFile.open(new CountingSource("<html>not a group file at all</html>".getBytes())));
    assertThat(foreign.getMessage(), containsString("mem://group: not a pagemark group file (bad magic)"));
  }
}
