package io.pagemark.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * Figure 5, footprint of the deep group's entries, two ways:
 *
 * <ul>
 *   <li>bytes per entry on disk of the group file as the backfill wrote it (format version 2, header and tie table
 *       included) against the raw bytes of the key values each entry stores (sort key and table key, UTF-8, no
 *       framing); {@link FormatVersions} compares it with version 1 of the same entries;
 *   <li>Redis memory per member of the same build's sorted set ({@code MEMORY USAGE key SAMPLES 0}, every member
 *       counted) against the file index's bytes per entry.
 * </ul>
 */
final class Footprint implements Bench {
  static final String NAME = "index bytes per entry on disk, demo comments, vs raw key bytes";
  static final String REDIS = "Redis memory per member, demo comments, vs index bytes per entry on disk";

  @Override
  public String id() {
    return "footprint";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(NAME, REDIS);
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    Path file = LookupLatency.groupFile(table);
    long fileBytes = Files.size(file);
    double perEntry = fileBytes / (double) table.items();
    double raw = table.rawKeyBytes() / (double) table.items();
    context.report(new Figure(NAME, perEntry, "bytes", "the entry's sort key and table key bytes (UTF-8)", raw,
        "bytes", String.format("group file of %,d demo comments (%,d bytes)", table.items(), fileBytes)));

    byte[] key = table.redisGroupKey();
    long setBytes;
    long members;
    String encoding;
    String version;
    try (Jedis j = table.redis().client()) {
      Long usage = j.memoryUsage(key, 0);
      members = j.zcard(key);
      if (usage == null || members != table.items()) {
        throw new IllegalStateException("Redis's sorted set of the group holds " + members + " members ("
            + (usage == null ? "no such key" : usage + " bytes") + "); expected " + table.items());
      }
      setBytes = usage;
      encoding = new String(j.objectEncoding(key), StandardCharsets.US_ASCII);
      version = j.info("server").lines().filter(l -> l.startsWith("redis_version:")).findFirst()
          .map(l -> l.substring("redis_version:".length()).trim()).orElse("?");
    }
    context.report(new Figure(REDIS, setBytes / (double) members, "bytes", "the file index's bytes per entry on disk",
        perEntry, "bytes", String.format("MEMORY USAGE ... SAMPLES 0 of the group's sorted set: %,d bytes for %,d"
            + " members (encoding %s, Redis %s), loaded by the Redis sink from the same build as the file; Redis's"
            + " used_memory grew by %,d bytes = %.1f bytes per member for all keys of the index", setBytes, members,
            encoding, version, table.redisUsedMemoryGrowth(), table.redisUsedMemoryGrowth() / (double) members)));
  }
}
