package io.pagemark.format;

import java.nio.charset.StandardCharsets;

/**
 * Constants of the group file formats: version 1 (docs/file-format.md) and version 2 (docs/format-v2.md). Writers
 * write {@link #defaultVersion()}; readers read both.
 */
public final class GroupFileFormat {
  static final byte[] MAGIC = "PAGEMARK".getBytes(StandardCharsets.US_ASCII);
  /** Fixed-width records with inline tie fields and length-prefixed values. */
  public static final int VERSION_1 = 1;
  /** Per-group column codecs and a tie table (docs/format-v2.md). */
  public static final int VERSION_2 = 2;
  /** The system property that makes writers of this JVM write another version (for tests and baselines). */
  public static final String VERSION_PROPERTY = "pagemark.format.version";
  static final int BUILD_ID_BYTES = 32;
  static final int FIXED_HEADER_BYTES = 104;
  static final int RECORD_PREFIX_BYTES = 12;
  static final int RUN_ORDER_UNKNOWN = 0x8000_0000;
  static final int MAX_VALUE_BYTES = 0xFFFF;
  static final String FILE_SUFFIX = ".pmi";

  private GroupFileFormat() {}

  /** The version writers write: 2, unless {@link #VERSION_PROPERTY} says 1. */
  public static int defaultVersion() {
    String v = System.getProperty(VERSION_PROPERTY, "2");
    return switch (v) {
      case "1" -> VERSION_1;
      case "2" -> VERSION_2;
      default -> throw new IllegalArgumentException(
          "-D" + VERSION_PROPERTY + "=" + v + ": group file format versions are 1 and 2");
    };
  }

  /** Record width needed for the given stored value lengths. */
  static int recordWidth(int[] valueLengths) {
    int w = RECORD_PREFIX_BYTES;
    for (int len : valueLengths) {
      w += 2 + len;
    }
    return w;
  }
}
