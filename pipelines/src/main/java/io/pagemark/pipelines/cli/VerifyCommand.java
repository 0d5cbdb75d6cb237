package io.pagemark.pipelines.cli;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * {@code pagemark verify}: compares an index with DynamoDB. For each group (all, or a deterministic sample of
 * {@code --maxGroups}), counts the GSI's items with {@code Select=COUNT} Queries and checks that a sample of ranks
 * still name items with the same group and sort key (GetItem). Exit code 1 with a report when more groups disagree
 * than the tolerance allows; the last line is a one-line summary either way.
 */
@Command(
    name = "verify",
    description = {
      "Compares an index with DynamoDB: counts each group's items in the GSI (Select=COUNT Queries) and checks that"
          + " sampled ranks still name items with the same group and sort key (consistent GetItem).",
      "Exit code 1, with the disagreeing groups and missing keys on stderr, when more than --tolerance of the groups"
          + " disagree or of the sampled keys are missing."
    })
public final class VerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--table", required = true, paramLabel = "T", description = "The DynamoDB table.")
  String table;

  @Option(names = "--gsi", required = true, paramLabel = "G",
      description = "The global secondary index the index numbers pages of.")
  String gsi;

  @Option(names = "--index", required = true, paramLabel = "DIR|redis://HOST:PORT[/DB][?prefix=P]|s3://BUCKET/PREFIX",
      description = "The index: its root directory, the Redis database (redis://) or Redis Cluster"
          + " (redis-cluster://HOST:PORT[,HOST:PORT...]) that holds it, its S3 prefix, or"
          + " jdbc:postgresql://HOST:PORT/DB[?currentSchema=S].")
  String index;

  @Mixin S3EndpointOption s3;

  @Option(names = "--build", paramLabel = "ID", description = "Check this build (default: the current one).")
  String build;

  @Mixin DynamoOptions dynamo;

  @Option(names = "--tolerance", paramLabel = "F", defaultValue = "0",
      description = "Fraction of groups that may disagree on counts, and of sampled keys that may be missing, and by"
          + " how much a group's counts may differ (relative). Default: ${DEFAULT-VALUE}.")
  String tolerance;

  @Option(names = "--samplesPerGroup", paramLabel = "N", defaultValue = "5",
      description = "Ranks checked with GetItem per group, 0 to 10000. Default: ${DEFAULT-VALUE}.")
  long samplesPerGroup;

  @Option(names = "--maxGroups", paramLabel = "N",
      description = "Check a deterministic sample of this many groups (default: all). Counting reads every item of the"
          + " checked groups.")
  Long maxGroups;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the samples of groups and ranks. Default: ${DEFAULT-VALUE}.")
  long seed;

  private final PrintStream out;
  private final PrintStream err;

  public VerifyCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    double tolerance;
    try {
      tolerance = Double.parseDouble(this.tolerance);
    } catch (NumberFormatException e) {
      throw Cli.usageError(spec, "--tolerance must be a fraction such as 0.01, not " + this.tolerance);
    }
    if (!(tolerance >= 0 && tolerance <= 1)) {
      throw Cli.usageError(spec, "--tolerance must be between 0 and 1");
    }
    int samples = (int) Cli.inRange(spec, "--samplesPerGroup", samplesPerGroup, 0, 10_000);
    long groupsAtMost =
        maxGroups == null ? Long.MAX_VALUE : Cli.inRange(spec, "--maxGroups", maxGroups, 1, Long.MAX_VALUE);
    DynamoConnection connection = dynamo.connection();
    String indexSpec;
    try {
      indexSpec = s3.apply(index);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    try (DynamoDbClient client = connection.client();
        Index opened = openIndex(indexSpec, build)) {
      KeySchema schema = KeySchema.describe(client, table, gsi);
      String builtOn = builtOn(opened);
      if (!builtOn.equals(schema.groupAttribute() + "/" + schema.sortAttribute().name())) {
        err.println("pagemark verify: index " + index + " was built on " + builtOn + ", but " + schema.indexName()
            + " is on " + schema.groupAttribute() + "/" + schema.sortAttribute().name());
        return ExitCode.FAILURE;
      }
      List<KeyValue> groups = sample(groups(opened), groupsAtMost, seed);
      Random random = new Random(seed);
      int disagreeing = 0;
      long missing = 0;
      long sampled = 0;
      List<String> report = new ArrayList<>();
      for (KeyValue g : groups) {
        long inDynamo = count(client, schema, g);
        long inIndex;
        try (GroupPages pages = opened.group(g)) {
          inIndex = pages.count();
          for (int i = 0; i < samples && inIndex > 0; i++) {
            long rank = (long) (random.nextDouble() * inIndex);
            sampled++;
            if (!stillThere(client, schema, pages.keyAt(rank))) {
              missing++;
              report.add("  group " + g + " rank " + rank + ": " + pages.keyAt(rank) + " no longer in the table"
                  + " with that group and sort key");
            }
          }
        }
        if (Math.abs(inDynamo - inIndex) > tolerance * Math.max(1, inDynamo)) {
          disagreeing++;
          report.add("  group " + g + ": " + inIndex + " entries in the index, " + inDynamo + " items in "
              + schema.indexName());
        }
      }
      report.stream().limit(50).forEach(err::println);
      if (report.size() > 50) {
        err.println("  ... and " + (report.size() - 50) + " more");
      }
      boolean ok = disagreeing <= tolerance * groups.size() && missing <= tolerance * Math.max(1, sampled);
      out.printf("pagemark verify: %s: build %s, %d group(s) checked, %d disagree on counts, %d of %d sampled"
              + " keys missing (tolerance %s)%n", ok ? "OK" : "DRIFT", opened.buildId(), groups.size(),
          disagreeing, missing, sampled, tolerance);
      return ok ? ExitCode.OK : ExitCode.FAILURE;
    } catch (IllegalArgumentException e) {
      err.println("pagemark verify: " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (Exception e) {
      err.println("pagemark verify: failed: " + e);
      return ExitCode.FAILURE;
    }
  }

  static Index openIndex(String spec, String build) throws IOException {
    return build == null ? Indexes.open(spec) : Indexes.open(spec, build);
  }

  /** "groupAttribute/sortAttribute" of an index, as its build recorded them. */
  private static String builtOn(Index index) {
    return index.groupAttribute() + "/" + index.sortAttribute();
  }

  /** The groups of the index, sorted so that --maxGroups and --seed pick the same sample from any store. */
  private static List<KeyValue> groups(Index index) throws IOException {
    List<KeyValue> groups = new ArrayList<>(index.groups());
    groups.sort(java.util.Comparator.comparing(KeyValue::toString));
    return groups;
  }

  /** All groups, or a deterministic sample of {@code max} of them. */
  private static List<KeyValue> sample(List<KeyValue> groups, long max, long seed) {
    if (groups.size() > max) {
      java.util.Collections.shuffle(groups, new Random(seed));
      return groups.subList(0, (int) max);
    }
    return groups;
  }

  private static long count(DynamoDbClient client, KeySchema schema, KeyValue group) {
    long n = 0;
    Map<String, AttributeValue> from = null;
    do {
      QueryRequest.Builder b =
          QueryRequest.builder().tableName(schema.table()).indexName(schema.indexName())
              .keyConditionExpression("#g = :g").expressionAttributeNames(Map.of("#g", schema.groupAttribute()))
              .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(group))).select(Select.COUNT);
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(b.build());
      n += r.count();
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null);
    return n;
  }

  /** Whether the item of an index entry still exists with the same group and sort key. */
  private static boolean stillThere(DynamoDbClient client, KeySchema schema, Map<String, KeyValue> startKey) {
    Map<String, AttributeValue> key = new HashMap<>();
    for (String name : schema.primaryKeyNames()) {
      key.put(name, ItemKeys.attributeValue(startKey.get(name)));
    }
    GetItemResponse r = client.getItem(b -> b.tableName(schema.table()).key(key).consistentRead(true));
    if (!r.hasItem() || r.item().isEmpty()) {
      return false;
    }
    for (String name : List.of(schema.groupAttribute(), schema.sortAttribute().name())) {
      AttributeValue v = r.item().get(name);
      if (v == null || !ItemKeys.attributeValue(startKey.get(name)).equals(v)) {
        return false;
      }
    }
    return true;
  }
}
