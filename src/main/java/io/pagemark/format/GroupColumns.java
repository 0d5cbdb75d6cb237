package io.pagemark.format;

/**
 * What a version-2 writer learns about a group from its records, in the version-1 record layout, in rank order: the
 * {@link ColumnStats} of each stored attribute and the group's tie runs. Enough to choose the file's {@link
 * LayoutV2}; the streaming writer and the one-pass writer learn through this one class, so they choose alike.
 */
final class GroupColumns {
  private final ColumnStats[] columns;
  private long tieRuns;
  private long tiedEntries;

  GroupColumns(int attributes) {
    columns = new ColumnStats[attributes];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ColumnStats();
    }
  }

  /** Learns attribute {@code i}'s value {@code b[from, from + n)}. */
  void addValue(int i, byte[] b, int from, int n) {
    columns[i].add(b, from, n);
  }

  /** Learns a record's tie fields. */
  void addTies(int tiePosition, int runWord) {
    int runLength = runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
    if (tiePosition == 0 && runLength > 1) {
      tieRuns++;
      tiedEntries += runLength;
    }
  }

  /** Learns the version-1 record at {@code b[at]}: its tie fields and every stored value. */
  void addRecord(byte[] b, int at) {
    addTies(V1Records.getInt(b, at), V1Records.getInt(b, at + 4));
    int p = at + GroupFileFormat.RECORD_PREFIX_BYTES;
    for (ColumnStats c : columns) {
      int length = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
      c.add(b, p + 2, length);
      p += 2 + length;
    }
  }

  /** The layout of a file of {@code entries} records with what was learned (its tie table not yet written). */
  LayoutV2 layout(long entries) {
    ColumnCodec[] codecs = new ColumnCodec[columns.length];
    for (int i = 0; i < codecs.length; i++) {
      codecs[i] = columns[i].choose();
    }
    // a group of mostly ties keeps its tie fields in the records: its open then reads no large table
    boolean inline = tiedEntries > entries / 8;
    return new LayoutV2(java.util.List.of(codecs), inline, inline ? 0 : tieRuns, inline ? 0 : tiedEntries, 0);
  }
}
