package io.pagemark.wal;

import io.pagemark.change.ChangeCodec;
import io.pagemark.change.IndexChange;

import io.pagemark.format.IndexFormatException;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One WAL segment: the changes to one group that one flush of the stream made durable. A segment is written to a
 * hidden temporary file, forced to disk and renamed into place, so a segment that exists is complete; every change
 * also carries a checksum. See docs/stream.md, "WAL segment format", for the bytes.
 *
 * @param groupAttribute the group key attribute
 * @param group the group key
 * @param attributes the stored attributes of an entry, as the index's group files declare them
 * @param changes the changes, in the order they were appended
 */
public record WalSegment(String groupAttribute, KeyValue group, List<KeyAttribute> attributes,
    List<IndexChange> changes) {
  static final byte[] MAGIC = "PMWALSEG".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  /** Segment files end with this suffix; anything else in a group's WAL folder is ignored. */
  public static final String SUFFIX = ".wal";

  public WalSegment {
    attributes = List.copyOf(attributes);
    changes = List.copyOf(changes);
    for (IndexChange c : changes) {
      if (!c.group().equals(group)) {
        throw new IllegalArgumentException("change of group " + c.group() + " in a segment of group " + group);
      }
    }
  }

  /**
   * Writes the segment as {@code dir/name} atomically and durably: a temporary file in {@code dir}, forced, renamed,
   * and the folder forced so that the rename survives a crash.
   */
  public void write(Path dir, String name) throws IOException {
    if (!name.endsWith(SUFFIX) || name.startsWith(".") || name.contains("/")) {
      throw new IllegalArgumentException("bad segment name " + name);
    }
    byte[] bytes = encode();
    Files.createDirectories(dir);
    Path tmp = dir.resolve("." + name + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    forceDirectory(dir);
  }

  /** Makes a folder's entries (a rename, a new file) durable. */
  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // some file systems cannot open folders; their renames are as durable as they get
    }
  }

  byte[] encode() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buf);
    byte[] header = header();
    out.write(header);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    DataOutputStream bodyOut = new DataOutputStream(body);
    for (IndexChange c : changes) {
      body.reset();
      ChangeCodec.writeChange(bodyOut, c);
      bodyOut.flush();
      out.writeInt(body.size());
      body.writeTo(out);
      out.writeInt(crc(body.toByteArray()));
    }
    out.writeInt(0);
    byte[] count = ByteBuffer.allocate(8).putLong(changes.size()).array();
    out.write(count);
    out.writeInt(crc(count));
    out.flush();
    return buf.toByteArray();
  }

  private byte[] header() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buf);
    out.write(MAGIC);
    out.writeShort(VERSION);
    out.writeShort(attributes.size());
    out.writeInt(0); // header length, patched below
    writeName(out, groupAttribute);
    ChangeCodec.writeKey(out, group);
    for (KeyAttribute a : attributes) {
      out.writeByte(a.type().code());
      out.writeByte(a.roles());
      writeName(out, a.name());
    }
    out.flush();
    byte[] h = Arrays.copyOf(buf.toByteArray(), buf.size() + 4);
    ByteBuffer.wrap(h).putInt(12, h.length);
    ByteBuffer.wrap(h).putInt(h.length - 4, crc(Arrays.copyOf(h, h.length - 4)));
    return h;
  }

  /** Reads and checks a segment; throws {@link IndexFormatException} naming the file for a damaged one. */
  public static WalSegment read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    try {
      return decode(bytes);
    } catch (EOFException e) {
      throw new IndexFormatException(file, "truncated WAL segment");
    } catch (IOException | RuntimeException e) {
      throw new IndexFormatException(file, "corrupt WAL segment (" + e.getMessage() + ")");
    }
  }

  static WalSegment decode(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte[] magic = new byte[8];
    in.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a pagemark WAL segment (bad magic)");
    }
    int version = in.readUnsignedShort();
    if (version != VERSION) {
      throw new IOException("WAL segment format version " + version + " is not supported (this reader knows 1)");
    }
    int attributeCount = in.readUnsignedShort();
    int headerLength = in.readInt();
    if (headerLength < 20 || headerLength > bytes.length) {
      throw new IOException("bad header length " + headerLength);
    }
    if (crc(Arrays.copyOf(bytes, headerLength - 4)) != ByteBuffer.wrap(bytes).getInt(headerLength - 4)) {
      throw new IOException("header checksum mismatch");
    }
    String groupAttribute = readName(in);
    KeyValue group = ChangeCodec.readKey(in);
    List<KeyAttribute> attributes = new ArrayList<>();
    for (int i = 0; i < attributeCount; i++) {
      KeyType t = KeyType.fromCode(in.readByte());
      int roles = in.readUnsignedByte();
      attributes.add(new KeyAttribute(readName(in), t, roles));
    }
    in.readInt(); // header checksum, checked above
    List<IndexChange> changes = new ArrayList<>();
    for (int length; (length = in.readInt()) != 0; ) {
      if (length < 0 || length > bytes.length) {
        throw new IOException("bad change length " + length);
      }
      byte[] body = new byte[length];
      in.readFully(body);
      if (crc(body) != in.readInt()) {
        throw new IOException("checksum mismatch in change " + changes.size());
      }
      DataInputStream b = new DataInputStream(new ByteArrayInputStream(body));
      changes.add(ChangeCodec.readChange(b, group));
      if (b.available() != 0) {
        throw new IOException("trailing bytes in change " + changes.size());
      }
    }
    byte[] count = new byte[8];
    in.readFully(count);
    if (crc(count) != in.readInt() || ByteBuffer.wrap(count).getLong() != changes.size()) {
      throw new IOException("trailer does not match the " + changes.size() + " changes read");
    }
    if (in.available() != 0) {
      throw new IOException("trailing bytes after the trailer");
    }
    return new WalSegment(groupAttribute, group, attributes, changes);
  }

  private static void writeName(DataOutputStream out, String name) throws IOException {
    byte[] b = name.getBytes(StandardCharsets.UTF_8);
    out.writeShort(b.length);
    out.write(b);
  }

  private static String readName(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readUnsignedShort()];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  public static int crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }
}
