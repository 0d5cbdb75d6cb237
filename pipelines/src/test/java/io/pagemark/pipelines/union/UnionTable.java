package io.pagemark.pipelines.union;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What the union tests share: the backfill test table plus ratings-like groups on the JVM's DynamoDB Local, loaded
 * once, and its indexes, each built once by the backfill CLI (into files, and into the JVM's redis-server on demand).
 */
final class UnionTable {
  static final String TABLE = "unions";
  private static UnionTable instance;

  final DynamoDbLocal local;
  final DynamoDbClient client;
  private final Path dir;
  private final Map<String, String> builds = new HashMap<>();

  private UnionTable(DynamoDbLocal local, DynamoDbClient client, Path dir) {
    this.local = local;
    this.client = client;
    this.dir = dir;
  }

  static synchronized UnionTable get() throws Exception {
    if (instance == null) {
      DynamoDbLocal local = DynamoDbLocalExtension.get();
      DynamoDbClient client = local.client();
      TrickyTable.create(client, TABLE);
      List<Map<String, AttributeValue>> items = new ArrayList<>(TrickyTable.items(15));
      items.addAll(RatingsGroups.items(15));
      SampleComments.load(client, TABLE, items, 2, null);
      // under target/, so that mvn clean removes it
      Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "union-it");
      instance = new UnionTable(local, client, dir);
    }
    return instance;
  }

  /** The index of a GSI in files: its directory. */
  synchronized String files(String gsi) {
    return builds.computeIfAbsent(gsi, g -> {
      Path out = dir.resolve(g);
      backfill("--gsi=" + g, "--output=" + out);
      return out.toString();
    });
  }

  /** The index of a GSI in the JVM's redis-server: its {@code redis://} spec. */
  synchronized String redis(String gsi) throws Exception {
    String uri = RedisExtension.get().uri();
    return builds.computeIfAbsent("redis:" + gsi, g -> {
      String prefix = "union-it:" + gsi + ":";
      backfill("--gsi=" + gsi, "--output=" + dir.resolve("redis-" + gsi), "--redis=" + uri,
          "--redisKeyPrefix=" + prefix);
      return uri + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
    });
  }

  private void backfill(String... args) {
    List<String> all = new ArrayList<>(List.of("--table=" + TABLE));
    all.addAll(List.of(args));
    BackfillIT.Result r = BackfillIT.backfill(local, all.toArray(String[]::new));
    assertThat(r.err(), r.code(), is(0));
  }
}
