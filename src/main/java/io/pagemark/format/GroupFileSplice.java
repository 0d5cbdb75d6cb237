package io.pagemark.format;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes the next version of a version-2 group file by splicing: the base's records outside the runs of the sort
 * keys a commit touches are copied as they are encoded (slots are fixed-width, so a range of ranks is a range of
 * bytes), the touched runs are replaced by records encoded with the base's codecs, and the tie table is rebuilt
 * from the base's runs (moved by the ranks gained or lost before them) and the new runs. The result is the file a
 * full rewrite ({@link GroupFileWriter}) writes for the same records, byte for byte: the splice gives up, and the
 * caller rewrites, whenever a writer would lay the new records out differently (a value the codecs do not hold,
 * codecs a writer would choose differently for the new set of values, tie fields that move into or out of the
 * records, an empty group). Memory does not grow with the group, beyond the tie table's runs and slots.
 */
public final class GroupFileSplice {
  private static final int BLOCK_BYTES = 1 << 20;

  /** Gives the records that replace the base's run of one sort key. */
  public interface RunRewriter {
    /**
     * The records that replace {@code run} (the base's records of {@code sortKey}, in rank order; empty when the
     * base has none), in rank order; null to keep the run as it is.
     */
    List<IndexRecord> rewrite(KeyValue sortKey, List<IndexRecord> run) throws IOException;
  }

  private final GroupFile base;
  private final LayoutV2 layout;
  private final ColumnCodec[] codecs;
  private final int width;
  private final int tieBytes; // inline tie fields at the start of each record
  private final long count;
  private final KeyType sortType;
  private final TieTable oldTies;
  private final ColumnScan[] scans;
  private final MessageDigest sha;
  private final FileChannel channel;
  private final ByteBuffer out = ByteBuffer.allocate(BLOCK_BYTES);
  private long position;

  private final byte[] block;
  private long blockRank; // rank of the block's first record
  private int blockRecords;
  private int next; // index in the block of the next base record

  private long written; // records of the new file so far
  private int oldRun; // the next run of the base's tie table to carry
  private long[] runStarts = new long[16];
  private int[] runWords = new int[16];
  private int runs;
  private int[] slots = new int[16];
  private int slotCount;
  private long tiedEntries;

