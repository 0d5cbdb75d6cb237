package io.pagemark.format.redis;

import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of one Redis index (format version 2), all under one prefix {@code P} (bytes of a UTF-8 string without
 * braces), shared by the sink that loads it and the readers. Every key carries a Redis Cluster hash tag, so that what
 * one atomic step touches lives in one slot:
 *
 * <pre>
 * P{index}meta                 hash: format version, key schema, last finished build ({@link RedisIndexMeta})
 * P{index}lease:BUILD          string with a TTL: the build is running (its temporary sets are not stale)
 * P{index}loader               string with a TTL: "TOKEN HOLDER", the backfill that holds the prefix's load lease
 * P{index}loaderToken          integer: the last fencing token handed out (INCR), so a later holder's is larger
 * P{index}stream               hash: the change stream's resume position and the last build it caught up with
 * P{index}deadletters          list: change records the stream could not apply (JSON lines, newest last)
 * P{TAG}s                      string: the group's stamp (build id, 0x00, stored group key); absent: no such group
 * P{TAG}g                      sorted set: the group's live entries ({@link SortedSetMember})
 * P{TAG}t:BUILD                sorted set being loaded by a build; RENAMEd over the live set when complete
 * P{TAG}v                      hash: the change stream's ledger of the group (item -> version, entry)
 * pagemark:indexes             hash: prefix -> description, one field per index in the database
 * </pre>
 *
 * TAG is the group's tag: the first 16 bytes of the SHA-256 of the group key's canonical bytes, in lowercase hex
 * ({@link KeyValue#sortableBytes()}: UTF-8 for strings, raw bytes for binaries, the order-preserving encoding for
 * numbers, so "1.0" and "1" are one group as in DynamoDB). Group keys are arbitrary bytes and may hold braces, so
 * they never form a tag themselves; the stamp holds the group key, and a reader checks it (a digest collision cannot
 * answer another group). Keys are byte arrays handed to the client as such; no command is built by concatenation.
 */
public final class RedisLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The version of this layout and of {@link SortedSetMember}; stored in the meta hash. */
  public static final int FORMAT_VERSION = 2;
  /** The hash listing the indexes of a database: prefix -> "table/index". */
  public static final byte[] REGISTRY = bytes("pagemark:indexes");

  private static final byte[] INDEX_TAG = bytes("{index}");
  private static final byte[] META = bytes("meta");
  private static final byte[] STAMP = bytes("s");
  private static final byte[] LIVE = bytes("g");
  private static final byte[] TEMP = bytes("t:");
  private static final byte[] LEASE = bytes("lease:");
  private static final byte[] LEDGER = bytes("v");
  private static final byte[] LOADER = bytes("loader");
  private static final byte[] LOADER_TOKEN = bytes("loaderToken");
  private static final byte[] STREAM = bytes("stream");
  private static final byte[] DEAD_LETTERS = bytes("deadletters");
  private static final int TAG_BYTES = 16;
  private static final byte[] V1_META = bytes("meta");

  private final String prefix;
  private final byte[] prefixBytes;

  public RedisLayout(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("the Redis key prefix must not be empty");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("the Redis key prefix " + io.pagemark.key.Json.quote(prefix)
          + " holds a brace; braces mark Redis Cluster hash tags, which pagemark adds itself: choose a prefix"
          + " without { and }");
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
    return concat(prefixBytes, INDEX_TAG, META);
  }

  /** Where format version 1 kept the meta hash: a reader finding it there says the index must be rebuilt. */
  public byte[] formatVersion1MetaKey() {
    return concat(prefixBytes, V1_META);
  }

  /** The group's hash tag, braces included: {@code {hex}} of the first 16 bytes of SHA-256 of its canonical bytes. */
  public static byte[] groupTag(byte[] group) {
    byte[] digest;
    try {
      digest = java.security.MessageDigest.getInstance("SHA-256").digest(group);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    byte[] tag = new byte[TAG_BYTES * 2 + 2];
    tag[0] = '{';
    for (int i = 0; i < TAG_BYTES; i++) {
      tag[1 + 2 * i] = (byte) Character.forDigit((digest[i] >> 4) & 0xF, 16);
      tag[2 + 2 * i] = (byte) Character.forDigit(digest[i] & 0xF, 16);
    }
    tag[tag.length - 1] = '}';
    return tag;
  }

  /** The group's stamp (a string), by its canonical bytes ({@link #groupBytes}); absent when the index lacks it. */
  public byte[] stampKey(byte[] group) {
    return concat(prefixBytes, groupTag(group), STAMP);
  }

  /** The live sorted set of a group, by its canonical bytes ({@link #groupBytes}). */
  public byte[] liveKey(byte[] group) {
    return concat(prefixBytes, groupTag(group), LIVE);
  }

  /** The sorted set a build loads a group into before publishing it. */
  public byte[] tempKey(String buildId, byte[] group) {
    return concat(prefixBytes, groupTag(group), TEMP, bytes(IndexLayout.checkBuildId(buildId)));
  }

  public byte[] leaseKey(String buildId) {
    return concat(prefixBytes, INDEX_TAG, LEASE, bytes(IndexLayout.checkBuildId(buildId)));
  }

  /** The load lease of the prefix: at most one backfill loads it at a time (its value: "TOKEN HOLDER"). */
  public byte[] loaderLeaseKey() {
    return concat(prefixBytes, INDEX_TAG, LOADER);
  }

  /** The counter of the load lease's fencing tokens (same hash slot as the lease and the meta hash). */
  public byte[] loaderTokenKey() {
    return concat(prefixBytes, INDEX_TAG, LOADER_TOKEN);
  }

  /** The change stream's ledger of a group (item -> version of the last change applied, and its entry). */
  public byte[] ledgerKey(byte[] group) {
    return concat(prefixBytes, groupTag(group), LEDGER);
  }

  /** A SCAN MATCH pattern for the ledgers of every group. */
  public byte[] ledgerKeyPattern() {
    return globTagged(LEDGER, false);
  }

  /** A SCAN MATCH pattern for the stamps of every group (one per group of the index). */
  public byte[] stampKeyPattern() {
    return globTagged(STAMP, false);
  }

  /** The change stream's hash: {@code position} (epoch ms), {@code caughtUpBuild}. */
  public byte[] streamKey() {
    return concat(prefixBytes, INDEX_TAG, STREAM);
  }

  /** The list of the change stream's dead letters. */
  public byte[] deadLettersKey() {
    return concat(prefixBytes, INDEX_TAG, DEAD_LETTERS);
  }

  /** A SCAN MATCH pattern for every temporary set of every build (glob characters of the prefix escaped). */
  public byte[] tempKeyPattern() {
    return globTagged(TEMP, true);
  }

  /** A SCAN MATCH pattern for the temporary sets of one build. */
  public byte[] tempKeyPattern(String buildId) {
    return globTagged(concat(TEMP, bytes(IndexLayout.checkBuildId(buildId))), false);
  }

  /** {@code P{?...?}SUFFIX} (32 '?', one per hex digit of a tag), with a trailing '*' when {@code open}. */
  private byte[] globTagged(byte[] suffix, boolean open) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    escapeGlob(b, prefixBytes);
    b.write('{');
    for (int i = 0; i < TAG_BYTES * 2; i++) {
      b.write('?');
    }
    b.write('}');
    escapeGlob(b, suffix);
    if (open) {
      b.write('*');
    }
    return b.toByteArray();
  }

  private static void escapeGlob(ByteArrayOutputStream b, byte[] literal) {
    for (byte x : literal) {
      if (x == '*' || x == '?' || x == '[' || x == ']' || x == '\\') {
        b.write('\\');
      }
      b.write(x);
    }
  }

  /** The build id of a temporary set's key, or null when the key is not one of this index's temporary sets. */
  public String buildOfTempKey(byte[] key) {
    int start = prefixBytes.length + TAG_BYTES * 2 + 2;
    if (key.length <= start + TEMP.length || !Arrays.equals(key, 0, prefixBytes.length, prefixBytes, 0,
        prefixBytes.length) || !Arrays.equals(key, start, start + TEMP.length, TEMP, 0, TEMP.length)) {
      return null;
    }
    String id = new String(key, start + TEMP.length, key.length - start - TEMP.length, StandardCharsets.US_ASCII);
    try {
      return IndexLayout.checkBuildId(id);
    } catch (IllegalArgumentException e) {
      return null;
    }
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
