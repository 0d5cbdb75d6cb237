package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signed, compact cursors for "the next page" of a union of groups: what an API hands a client instead of one
 * {@code LastEvaluatedKey} per group. A cursor names a page of the union (number, size, order), bound to the union's
 * groups and to the build that numbered it, and carries an HMAC-SHA256 tag (80 bits) so that a client can neither
 * forge one nor move it to other groups; it is base64url, about 30 characters whatever the groups' keys.
 *
 * <p>Layout (before base64url): version 1 (1 byte), flags (1 byte: bit 0 = descending), page size and page number
 * (unsigned LEB128 varints), the first 4 bytes of SHA-256 of the build id, the first 4 bytes of SHA-256 of the group
 * keys in DynamoDB's order (type code, length, bytes each), then the first 10 bytes of the HMAC of all that.
 * Immutable and thread-safe.
 */
public final class UnionCursor {
  private static final byte VERSION = 1;
  private static final int DIGEST = 4;
  private static final int TAG = 10;
  private static final int MIN_SECRET = 16;

  private final SecretKeySpec key;

  private UnionCursor(byte[] secret) {
    this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
  }

  /**
   * Cursors signed with {@code secret}; every server that reads a cursor needs the same secret.
   *
   * @throws NullPointerException if {@code secret} is null
   * @throws IllegalArgumentException if the secret is shorter than 16 bytes
   */
  public static UnionCursor withSecret(byte[] secret) {
    if (Objects.requireNonNull(secret, "secret").length < MIN_SECRET) {
      throw new IllegalArgumentException(
          "a cursor secret needs at least " + MIN_SECRET + " bytes, not " + secret.length);
    }
    return new UnionCursor(secret);
  }

  /**
   * Cursors signed with a random secret of 32 bytes: for one server process that has not been given a secret. Its
   * cursors are refused by any other process, and by this one after a restart.
   */
  public static UnionCursor withRandomSecret() {
    byte[] secret = new byte[32];
    new java.security.SecureRandom().nextBytes(secret);
    return new UnionCursor(secret);
  }

  /** Where a cursor points: a page of the union, of a size, in an order. */
  public record Position(long page, int pageSize, Order order) {}

  /** The cursor of the page after {@code start}, or null when {@code start} is the union's last page. */
  public String next(UnionPageStart start) {
    if (start.page() >= start.pages()) {
      return null;
    }
    return encode(start.groups(), start.buildId(), new Position(start.page() + 1, start.pageSize(), start.order()));
  }

  /** A cursor for any page of a union of {@code groups} numbered by build {@code buildId}. */
  public String encode(List<KeyValue> groups, String buildId, Position p) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(32);
    b.write(VERSION);
    b.write(p.order() == Order.DESC ? 1 : 0);
    varint(b, p.pageSize());
    varint(b, p.page());
    b.writeBytes(digest(buildId.getBytes(StandardCharsets.UTF_8)));
    b.writeBytes(groupsDigest(groups));
    byte[] body = b.toByteArray();
    b.writeBytes(tag(body));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
  }

  /**
   * Reads a cursor given back by a client for the union of {@code groups} in build {@code buildId}.
   *
   * @throws NullPointerException if an argument is null
   * @throws CursorRefusedException when the cursor is malformed, not signed by this secret, or made for other groups
   *     or another build (the message says which; the client starts again from page 1)
   */
  public Position decode(String cursor, List<KeyValue> groups, String buildId) throws CursorRefusedException {
    byte[] all;
    try {
      all = Base64.getUrlDecoder().decode(Objects.requireNonNull(cursor, "cursor"));
    } catch (IllegalArgumentException e) {
      throw new CursorRefusedException("the cursor is not base64url; pass it back exactly as it was given");
    }
    // a cursor has one text: base64 leaves unused bits in its last character, and a text that sets them decodes to
    // the same bytes but is not the cursor that was given
    if (!Base64.getUrlEncoder().withoutPadding().encodeToString(all).equals(cursor)) {
      throw new CursorRefusedException(
          "the cursor is not the text it was given as; pass it back exactly as it was given");
    }
    if (all.length < 2 + 2 + 2 * DIGEST + TAG || all[0] != VERSION) {
      throw new CursorRefusedException("the cursor is malformed or of another version; start again from page 1");
    }
    byte[] body = Arrays.copyOf(all, all.length - TAG);
    if (!MessageDigest.isEqual(tag(body), Arrays.copyOfRange(all, body.length, all.length))) {
      throw new CursorRefusedException("the cursor's signature does not match; pass it back exactly as it was given");
    }
    int[] at = {2};
    long size = varint(body, at);
    long page = varint(body, at);
    if (at[0] + 2 * DIGEST != body.length || size < 1 || size > PageReader.MAX_PAGE_SIZE || page < 1) {
      throw new CursorRefusedException("the cursor is malformed; start again from page 1");
    }
    byte[] build = Arrays.copyOfRange(body, at[0], at[0] + DIGEST);
    byte[] union = Arrays.copyOfRange(body, at[0] + DIGEST, body.length);
    if (!Arrays.equals(union, groupsDigest(groups))) {
      throw new CursorRefusedException("the cursor was made for another set of groups; start again from page 1");
    }
    if (!Arrays.equals(build, digest(buildId.getBytes(StandardCharsets.UTF_8)))) {
      throw new CursorRefusedException("the cursor was numbered by another build of the index than " + buildId
          + "; start again from page 1");
    }
    return new Position(page, (int) size, (body[1] & 1) == 1 ? Order.DESC : Order.ASC);
  }

  private static byte[] groupsDigest(List<KeyValue> groups) {
    List<KeyValue> sorted = new ArrayList<>(groups);
    sorted.sort(KeyValue.ORDER);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (KeyValue k : sorted) {
      b.write(k.type().code());
      varint(b, k.bytes().length);
      b.writeBytes(k.bytes());
    }
    return digest(b.toByteArray());
  }

  private static byte[] digest(byte[] bytes) {
    try {
      return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(bytes), DIGEST);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private byte[] tag(byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return Arrays.copyOf(mac.doFinal(body), TAG);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  private static void varint(ByteArrayOutputStream b, long v) {
    while ((v & ~0x7FL) != 0) {
      b.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    b.write((int) v);
  }

  private static long varint(byte[] b, int[] at) throws CursorRefusedException {
    long v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (at[0] >= b.length) {
        throw new CursorRefusedException("the cursor is malformed; start again from page 1");
      }
      int x = b[at[0]++] & 0xFF;
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new CursorRefusedException("the cursor is malformed; start again from page 1");
  }
}
