package io.pagemark.format;

import java.nio.charset.StandardCharsets;

/** Constants of the group file format, version 1. docs/file-format.md is the specification. */
final class GroupFileFormat {
  static final byte[] MAGIC = "PAGEMARK".getBytes(StandardCharsets.US_ASCII);
  static final short VERSION = 1;
  static final int BUILD_ID_BYTES = 32;
  static final int FIXED_HEADER_BYTES = 104;
  static final int RECORD_PREFIX_BYTES = 12;
  static final int RUN_ORDER_UNKNOWN = 0x8000_0000;
  static final int MAX_VALUE_BYTES = 0xFFFF;
  static final String FILE_SUFFIX = ".pmi";

  private GroupFileFormat() {}

  /** Record width needed for the given stored value lengths. */
  static int recordWidth(int[] valueLengths) {
    int w = RECORD_PREFIX_BYTES;
    for (int len : valueLengths) {
      w += 2 + len;
    }
    return w;
  }
}
