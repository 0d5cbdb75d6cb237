package io.pagemark.format;

import java.io.Serializable;

/**
 * What a version-2 writer learns about a group from its records, in the version-1 record layout, in rank order: the
 * {@link ColumnStats} of each stored attribute and the group's tie runs. Enough to choose the file's {@link
 * LayoutV2}; the streaming writer and the one-pass writer learn through this one class, so they choose alike.
 *
 * <p>A build learns the columns of a big group's parts while it writes them, in parallel ({@link
 * GroupFileWriter#write(java.nio.file.Path, GroupHeader, java.util.List, int, FileSync, GroupColumns)}), and joins them in part order
 * ({@link #then}) so that the group's join reads its parts once instead of twice ({@link GroupFileWriter#join(
 * java.nio.file.Path, GroupHeader, java.util.List, int, FileSync, GroupColumns)}): what is learned from the parts one after another is what one
 * pass over the whole group learns. Serializable, to travel with a part's name between workers.
 */
public final class GroupColumns implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ColumnStats[] columns;
  private long records;
  private long tieRuns;
  private long tiedEntries;

  /** Nothing learned yet, for records of {@code attributes} stored attributes. */
  public GroupColumns(int attributes) {
    columns = new ColumnStats[attributes];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ColumnStats();
    }
  }

  /** The number of records learned. */
  public long records() {
    return records;
  }

  /** The number of stored attributes of the records. */
  public int attributes() {
    return columns.length;
  }

  /**
   * Keeps each datetime column's parsed times for the next {@code records} records (see {@link ColumnStats#times}):
   * for a writer that encodes the records right after learning them. Only before any record is learned.
   */
  void rememberTimes(int records) {
    for (ColumnStats c : columns) {
      c.rememberTimes(records);
    }
  }

  /**
   * Per stored attribute, the time of each record learned when {@link #rememberTimes} kept them and every value is a
   * datetime, else null.
   */
  long[][] times() {
    long[][] t = new long[columns.length][];
    for (int i = 0; i < columns.length; i++) {
      t[i] = columns[i].times();
    }
    return t;
  }

  /** Lets go of the times {@link #rememberTimes} kept, once the records are encoded: what was learned stays. */
  void forgetTimes() {
    for (ColumnStats c : columns) {
      c.forgetTimes();
    }
  }

  /** Learns a record's tie fields. */
  private void addTies(int tiePosition, int runWord) {
    int runLength = runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
    if (tiePosition == 0 && runLength > 1) {
      tieRuns++;
      tiedEntries += runLength;
    }
  }

  /** Learns the version-1 record at {@code b[at]}: its tie fields and every stored value. */
  void addRecord(byte[] b, int at) {
    records++;
    addTies(V1Records.getInt(b, at), V1Records.getInt(b, at + 4));
    int p = at + GroupFileFormat.RECORD_PREFIX_BYTES;
    for (ColumnStats c : columns) {
      int length = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
      c.add(b, p + 2, length);
      p += 2 + length;
    }
  }

  /**
   * What is learned from this object's records followed by {@code next}'s, as if one writer had learned them all in
   * that order; neither is changed.
   *
   * @throws IllegalArgumentException if the two learned records of different numbers of attributes
   */
  public GroupColumns then(GroupColumns next) {
    if (next.columns.length != columns.length) {
      throw new IllegalArgumentException("cannot join columns of " + columns.length + " attributes with columns of "
          + next.columns.length);
    }
    GroupColumns both = new GroupColumns(columns.length);
    for (int i = 0; i < columns.length; i++) {
      both.columns[i] = columns[i].then(next.columns[i]);
    }
    both.records = records + next.records;
    both.tieRuns = tieRuns + next.tieRuns;
    both.tiedEntries = tiedEntries + next.tiedEntries;
    return both;
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
