package io.pagemark.format.jdbc;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How an index record becomes an entry row and back (see {@link JdbcLayout}): strings as their UTF-8 bytes and
 * binaries as themselves in {@code bytea}, numbers as exact {@code numeric} (read back in the form DynamoDB returns
 * numbers in: plain decimal, no trailing zeros), then the record's position in its run of equal sort keys, the run's
 * length, whether DynamoDB's order of the run is known, and its descending slot.
 */
public final class JdbcRecords {
  private JdbcRecords() {}

  /** The canonical bytes of a group key: the {@code group_key} column. */
  public static byte[] groupKey(KeyValue group) {
    return group.sortableBytes();
  }

  /** Binds an entry row (group, rank, record) from parameter 1, in {@link JdbcLayout#entryColumns} order. */
  public static void bindEntry(PreparedStatement s, byte[] groupKey, long rank, IndexRecord r,
      List<KeyAttribute> attributes) throws SQLException {
    if (r.keys().size() != attributes.size()) {
      throw new IllegalArgumentException(
          "record has " + r.keys().size() + " key values; the index stores " + attributes.size());
    }
    int i = 1;
    s.setBytes(i++, groupKey);
    s.setLong(i++, rank);
    for (int k = 0; k < attributes.size(); k++) {
      KeyValue v = r.keys().get(k);
      if (v.type() != attributes.get(k).type()) {
        throw new IllegalArgumentException("attribute " + attributes.get(k).name() + " is declared "
            + attributes.get(k).type() + " but the record holds " + v.type());
      }
      bindKey(s, i++, v);
    }
    s.setInt(i++, r.tiePosition());
    s.setInt(i++, r.runLength());
    s.setBoolean(i++, r.runOrderKnown());
    s.setInt(i, r.descendingSlot());
  }

  /** Binds one key value: {@code numeric} for a number, {@code bytea} otherwise. */
  public static void bindKey(PreparedStatement s, int parameter, KeyValue v) throws SQLException {
    if (v.type() == KeyType.N) {
      s.setBigDecimal(parameter, number(v));
    } else {
      s.setBytes(parameter, v.bytes());
    }
  }

  /** A number's exact value; "1E+2" becomes 100 (scale 0: the driver sends no negative scale). */
  static BigDecimal number(KeyValue v) {
    BigDecimal d = new BigDecimal(v.text());
    return d.scale() < 0 ? d.setScale(0) : d;
  }

  /**
   * Reads a record from the current row, whose columns from {@code first} on are the key values and the run fields
   * ({@link JdbcLayout#selectEntry}). Throws {@link IllegalArgumentException} naming what is wrong with a row
   * pagemark did not write.
   */
  public static IndexRecord readRecord(ResultSet rs, int first, List<KeyAttribute> attributes) throws SQLException {
    List<KeyValue> keys = new ArrayList<>(attributes.size());
    int i = first;
    for (KeyAttribute a : attributes) {
      keys.add(readKey(rs, i++, a));
    }
    return new IndexRecord(rs.getInt(i), rs.getInt(i + 1), rs.getBoolean(i + 2), rs.getInt(i + 3), keys);
  }

  static KeyValue readKey(ResultSet rs, int column, KeyAttribute a) throws SQLException {
    if (a.type() == KeyType.N) {
      BigDecimal d = rs.getBigDecimal(column);
      if (d == null) {
        throw new IllegalArgumentException("attribute " + a.name() + " is NULL");
      }
      // DynamoDB's own form of a number: no exponent, no trailing zeros (1E+2 reads as 100, 1.50 as 1.5).
      return KeyValue.ofNumber(d.stripTrailingZeros().toPlainString());
    }
    byte[] b = rs.getBytes(column);
    if (b == null) {
      throw new IllegalArgumentException("attribute " + a.name() + " is NULL");
    }
    return KeyValue.of(a.type(), b);
  }
}
