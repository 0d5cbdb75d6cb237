package io.pagemark.pipelines.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.s3.S3Location;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.file.FileIndex;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.redis.RedisIndex;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
public final class VerifyCommand {
  static final Set<String> OPTIONS =
      Set.of("table", "gsi", "index", "build", "dynamoEndpoint", "awsRegion", "tolerance", "samplesPerGroup",
          "maxGroups", "seed", "s3Endpoint");
  static final String USAGE =
      "usage: pagemark verify --table=T --gsi=G --index=DIR|redis://HOST:PORT[/DB][?prefix=P]|s3://BUCKET/PREFIX"
          + " [--build=ID] [--dynamoEndpoint=URL] [--s3Endpoint=URL] [--awsRegion=R]"
          + " [--tolerance=0.0] [--samplesPerGroup=5] [--maxGroups=all] [--seed=1]";

  private VerifyCommand() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    Args a;
    double tolerance;
    int samples;
    long maxGroups;
    long seed;
    try {
      a = Args.parse(argv, OPTIONS);
      a.required("table");
      a.required("gsi");
      a.required("index");
      try {
        tolerance = Double.parseDouble(a.get("tolerance", "0"));
      } catch (NumberFormatException e) {
        throw new Args.UsageException("--tolerance must be a fraction such as 0.01, not " + a.get("tolerance", ""));
      }
      if (!(tolerance >= 0 && tolerance <= 1)) {
        throw new Args.UsageException("--tolerance must be between 0 and 1");
      }
      samples = (int) Args.number("samplesPerGroup", a.get("samplesPerGroup", "5"), 0, 10_000);
      maxGroups = Args.number("maxGroups", a.get("maxGroups", Long.toString(Long.MAX_VALUE)), 1, Long.MAX_VALUE);
      seed = Args.number("seed", a.get("seed", "1"), Long.MIN_VALUE, Long.MAX_VALUE);
    } catch (Args.UsageException e) {
      err.println("pagemark verify: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    String spec = a.get("index", null);
    DynamoConnection connection = new DynamoConnection(a.get("dynamoEndpoint", null), a.get("awsRegion", null));
    try (DynamoDbClient client = connection.client();
        Index index = openIndex(spec, a.get("build", null), a.get("s3Endpoint", null))) {
      KeySchema schema = KeySchema.describe(client, a.get("table", null), a.get("gsi", null));
      String builtOn = builtOn(index);
      if (!builtOn.equals(schema.groupAttribute() + "/" + schema.sortAttribute().name())) {
        err.println("pagemark verify: index " + spec + " was built on " + builtOn + ", but " + schema.indexName()
            + " is on " + schema.groupAttribute() + "/" + schema.sortAttribute().name());
        return ExitCode.FAILURE;
      }
      List<KeyValue> groups = sample(groups(index), maxGroups, seed);
      Random random = new Random(seed);
      int disagreeing = 0;
      long missing = 0;
      long sampled = 0;
      List<String> report = new ArrayList<>();
      for (KeyValue g : groups) {
        long inDynamo = count(client, schema, g);
        long inIndex;
        try (GroupPages pages = index.group(g)) {
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
              + " keys missing (tolerance %s)%n", ok ? "OK" : "DRIFT", index.buildId(), groups.size(),
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

  /** Opens an index; {@code s3Endpoint} (the {@code --s3Endpoint} option, or null) reaches an S3-compatible store. */
  static Index openIndex(String spec, String build, String s3Endpoint) throws IOException {
    String s = S3Location.withEndpoint(spec, s3Endpoint);
    return build == null ? Indexes.open(s) : Indexes.open(s, build);
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