  private GroupFileSplice(GroupFile base, Path target) throws IOException {
    this.base = base;
    this.layout = base.layout();
    this.codecs = layout.codecs().toArray(new ColumnCodec[0]);
    this.width = layout.width();
    this.tieBytes = layout.inlineTies() ? GroupFileFormat.RECORD_PREFIX_BYTES : 0;
    this.count = base.count();
    this.sortType = base.header().attributes().get(0).type();
    this.oldTies = base.tieTable();
    this.scans = new ColumnScan[codecs.length];
    int at = tieBytes;
    for (int i = 0; i < codecs.length; i++) {
      scans[i] = new ColumnScan(codecs[i], at, i == 0 && sortType != KeyType.N);
      at += codecs[i].slotWidth();
    }
    try {
      this.sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    this.block = new byte[Math.max(1, BLOCK_BYTES / width) * width];
    Files.createDirectories(target.getParent());
    this.channel = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }

  /**
   * Writes {@code target}: {@code base} with the run of each of {@code sortKeys} (ascending, in DynamoDB's order)
   * replaced by what {@code rewriter} gives, as of {@code template} (group, attributes, build id and time). Returns
   * the header written (count, width and the body's SHA-256 included) once the file is forced to disk, or null when
   * the new records do not keep the base's layout; then {@code target} does not exist and the caller writes the
   * group in full. A version-1 base is never spliced (null).
   */
  public static GroupHeader splice(GroupFile base, Iterable<KeyValue> sortKeys, RunRewriter rewriter,
      GroupHeader template, Path target) throws IOException {
    if (base.layout() == null || !base.header().attributes().equals(template.attributes())) {
      return null;
    }
    GroupHeader done = null;
    GroupFileSplice s = new GroupFileSplice(base, target);
    try (s.channel) {
      done = s.run(sortKeys, rewriter, template);
      return done;
    } finally {
      if (done == null) {
        Files.deleteIfExists(target);
      }
    }
  }

  private GroupHeader run(Iterable<KeyValue> sortKeys, RunRewriter rewriter, GroupHeader template)
      throws IOException {
    int headerLength = HeaderV2.encode(template, layout).length;
    position = headerLength;
    List<KeyAttribute> attributes = template.attributes();
    for (KeyValue key : sortKeys) {
      copyBelow(key);
      List<IndexRecord> run = new java.util.ArrayList<>();
      long first = rank();
      while (rank() < count) {
        fill();
        if (compare(next, key) != 0) {
          break;
        }
        run.add(base.decode(ByteBuffer.wrap(block, next * width, width), rank()));
        next++;
      }
      while (oldTies != null && oldRun < oldTies.runs() && oldTies.start(oldRun) < first + run.size()) {
        oldRun++; // the base's run of this sort key is written again below, from its records
      }
      List<IndexRecord> replacement = rewriter.rewrite(key, run);
      for (IndexRecord r : replacement == null ? run : replacement) {
        if (!append(r, attributes)) {
          return null;
        }
      }
    }
    while (rank() < count) {
      fill();
      copy(next, blockRecords);
      next = blockRecords;
    }
    flush();
    boolean inline = tiedEntries > written / 8;
    if (written == 0 || inline != layout.inlineTies()) {
      return null;
    }
    for (int i = 0; i < codecs.length; i++) {
      if (!scans[i].choose().equals(codecs[i])) {
        return null;
      }
    }
    CRC32C crc = new CRC32C();
    if (!inline && runs > 0) {
      ByteBuffer run = ByteBuffer.allocate(16);
      for (int i = 0; i < runs; i++) {
        run.clear();
        run.putLong(runStarts[i]).putInt(runWords[i]).putInt(0);
        put(run.array(), 0, 16, crc);
      }
      ByteBuffer slot = ByteBuffer.allocate(4);
      for (int i = 0; i < slotCount; i++) {
        put(slot.putInt(0, slots[i]).array(), 0, 4, crc);
      }
      flush();
    }
    GroupHeader done = new GroupHeader(template.groupAttribute(), template.groupKey(), attributes, width, written,
        template.buildTimeMillis(), template.buildId(), sha.digest());
    byte[] h = HeaderV2.encode(done, inline ? layout.withTieTable(0, 0, 0)
        : layout.withTieTable(runs, slotCount, (int) crc.getValue()));
    if (h.length != headerLength) {
      throw new IllegalStateException("header length changed while splicing");
    }
    ByteBuffer hb = ByteBuffer.wrap(h);
    while (hb.hasRemaining()) {
      channel.write(hb, hb.position());
    }
    channel.force(true);
    return done;
  }

  private long rank() {
    return blockRank + next;
  }

  /** Makes sure the block holds the next base record ({@link #rank()} below the count). */
  private void fill() throws IOException {
    if (next < blockRecords) {
      return;
    }
    blockRank += blockRecords;
    next = 0;
    blockRecords = (int) Math.min(block.length / width, count - blockRank);
    base.readEncoded(blockRank, blockRecords, ByteBuffer.wrap(block, 0, blockRecords * width));
  }

  /** Copies the base records whose sort keys are below {@code key}. */
  private void copyBelow(KeyValue key) throws IOException {
    while (rank() < count) {
      fill();
      if (compare(blockRecords - 1, key) < 0) {
        copy(next, blockRecords);
        next = blockRecords;
        continue;
      }
      int lo = next;
      int hi = blockRecords - 1;
      while (lo < hi) { // the first record of the block at or above key
        int mid = (lo + hi) >>> 1;
        if (compare(mid, key) < 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      copy(next, lo);
      next = lo;
      return;
    }
  }

  /** The sort key of the block's record {@code i} compared with {@code key}, in DynamoDB's order. */
  private int compare(int i, KeyValue key) {
    ByteBuffer b = ByteBuffer.wrap(block, i * width + tieBytes, codecs[0].slotWidth());
    return KeyValue.of(sortType, codecs[0].decode(b)).compareTo(key);
  }

  /** Copies the block's records {@code [from, to)} as they are, with the base's tie runs among them. */
  private void copy(int from, int to) throws IOException {
    int n = to - from;
    if (n == 0) {
      return;
    }
    long firstRank = blockRank + from;
    for (ColumnScan s : scans) {
      s.scan(block, from * width, n, width);
    }
    if (oldTies != null) {
      while (oldRun < oldTies.runs() && oldTies.start(oldRun) < firstRank + n) {
        int word = oldTies.word(oldRun);
        int length = word & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
        addRun(oldTies.start(oldRun) - firstRank + written, word);
        for (int j = 0; j < length; j++) {
          addSlot(oldTies.slot(oldRun, j));
        }
        oldRun++;
      }
    } else {
      ByteBuffer b = ByteBuffer.wrap(block);
      for (int i = from; i < to; i++) {
        if (b.getInt(i * width) == 0 && (b.getInt(i * width + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
          tiedEntries += b.getInt(i * width + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
        }
      }
    }
    put(block, from * width, n * width, null);
    written += n;
  }

  /** Encodes and writes one new record; false when one of its values does not fit its column's codec. */
  private boolean append(IndexRecord r, List<KeyAttribute> attributes) throws IOException {
    if (out.remaining() < width) {
      flush();
    }
    int start = out.position();
    Arrays.fill(out.array(), start, start + width, (byte) 0);
    int runWord = r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN);
    if (tieBytes > 0) {
      out.putInt(r.tiePosition()).putInt(runWord).putInt(r.descendingSlot());
    }
    for (int i = 0; i < codecs.length; i++) {
      KeyValue k = r.keys().get(i);
      byte[] v = k.bytes();
      if (k.type() != attributes.get(i).type() || !codecs[i].fits(v)) {
        return false;
      }
      codecs[i].encode(v, out);
      scans[i].add(v);
    }
    out.position(start + width);
    sha.update(out.array(), start, width);
    if (r.runLength() > 1) {
      if (tieBytes > 0) {
        tiedEntries += r.tiePosition() == 0 ? r.runLength() : 0;
      } else {
        if (r.tiePosition() == 0) {
          addRun(written, runWord);
        }
        addSlot(r.descendingSlot());
      }
    }
    written++;
    return true;
  }

  private void addRun(long start, int word) {
    if (runs == runStarts.length) {
      runStarts = Arrays.copyOf(runStarts, runs * 2);
      runWords = Arrays.copyOf(runWords, runs * 2);
    }
    runStarts[runs] = start;
    runWords[runs++] = word;
    tiedEntries += word & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
  }

  private void addSlot(int slot) {
    if (slotCount == slots.length) {
      slots = Arrays.copyOf(slots, slotCount * 2);
    }
    slots[slotCount++] = slot;
  }

  /** Writes bytes after what was written, digesting them (and adding them to {@code crc} when given). */
  private void put(byte[] b, int from, int n, CRC32C crc) throws IOException {
    sha.update(b, from, n);
    if (crc != null) {
      crc.update(b, from, n);
    }
    if (n > out.remaining()) {
      flush();
    }
    if (n >= out.capacity()) {
      ByteBuffer big = ByteBuffer.wrap(b, from, n);
      while (big.hasRemaining()) {
        position += channel.write(big, position);
      }
    } else {
      out.put(b, from, n);
    }
  }

  private void flush() throws IOException {
    out.flip();
    while (out.hasRemaining()) {
      position += channel.write(out, position);
    }
    out.clear();
  }
}
