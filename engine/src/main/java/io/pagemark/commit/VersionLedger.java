package io.pagemark.commit;

import io.pagemark.change.ChangeCodec;
import io.pagemark.change.Version;
import io.pagemark.wal.WalSegment;

import io.pagemark.format.IndexFormatException;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The versions of the last changes applied to one group, per item, so that a change delivered again (a duplicate, a
 * replay, a late record) never undoes a newer one. Entries older than the ledger's horizon are dropped; a change
 * older than the horizon counts as already applied. Stored beside the group file in each build (see docs/stream.md,
 * "Version ledger").
 */
final class VersionLedger {
  static final byte[] MAGIC = "PMLEDGER".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final String SUFFIX = ".pmv";

  private final Map<List<KeyValue>, Version> versions;
  private long horizonMicros;

  VersionLedger(long horizonMicros) {
    this(new HashMap<>(), horizonMicros);
  }

  private VersionLedger(Map<List<KeyValue>, Version> versions, long horizonMicros) {
    this.versions = versions;
    this.horizonMicros = horizonMicros;
  }

  /** Changes created before this (microseconds) are taken as applied. */
  long horizonMicros() {
    return horizonMicros;
  }

  int size() {
    return versions.size();
  }

  /** Whether a change of this item at this version is newer than what the group holds. */
  boolean isNew(List<KeyValue> item, Version v) {
    if (v.creationMicros() < horizonMicros) {
      return false;
    }
    Version last = versions.get(item);
    return last == null || v.isAfter(last);
  }

  Version get(List<KeyValue> item) {
    return versions.get(item);
  }

  void put(List<KeyValue> item, Version v) {
    versions.merge(item, v, (a, b) -> a.isAfter(b) ? a : b);
  }

  /** Drops entries older than {@code horizon} and raises the horizon to it (never lowers it). */
  void advanceHorizon(long horizon) {
    if (horizon > horizonMicros) {
      horizonMicros = horizon;
      versions.values().removeIf(v -> v.creationMicros() < horizon);
    }
  }

  /** The newest creation time of any entry, or the horizon when empty. */
  long newestMicros() {
    long m = horizonMicros;
    for (Version v : versions.values()) {
      m = Math.max(m, v.creationMicros());
    }
    return m;
  }

  /** Reads a ledger; a missing file is an empty ledger with the given horizon. */
  static VersionLedger read(Path file, long defaultHorizon) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new VersionLedger(defaultHorizon);
    }
    try {
      return decode(bytes);
    } catch (IOException | RuntimeException e) {
      throw new IndexFormatException(file, "corrupt version ledger (" + e.getMessage() + ")");
    }
  }

  /** A ledger from its bytes ({@link #encode}); throws naming what is wrong. */
  static VersionLedger decode(byte[] bytes) throws IOException {
    if (bytes.length < 28) {
      throw new IOException("truncated");
    }
    int body = bytes.length - 4;
    if (WalSegment.crc(Arrays.copyOf(bytes, body)) != ByteBuffer.wrap(bytes).getInt(body)) {
      throw new IOException("checksum mismatch");
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, body));
    byte[] magic = new byte[8];
    in.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a version ledger (bad magic)");
    }
    int version = in.readUnsignedShort();
    if (version != VERSION) {
      throw new IOException("ledger format version " + version + " is not supported (this reader knows 1)");
    }
    in.readUnsignedShort(); // reserved
    long horizon = in.readLong();
    long count = in.readInt() & 0xFFFFFFFFL;
    Map<List<KeyValue>, Version> m = new HashMap<>((int) Math.min(count * 2, 1 << 24));
    for (long i = 0; i < count; i++) {
      Version v = ChangeCodec.readVersion(in);
      m.put(List.copyOf(ChangeCodec.readKeys(in)), v);
    }
    if (in.available() != 0) {
      throw new IOException("trailing bytes");
    }
    return new VersionLedger(m, horizon);
  }

  /** Writes the ledger (into a build being written; it is published with the build). */
  void write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, encode());
  }

  /** The ledger's bytes: magic, version, horizon, entries, CRC-32C (the same bytes a ledger file holds). */
  byte[] encode() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream(32 + versions.size() * 40);
    DataOutputStream out = new DataOutputStream(buf);
    out.write(MAGIC);
    out.writeShort(VERSION);
    out.writeShort(0);
    out.writeLong(horizonMicros);
    out.writeInt(versions.size());
    for (Map.Entry<List<KeyValue>, Version> e : versions.entrySet()) {
      ChangeCodec.writeVersion(out, e.getValue());
      ChangeCodec.writeKeys(out, e.getKey());
    }
    out.flush();
    byte[] body = buf.toByteArray();
    out.writeInt(WalSegment.crc(body));
    out.flush();
    return buf.toByteArray();
  }
}
