package io.pagemark.format;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The bytes of one group file, read at positions: a local file, or an object read with one ranged request per call
 * (so a caller that reads one record asks for exactly that record's bytes). {@link GroupFile} reads its header and
 * records through one. Implementations are thread-safe; {@link #readFully} may be called concurrently.
 */
public interface RecordSource extends AutoCloseable {
  /** What the bytes are, for messages: a path, an {@code s3://} URI. */
  String name();

  /** The file's length in bytes. */
  long size() throws IOException;

  /**
   * Reads exactly {@code into.remaining()} bytes starting at {@code position} into {@code into}.
   *
   * @throws EOFException when the file ends first
   */
  void readFully(long position, ByteBuffer into) throws IOException;

  @Override
  void close() throws IOException;

  /** A local file, read with positioned reads of one channel. */
  static RecordSource open(Path file) throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    return new RecordSource() {
      @Override
      public String name() {
        return file.toString();
      }

      @Override
      public long size() throws IOException {
        return ch.size();
      }

      @Override
      public void readFully(long position, ByteBuffer into) throws IOException {
        long start = position - into.position();
        while (into.hasRemaining()) {
          if (ch.read(into, start + into.position()) < 0) {
            throw new EOFException("unexpected end of " + file + " at " + (start + into.position()));
          }
        }
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }
}
