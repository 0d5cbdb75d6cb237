package io.pagemark.format.redis;

import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of one Redis index, all under one prefix {@code P} (bytes of a UTF-8 string), shared by the sink that
 * loads it and the readers:
 *
 * <pre>
 * P meta                       hash: format version, key schema, last finished build ({@link RedisIndexMeta})
 * P groups                     hash: group key (canonical bytes) -> stamp (build id, 0x00, stored group key)
 * P g: GROUP                   sorted set: the group's live entries ({@link SortedSetMember})
 * P tmp: BUILD : GROUP         sorted set being loaded by a build; RENAMEd over the live set when complete
 * P lease: BUILD               string with a TTL: the build is running (its temporary sets are not stale)
 * P v: GROUP                   hash: the change stream's ledger of the group (item -> version, entry)
 * P stream                     hash: the change stream's resume position and the last build it caught up with
 * P deadletters                list: change records the stream could not apply (JSON lines, newest last)
 * pagemark:indexes             hash: prefix -> description, one field per index in the database
 * </pre>
 *
 * GROUP is the group key's canonical bytes ({@link KeyValue#sortableBytes()}: UTF-8 for strings, raw bytes for
 * binaries, the order-preserving encoding for numbers, so "1.0" and "1" are one group as in DynamoDB). Keys are byte
 * arrays handed to the client as such: spaces, newlines, NUL bytes, {@code ../} and 1,000-byte group keys are safe.
 * No suffix above is a prefix of another, so no group key can collide with another key of the index.
 */
public final class RedisLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The version of this layout and of {@link SortedSetMember}; stored in the meta hash. */
  public static final int FORMAT_VERSION = 1;
  /** The hash listing the indexes of a database: prefix -> "table/index". */
  public static final byte[] REGISTRY = bytes("pagemark:indexes");

  private static final byte[] META = bytes("meta");
  private static final byte[] GROUPS = bytes("groups");
  private static final byte[] LIVE = bytes("g:");
  private static final byte[] TEMP = bytes("tmp:");
  private static final byte[] LEASE = bytes("lease:");
  private static final byte[] LEDGER = bytes("v:");
  private static final byte[] STREAM = bytes("stream");
  private static final byte[] DEAD_LETTERS = bytes("deadletters");

  private final String prefix;
  private final byte[] prefixBytes;

  public RedisLayout(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("the Redis key prefix must not be empty");
    }
    this.prefix = prefix;
    this.prefixBytes = bytes(prefix);
  }

  /**
   * The prefix used unless one is given: {@code pagemark:TABLE:INDEX:}, or {@code pagemark:TABLE:GROUP,SORT:} for an
   * index given by its attributes.
   */
  public static String defaultPrefix(String table, String indexName, String groupAttribute, String sortAttribute) {
    String index = indexName != null ? indexName : groupAttribute + "," + sortAttribute;
    return "pagemark:" + table + ":" + index + ":";
  }

  public String prefix() {
    return prefix;
  }

  public byte[] prefixBytes() {
    return prefixBytes.clone();
  }

  public byte[] metaKey() {
    return concat(prefixBytes, META);
  }

  public byte[] groupsKey() {
    return concat(prefixBytes, GROUPS);
  }

  /** The live sorted set of a group, by its canonical bytes ({@link #groupBytes}). */
  public byte[] liveKey(byte[] group) {
    return concat(prefixBytes, LIVE, group);
  }

  /** The sorted set a build loads a group into before publishing it. */
  public byte[] tempKey(String buildId, byte[] group) {
    return concat(prefixBytes, TEMP, bytes(IndexLayout.checkBuildId(buildId)), bytes(":"), group);
  }

  public byte[] leaseKey(String buildId) {
    return concat(prefixBytes, LEASE, bytes(IndexLayout.checkBuildId(buildId)));
  }

  /** The change stream's ledger of a group (item -> version of the last change applied, and its entry). */
  public byte[] ledgerKey(byte[] group) {
    return concat(prefixBytes, LEDGER, group);
  }

  /** A SCAN MATCH pattern for the ledgers of every group. */
  public byte[] ledgerKeyPattern() {
    return globPrefix(concat(prefixBytes, LEDGER));
  }

  /** The group (canonical bytes) of a ledger key, or null when the key is not one of this index's ledgers. */
  public byte[] groupOfLedgerKey(byte[] key) {
    byte[] start = concat(prefixBytes, LEDGER);
    if (key.length < start.length || !Arrays.equals(key, 0, start.length, start, 0, start.length)) {
      return null;
    }
    return Arrays.copyOfRange(key, start.length, key.length);
  }

  /** The change stream's hash: {@code position} (epoch ms), {@code caughtUpBuild}. */
  public byte[] streamKey() {
    return concat(prefixBytes, STREAM);
  }

  /** The list of the change stream's dead letters. */
  public byte[] deadLettersKey() {
    return concat(prefixBytes, DEAD_LETTERS);
  }

  /** A SCAN MATCH pattern for every temporary set of every build (glob characters of the prefix escaped). */
  public byte[] tempKeyPattern() {
    return globPrefix(concat(prefixBytes, TEMP));
  }

  /** A SCAN MATCH pattern for the temporary sets of one build. */
  public byte[] tempKeyPattern(String buildId) {
    return globPrefix(concat(prefixBytes, TEMP, bytes(IndexLayout.checkBuildId(buildId)), bytes(":")));
  }

  private static byte[] globPrefix(byte[] literal) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte x : literal) {
      if (x == '*' || x == '?' || x == '[' || x == ']' || x == '\\') {
        b.write('\\');
      }
      b.write(x);
    }
    b.write('*');
    return b.toByteArray();
  }

  /** The build id of a temporary set's key, or null when the key is not one of this index's temporary sets. */
  public String buildOfTempKey(byte[] key) {
    byte[] start = concat(prefixBytes, TEMP);
    if (key.length <= start.length || !Arrays.equals(key, 0, start.length, start, 0, start.length)) {
      return null;
    }
    for (int i = start.length; i < key.length; i++) {
      if (key[i] == ':') {
        String id = new String(key, start.length, i - start.length, StandardCharsets.US_ASCII);
        try {
          return IndexLayout.checkBuildId(id);
        } catch (IllegalArgumentException e) {
          return null;
        }
      }
    }
    return null;
  }

  /** A group key's canonical bytes: the field in the groups hash and the tail of its keys. */
  public static byte[] groupBytes(KeyValue group) {
    return group.sortableBytes();
  }

  /** The groups hash value of a published group: the build id, a 0x00 byte, the group key as stored. */
  public static byte[] stamp(String buildId, KeyValue group) {
    return concat(bytes(IndexLayout.checkBuildId(buildId)), new byte[] {0}, group.bytes());
  }

  /** The build id of a stamp; throws {@link IllegalArgumentException} for bytes that are not a stamp. */
  public static String stampBuild(byte[] stamp) {
    int zero = indexOfZero(stamp);
    return IndexLayout.checkBuildId(new String(stamp, 0, zero, StandardCharsets.US_ASCII));
  }

  /** The stored group key bytes of a stamp (UTF-8 text for S and N, raw bytes for B). */
  public static byte[] stampGroup(byte[] stamp) {
    int zero = indexOfZero(stamp);
    return Arrays.copyOfRange(stamp, zero + 1, stamp.length);
  }

  private static int indexOfZero(byte[] stamp) {
    for (int i = 0; i < stamp.length; i++) {
      if (stamp[i] == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("not a group stamp (no 0x00 after the build id)");
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  @Override
  public String toString() {
    return "prefix " + io.pagemark.key.Json.quote(prefix);
  }
}
