package io.pagemark.transforms.sink.jdbc;

import com.google.auto.value.AutoValue;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.format.jdbc.JdbcLayout;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.transforms.BuildContext;
import io.pagemark.transforms.IndexSink;
import io.pagemark.transforms.Published;
import io.pagemark.transforms.order.OrderedPart;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.jdbc.JdbcIO;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.Wait;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * The PostgreSQL index sink: one table of entries per build, primary key (group, rank), written with Beam's
 * {@link JdbcIO} (batched, idempotent inserts: a retried bundle adds no row), a table of group counts, and a publish
 * that moves the index's current build in one transaction, so that readers see the old build or the new one, never a
 * mix; then builds beyond the newest {@code keepBuilds} are dropped. The tables are specified in
 * {@code docs/postgresql.md} ({@link JdbcLayout}); {@code Indexes.open("jdbc:postgresql://...")} reads them.
 *
 * <pre>{@code
 * BuildIndex.of(schema).withSink(WriteJdbcIndex.to("jdbc:postgresql://db:5432/app").withCredentials("u", "p"))
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration. An entry's rank is its part's start plus its
 * position in the part; the starts of a group's parts are summed from the parts' sizes first, so no worker holds a
 * whole group.
 */
@AutoValue
public abstract class WriteJdbcIndex implements IndexSink {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  abstract JdbcAddress getAddress();

  abstract int getBatchSize();

  abstract boolean getCheckBeforeRun();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setAddress(JdbcAddress address);

    abstract Builder setBatchSize(int n);

    abstract Builder setCheckBeforeRun(boolean check);

    abstract WriteJdbcIndex build();
  }

  /**
   * Writes to the database of a {@code jdbc:postgresql://HOST[:PORT]/DB[?...]} URL, in schema
   * {@value JdbcLayout#DEFAULT_SCHEMA} unless the URL's {@code currentSchema} names another.
   *
   * @throws IllegalArgumentException for anything but a PostgreSQL JDBC URL
   */
  public static WriteJdbcIndex to(String jdbcUrl) {
    return new AutoValue_WriteJdbcIndex.Builder().setAddress(JdbcAddress.parse(jdbcUrl))
        .setBatchSize(DEFAULT_BATCH_SIZE).setCheckBeforeRun(true).build();
  }

  /** The user and password (null: the URL's). */
  public WriteJdbcIndex withCredentials(String user, String password) {
    return toBuilder().setAddress(getAddress().withCredentials(user, password)).build();
  }

  /**
   * The schema that holds the index's tables (created when missing). Two indexes in one database need two schemas.
   *
   * @throws IllegalArgumentException for a name PostgreSQL cannot hold
   */
  public WriteJdbcIndex withSchema(String schema) {
    return toBuilder().setAddress(getAddress().withSchema(schema)).build();
  }

  /** Rows per JdbcIO batch, each one statement batch in one transaction (1 to 100,000; default 1,000). */
  public WriteJdbcIndex withBatchSize(int n) {
    if (n < 1 || n > 100_000) {
      throw new IllegalArgumentException("the PostgreSQL batch size must be between 1 and 100000, not " + n);
    }
    return toBuilder().setBatchSize(n).build();
  }

  /**
   * Whether {@link #validate} connects before the pipeline runs (default true), to fail at once when PostgreSQL is
   * unreachable. Turn off where only the workers can reach it.
   */
  public WriteJdbcIndex withCheckBeforeRun(boolean check) {
    return toBuilder().setCheckBeforeRun(check).build();
  }

  /** Where the index is written (the password is never printed: see {@link JdbcAddress#toString}). */
  public JdbcAddress address() {
    return getAddress();
  }

  @Override
  public String describe() {
    return "PostgreSQL at " + getAddress();
  }

  /** Checks that the driver is there and, unless turned off, that PostgreSQL accepts a connection. */
  @Override
  public void validate() {
    JdbcAddress.checkDriver();
    if (!getCheckBeforeRun()) {
      return;
    }
    try (Connection c = getAddress().connect()) {
      c.isValid(10);
    } catch (SQLException e) {
      throw new IllegalArgumentException(e.getMessage() + " (given as --jdbcUrl)", e);
    }
  }

  @Override
  public PTransform<PCollection<OrderedPart>, PCollection<Published>> write(BuildContext build) {
    JdbcIndexMeta meta = new JdbcIndexMeta(build.schema().table(), build.schema().indexName(),
        build.schema().groupAttribute(), build.schema().groupType(), build.schema().storedAttributes(), null);
    return new Write(new JdbcTarget(getAddress(), meta, build.buildId(), build.buildTimeMillis(), build.keepBuilds(),
        getBatchSize()), build.scanCounts());
  }

  private static final class Write extends PTransform<PCollection<OrderedPart>, PCollection<Published>> {
    private final JdbcTarget target;
    private final BuildContext.ScanCounts counts;

    Write(JdbcTarget target, BuildContext.ScanCounts counts) {
      this.target = target;
      this.counts = counts;
    }

    @Override
    public PCollection<Published> expand(PCollection<OrderedPart> parts) {
      Pipeline p = parts.getPipeline();
      JdbcLayout layout = target.address().layout();
      String buildId = target.buildId();
      int attributes = target.meta().attributes().size();
      PCollection<String> begun =
          p.apply("PostgreSQL build id", Create.of(buildId).withCoder(StringUtf8Coder.of()))
              .apply("Register the build", ParDo.of(new BeginJdbcBuildFn(target)))
              .setCoder(StringUtf8Coder.of());
      PCollection<OrderedPart> ready =
          parts.apply("Wait for the build's tables", Wait.on(begun)).setCoder(parts.getCoder());

      PCollection<GroupRow> groups =
          ready
              .apply("Part sizes", MapElements
                  .into(TypeDescriptors.kvs(TypeDescriptor.of(byte[].class), TypeDescriptor.of(PartSize.class)))
                  .via((OrderedPart part) -> KV.of(JdbcRecords.groupKey(part.group()), PartSize.of(part))))
              .setCoder(KvCoder.of(ByteArrayCoder.of(), SerializableCoder.of(PartSize.class)))
              .apply("Group part sizes", GroupByKey.create())
              .apply("Sum parts", ParDo.of(new SumPartsFn()))
              .setCoder(SerializableCoder.of(GroupRow.class));
      PCollectionView<java.util.Map<String, List<Long>>> starts =
          groups
              .apply("Groups of several parts", Filter.by((GroupRow g) -> g.partStarts().size() > 1))
              .apply("Part starts", MapElements
                  .into(TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.lists(TypeDescriptors.longs())))
                  .via((GroupRow g) -> KV.of(RankEntriesFn.key(g.groupKey()), g.partStarts())))
              .setCoder(KvCoder.of(StringUtf8Coder.of(), ListCoder.of(VarLongCoder.of())))
              .apply("Part starts by group", View.asMap());

      PCollection<Void> entriesWritten =
          ready
              .apply("Rank entries", ParDo.of(new RankEntriesFn(starts)).withSideInputs(starts))
              .setCoder(RankedEntry.Coder.of())
              .apply("Insert entries", JdbcIO.<RankedEntry>write()
                  .withDataSourceConfiguration(target.dataSource())
                  .withStatement(layout.insertEntry(buildId, attributes))
                  .withPreparedStatementSetter(new EntrySetter(target.meta().attributes()))
                  .withBatchSize(target.batchSize())
                  .withResults());
      PCollection<Void> groupsWritten =
          groups.apply("Insert groups", JdbcIO.<GroupRow>write()
              .withDataSourceConfiguration(target.dataSource())
              .withStatement(layout.insertGroup(buildId))
              .withPreparedStatementSetter(new GroupSetter())
              .withBatchSize(target.batchSize())
              .withResults());

      PCollectionView<Iterable<GroupRow>> groupView = groups.apply("Written groups", View.asIterable());
      return p.apply("Publish trigger", Create.of(buildId).withCoder(StringUtf8Coder.of()))
          .apply("Wait for every row", Wait.on(entriesWritten, groupsWritten))
          .setCoder(StringUtf8Coder.of())
          .apply("Publish build", ParDo.of(new PublishJdbcBuildFn(target, groupView, counts))
              .withSideInputs(groupView).withSideInputs(counts.sideInputs()))
          .setCoder(SerializableCoder.of(Published.class));
    }
  }

  /** Binds an entry row ({@link JdbcRecords#bindEntry}). */
  private static final class EntrySetter implements JdbcIO.PreparedStatementSetter<RankedEntry> {
    private final List<io.pagemark.format.KeyAttribute> attributes;

    EntrySetter(List<io.pagemark.format.KeyAttribute> attributes) {
      this.attributes = List.copyOf(attributes);
    }

    @Override
    public void setParameters(RankedEntry e, java.sql.PreparedStatement s) throws Exception {
      JdbcRecords.bindEntry(s, e.groupKey(), e.rank(), e.record(), attributes);
    }
  }

  /** Binds a group row. */
  private static final class GroupSetter implements JdbcIO.PreparedStatementSetter<GroupRow> {
    @Override
    public void setParameters(GroupRow g, java.sql.PreparedStatement s) throws Exception {
      s.setBytes(1, g.groupKey());
      s.setBytes(2, g.groupValue());
      s.setLong(3, g.entries());
      s.setLong(4, g.tieRuns());
      s.setLong(5, g.tieRunsUnresolved());
    }
  }
}
