package io.pagemark.bench;

import io.pagemark.format.BuildInfo;
import io.pagemark.lookup.FileIndex;
import io.pagemark.lookup.GroupPages;
import io.pagemark.pipelines.BackfillCommand;
import io.pagemark.pipelines.BackfillOptions;
import io.pagemark.pipelines.SampleComments;
import io.pagemark.transforms.Backfill;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The demo's {@code comments} table on DynamoDB Local with every comment in one product (so that its group is deep
 * enough for the deepest page), loaded with {@link SampleComments#load} and indexed by pagemark's own backfill
 * (DynamoDB's order of equal sort keys resolved, as in production). Shared by the deep-page, latency and footprint
 * benchmarks.
 */
public final class CommentsFixture implements AutoCloseable {
  private final DynamoDbClient client;
  private final Path index;
  private final BuildInfo build;
  private final int items;
  private final long rawKeyBytes;

  private CommentsFixture(DynamoDbClient client, Path index, BuildInfo build, int items, long rawKeyBytes) {
    this.client = client;
    this.index = index;
    this.build = build;
    this.items = items;
    this.rawKeyBytes = rawKeyBytes;
  }

  static CommentsFixture create(Context context, int items) throws Exception {
    var dynamo = context.dynamo();
    DynamoDbClient client = dynamo.client();
    SampleComments.createTable(client);
    List<Map<String, AttributeValue>> comments = new ArrayList<>();
    long rawKeyBytes = 0;
    for (Map<String, AttributeValue> c : SampleComments.generate(items, 300, 42)) {
      Map<String, AttributeValue> one = new HashMap<>(c);
      one.put("PK2", AttributeValue.fromS(group()));
      comments.add(one);
      rawKeyBytes += utf8(one.get("SK").s()) + utf8(one.get("PK").s());
    }
    long started = System.nanoTime();
    context.progress().printf("bench: loading %,d comments of one product into DynamoDB Local ...%n", items);
    SampleComments.load(client, SampleComments.TABLE, comments, 4, null);
    context.progress().printf("bench: loaded %,d comments in %.0f s; building their index ...%n", items,
        (System.nanoTime() - started) / 1e9);

    Path root = context.dir("comments-index");
    BackfillOptions o =
        PipelineOptionsFactory.fromArgs(
                "--table=" + SampleComments.TABLE, "--gsi=" + SampleComments.GSI, "--output=" + root,
                "--dynamoEndpoint=" + dynamo.endpoint(), "--progressSeconds=10", "--keepBuilds=1")
            .as(BackfillOptions.class);
    Backfill backfill = BackfillCommand.configure(o);
    BuildInfo build = BackfillCommand.run(o, backfill, context.progress());
    if (build.counts().entries() != items) {
      throw new IllegalStateException(
          "the comments index holds " + build.counts().entries() + " entries, expected " + items);
    }
    return new CommentsFixture(client, root, build, items, rawKeyBytes);
  }

  private static int utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  /** The UTF-8 bytes of every entry's stored key values (sort key and table key), added up. */
  public long rawKeyBytes() {
    return rawKeyBytes;
  }

  /** The one product every comment belongs to. */
  public static String group() {
    return SampleComments.hotProduct();
  }

  public DynamoDbClient client() {
    return client;
  }

  /** The index root (its CURRENT build holds the group). */
  public Path index() {
    return index;
  }

  public BuildInfo build() {
    return build;
  }

  public int items() {
    return items;
  }

  /** Opens the group's pages in a freshly opened index. */
  public GroupPages open() throws java.io.IOException, io.pagemark.lookup.LookupException {
    try (FileIndex f = FileIndex.open(index)) {
      return f.group(group());
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
