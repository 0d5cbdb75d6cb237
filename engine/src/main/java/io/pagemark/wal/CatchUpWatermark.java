package io.pagemark.wal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The catch-up's watermark, kept beside the WAL it feeds ({@code ROOT/wal/CATCHUP}, one ISO-8601 instant): every item
 * whose time bucket began before it was in a WAL segment when it was written. It only moves forward, and only after
 * the run's segments are durable, so a run killed at any point leaves the previous watermark and its next run reads
 * the same buckets again (the WAL's versions make that replay harmless).
 */
public final class CatchUpWatermark {
  static final String FILE = "CATCHUP";

  private final Path dir;

  /** The watermark of the WAL of the index (or WAL directory) at {@code walRoot}. */
  public CatchUpWatermark(Path walRoot) {
    this.dir = new Wal(walRoot).dir();
  }

  /** The file that holds it. */
  public Path file() {
    return dir.resolve(FILE);
  }

  /** The stored watermark, if a catch-up has finished before. */
  public Optional<Instant> read() throws IOException {
    try {
      return Optional.of(Instant.parse(Files.readString(file(), StandardCharsets.US_ASCII).trim()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (DateTimeParseException e) {
      throw new IOException(file() + " is not an ISO-8601 instant (" + e.getMessage() + "); delete it and give"
          + " --since to say where the catch-up starts");
    }
  }

  /**
   * Moves the watermark to {@code at} unless it is there or later already; written to a temporary file, forced, and
   * renamed over the old one. Returns whether it moved.
   */
  public boolean advance(Instant at) throws IOException {
    Files.createDirectories(dir);
    try (FileChannel lockFile = FileChannel.open(dir.resolve("." + FILE + ".lock"), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock ignored = lockFile.lock()) {
      Optional<Instant> current = read();
      if (current.isPresent() && !at.isAfter(current.get())) {
        return false;
      }
      Path tmp = dir.resolve("." + FILE + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()));
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ch.write(StandardCharsets.US_ASCII.encode(at + "\n"));
        ch.force(true);
      }
      Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return true;
    }
  }
}
