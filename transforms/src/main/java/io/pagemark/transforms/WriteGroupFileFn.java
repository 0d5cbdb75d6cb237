package io.pagemark.transforms;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Writes one group's file into the partial build directory: orders the group's entries as DynamoDB does, learns
 * DynamoDB's order of equal sort keys, and streams the records out. The whole group is held in memory to be sorted.
 */
final class WriteGroupFileFn extends DoFn<KV<byte[], Iterable<IndexEntry>>, GroupSummary> {
  private final DynamoConnection connection;
  private final KeySchema schema;
  private final String root;
  private final String buildId;
  private final long buildTimeMillis;
  private final Counter groups = Metrics.counter(Backfill.METRICS, "groupsWritten");
  private final Counter entries = Metrics.counter(Backfill.METRICS, "entriesWritten");
  private final Counter tieQueries = Metrics.counter(Backfill.METRICS, "tieQueries");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "throttledRetries");
  private transient DynamoDbClient client;

  WriteGroupFileFn(
      DynamoConnection connection, KeySchema schema, String root, String buildId, long buildTimeMillis) {
    this.connection = connection;
    this.schema = schema;
    this.root = root;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
  }

  @Setup
  public void setup() {
    if (schema.tiesPossible() && schema.indexName() != null) {
      client = connection.client();
    }
  }

  @ProcessElement
  public void process(@Element KV<byte[], Iterable<IndexEntry>> group, OutputReceiver<GroupSummary> out)
      throws IOException {
    List<IndexEntry> sorted = new ArrayList<>();
    int width = 0;
    for (IndexEntry e : group.getValue()) {
      sorted.add(e);
      width = Math.max(width, GroupFileWriter.widthFor(e.keys()));
    }
    sorted.sort(IndexEntry.ORDER);
    KeyValue key = sorted.get(0).group();
    Path buildDir = new IndexLayout(Path.of(root)).partialBuild(buildId);
    String relative = GroupPaths.relativePath(key);
    GroupHeader header =
        new GroupHeader(
            schema.groupAttribute(), key, schema.storedAttributes(), width, 0, buildTimeMillis, buildId,
            new byte[32]);
    TieOrder ties = client == null ? TieOrder.UNKNOWN : new DynamoTieOrder(client, schema, tieQueries, retries);
    GroupHeader done;
    GroupRecords records;
    try (GroupFileWriter w = new GroupFileWriter(GroupPaths.resolve(buildDir, key), header)) {
      records = new GroupRecords(ties, w::append);
      for (IndexEntry e : sorted) {
        records.add(e);
      }
      records.finish();
      done = w.finish();
    }
    groups.inc();
    entries.inc(records.count());
    String line =
        "{\"group\":" + key + ",\"file\":" + Json.quote(relative) + ",\"count\":" + records.count()
            + ",\"recordWidth\":" + width + ",\"sha256\":\"" + HexFormat.of().formatHex(done.recordsSha256())
            + "\",\"tieRuns\":" + records.tieRuns() + ",\"tieRunsUnresolved\":" + records.unresolvedRuns() + "}";
    out.output(new GroupSummary(relative, line, records.count(), records.tieRuns(), records.unresolvedRuns()));
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
