package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a group's file lives inside a build directory. Group keys never become path names: the file name is the
 * SHA-256 of the key's type and canonical bytes in lowercase hex, under two levels of shard folders taken from the
 * hash ({@code groups/3f/a2/3fa2....pmi}). So {@code ../x}, {@code CON}, NUL bytes, 1000-byte keys, {@code A} and
 * {@code a} all land in distinct files under the build, and a million groups spread over 65,536 folders.
 */
public final class GroupPaths {
  private GroupPaths() {}

  /** The group file's path relative to the build directory, with '/' separators. */
  public static String relativePath(KeyValue groupKey) {
    String hex = HexFormat.of().formatHex(hash(groupKey));
    return "groups/" + hex.substring(0, 2) + "/" + hex.substring(2, 4) + "/" + hex + GroupFileFormat.FILE_SUFFIX;
  }

  /** The group file under a build directory. */
  public static Path resolve(Path buildDirectory, KeyValue groupKey) {
    Path p = buildDirectory;
    for (String part : relativePath(groupKey).split("/")) {
      p = p.resolve(part);
    }
    return p;
  }

  private static byte[] hash(KeyValue groupKey) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(groupKey.type().code());
      sha.update(groupKey.sortableBytes());
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
