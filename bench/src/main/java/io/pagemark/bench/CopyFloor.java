package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.key.KeyValue;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;

/**
 * The bulk-load floor of a PostgreSQL build: the same entry rows the sink writes (ranked, with their run fields) sent
 * with one {@code COPY ... FROM STDIN (FORMAT binary)} into a table of the same columns and primary key. Rows are
 * encoded before the clock starts, so only PostgreSQL's load is timed.
 */
final class CopyFloor {
  private CopyFloor() {}

  /** Loads the spec's entries with COPY into {@code SCHEMA.copy_floor}; returns the seconds COPY took. */
  static double seconds(SyntheticEntries spec, JdbcAddress address) throws Exception {
    byte[] rows = encode(spec);
    String table = "\"" + address.schema() + "\".copy_floor";
    try (Connection c = address.connect()) {
      try (Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
        s.execute("CREATE TABLE " + table + " (group_key bytea NOT NULL, rank bigint NOT NULL, sort_key bytea NOT"
            + " NULL, key_1 bytea NOT NULL, tie_position integer NOT NULL, run_length integer NOT NULL,"
            + " run_order_known boolean NOT NULL, descending_slot integer NOT NULL, PRIMARY KEY (group_key, rank))");
      }
      long started = System.nanoTime();
      long n = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table + " FROM STDIN (FORMAT binary)",
          new ByteArrayInputStream(rows));
      double seconds = (System.nanoTime() - started) / 1e9;
      if (n != spec.entries()) {
        throw new IllegalStateException("COPY loaded " + n + " rows, expected " + spec.entries());
      }
      try (Statement s = c.createStatement()) {
        s.execute("DROP TABLE " + table);
      }
      return seconds;
    }
  }

  /** Every entry as a binary COPY row, groups in order, each in DynamoDB's order with its rank. */
  private static byte[] encode(SyntheticEntries spec) throws IOException {
    Map<Integer, List<IndexEntry>> groups = new HashMap<>();
    for (long i = 0; i < spec.entries(); i++) {
      groups.computeIfAbsent(spec.groupOf(i), g -> new ArrayList<>()).add(spec.entry(i));
    }
    ByteArrayOutputStream buf = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8,
        spec.entries() * 90));
    DataOutputStream out = new DataOutputStream(buf);
    out.writeBytes("PGCOPY\n");
    out.write(new byte[] {(byte) 0xFF, '\r', '\n', 0});
    out.writeInt(0); // flags
    out.writeInt(0); // header extension
    for (List<IndexEntry> entries : groups.values()) {
      entries.sort(IndexEntry.ORDER);
      byte[] groupKey = JdbcRecords.groupKey(entries.get(0).group());
      long[] rank = {0};
      GroupRecords records = new GroupRecords(TieOrder.UNKNOWN, r -> row(out, groupKey, rank[0]++, r));
      for (IndexEntry e : entries) {
        records.add(e);
      }
      records.finish();
    }
    out.writeShort(-1);
    out.flush();
    return buf.toByteArray();
  }

  private static void row(DataOutputStream out, byte[] groupKey, long rank, IndexRecord r) throws IOException {
    out.writeShort(8);
    bytes(out, groupKey);
    out.writeInt(8);
    out.writeLong(rank);
    for (KeyValue k : r.keys()) {
      bytes(out, k.bytes());
    }
    out.writeInt(4);
    out.writeInt(r.tiePosition());
    out.writeInt(4);
    out.writeInt(r.runLength());
    out.writeInt(1);
    out.writeByte(r.runOrderKnown() ? 1 : 0);
    out.writeInt(4);
    out.writeInt(r.descendingSlot());
  }

  private static void bytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }
}
