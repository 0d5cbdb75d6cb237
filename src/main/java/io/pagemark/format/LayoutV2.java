package io.pagemark.format;

import java.util.List;

/**
 * How the records and the tie table of a version-2 group file are laid out (docs/format-v2.md): one codec per
 * stored attribute, whether the tie fields are inline, and the size and checksum of the tie table.
 */
record LayoutV2(List<ColumnCodec> codecs, boolean inlineTies, long runs, long slots, int tieTableCrc) {
  LayoutV2 {
    codecs = List.copyOf(codecs);
  }

  /** The record width W: the slots, the inline tie fields, and at least one byte. */
  int width() {
    int w = inlineTies ? GroupFileFormat.RECORD_PREFIX_BYTES : 0;
    for (ColumnCodec c : codecs) {
      w += c.slotWidth();
    }
    return Math.max(1, w);
  }

  /** Bytes of the tie table after the records. */
  long tieTableBytes() {
    return 16 * runs + 4 * slots;
  }

  /** The version-1 record width that holds every record of a file with this layout. */
  int unpackedWidth() {
    int w = GroupFileFormat.RECORD_PREFIX_BYTES;
    for (ColumnCodec c : codecs) {
      w += 2 + c.longestValue();
    }
    return w;
  }

  LayoutV2 withTieTable(long runs, long slots, int crc) {
    return new LayoutV2(codecs, inlineTies, runs, slots, crc);
  }
}
