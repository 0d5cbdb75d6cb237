package io.pagemark.commit.redis;

import io.pagemark.change.IndexChange;
import io.pagemark.commit.IndexCommit;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.commit.redis.RedisSession;
import io.pagemark.order.TieOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Applies a group's index changes to its live sorted set in a Redis index, idempotently: each attempt WATCHes the set
 * and the group's ledger ({@code P v:GROUP}), reads the ledger entries of the batch's items and the runs of equal sort
 * keys the changes name ({@code ZRANGEBYLEX} on the member prefix), plans the new members ({@link RedisGroupPlan}),
 * and writes members, ledger and group stamp in one script inside MULTI/EXEC; a concurrent write (another applier,
 * or a backfill RENAMEing a new set over the live one) makes EXEC fail, and the attempt starts over.
 *
 * <p>Catch-up: the ledger records the group stamp its entries were applied to. When the group's stamp differs (a
 * backfill published the group, or removed it), the items the ledger changed since the backfill began (its build id
 * holds its start time, less {@link IndexCommit#BACKFILL_MARGIN_MICROS}) are put back at their ledger entries,
 * wherever the backfill's scan left them (the whole set is read once). {@link #catchUp} does this for every group with
 * a ledger once a new build has finished.
 *
 * <p>Not thread-safe: one per worker.
 */
public final class RedisChangeApplier implements AutoCloseable {
  static final byte[] STAMP = "stamp".getBytes(StandardCharsets.US_ASCII);
  static final byte[] GROUP = "group".getBytes(StandardCharsets.US_ASCII);
  static final byte[] PRUNED = "pruned".getBytes(StandardCharsets.US_ASCII);
  static final byte[] CAUGHT_UP = "caughtUpBuild".getBytes(StandardCharsets.US_ASCII);
  static final byte[] META_BUILD = "buildId".getBytes(StandardCharsets.US_ASCII);
  /** The stamp of a group the stream creates before any backfill finished. */
  static final String NO_BUILD = "stream";
  private static final int MAX_ATTEMPTS = 1_000;
  private static final int READ_CHUNK = 10_000;
  private static final long PRUNE_EVERY_MILLIS = TimeUnit.HOURS.toMillis(1);
  private static final DateTimeFormatter BUILD_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

  /**
   * KEYS: live set, ledger, group stamp (one hash slot). ARGV: the stamp read (empty: none), stamp for a new group,
   * stored group key, number of members to remove, to add, ledger pairs; then those. Returns -1 when the stamp
   * changed since it was read, else 1.
   */
  static final byte[] WRITE =
      ("local cur = redis.call('GET', KEYS[3])\n"
              + "if (cur or '') ~= ARGV[1] then return -1 end\n"
              + "local nrem, nadd, nled = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])\n"
              + "local i = 7\n"
              + "for k = 1, nrem do redis.call('ZREM', KEYS[1], ARGV[i]); i = i + 1 end\n"
              + "for k = 1, nadd do redis.call('ZADD', KEYS[1], 0, ARGV[i]); i = i + 1 end\n"
              + "for k = 1, nled do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end\n"
              + "local stamp = cur or ''\n"
              + "if redis.call('EXISTS', KEYS[1]) == 0 then\n"
              + "  if cur then redis.call('DEL', KEYS[3]) end\n"
              + "  stamp = ''\n"
              + "elseif not cur then\n"
              + "  redis.call('SET', KEYS[3], ARGV[2]); stamp = ARGV[2]\n"
              + "end\n"
              + "redis.call('HSET', KEYS[2], 'stamp', stamp, 'group', ARGV[3])\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  /** KEYS: ledger. ARGV: now, then field/value pairs to delete if unchanged. */
  static final byte[] PRUNE =
      ("for i = 2, #ARGV, 2 do\n"
              + "  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end\n"
              + "end\n"
              + "redis.call('HSET', KEYS[1], 'pruned', ARGV[1])\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  /** What one call did. */
  public record Result(long applied, long stale, long replayed, long runsRebuilt, long attempts,
      List<Long> appliedCreationMicros) {}

  /** Tells the current time; tests set it. */
  interface Clock {
    long millis();
  }

  private final RedisSession redis;
  private final RedisLayout layout;
  private final KeySchema schema;
  private final TieOrder ties;
  private final long dedupeMillis;
  private final Clock clock;

  public RedisChangeApplier(RedisSession redis, RedisLayout layout, KeySchema schema, TieOrder ties,
      long dedupeMillis) {
    this(redis, layout, schema, ties, dedupeMillis, System::currentTimeMillis);
  }

  RedisChangeApplier(RedisSession redis, RedisLayout layout, KeySchema schema, TieOrder ties, long dedupeMillis,
      Clock clock) {
    this.redis = redis;
    this.layout = layout;
    this.schema = schema;
    this.ties = ties;
    this.dedupeMillis = dedupeMillis;
    this.clock = clock;
  }

  /** Applies one batch of one group's changes (empty: only catches the group up if a backfill republished it). */
  public Result apply(KeyValue group, List<IndexChange> changes) {
    for (IndexChange c : changes) {
      if (!c.group().equals(group)) {
        throw new IllegalArgumentException("a change of group " + c.group() + " in a batch of group " + group);
      }
    }
    byte[] field = RedisLayout.groupBytes(group);
    byte[] live = layout.liveKey(field);
    for (int attempt = 1; ; attempt++) {
      int n = attempt;
      // The meta hash lives in another hash slot than the group: read before the group's transaction. A build that
      // finishes meanwhile only changes the stamp a group the stream creates gets (the last build, or the one before).
      String build = currentBuild();
      Result r = redis.call("apply " + changes.size() + " changes to group " + group, live,
          j -> attempt(j, group, field, changes, n, build));
      if (r != null) {
        prune(field);
        return r;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new IllegalStateException("group " + group + " changed under " + MAX_ATTEMPTS
            + " attempts to apply changes to it in a row; is something else writing to " + layout + "?");
      }
    }
  }

  /** One optimistic attempt; null when a concurrent write made it void. */
  private Result attempt(Jedis j, KeyValue group, byte[] field, List<IndexChange> changes, int attempt,
      String build) {
    byte[] live = layout.liveKey(field);
    byte[] ledger = layout.ledgerKey(field);
    byte[] stampKey = layout.stampKey(field);
    j.watch(live, ledger, stampKey);
    byte[] stamp = j.get(stampKey);
    byte[] appliedTo = j.hget(ledger, STAMP);
    List<List<KeyValue>> items = new ArrayList<>();
    for (IndexChange c : changes) {
      if (!items.contains(c.itemKey())) {
        items.add(c.itemKey());
      }
    }
    Map<List<KeyValue>, RedisLedgerEntry> known = new HashMap<>();
    if (!items.isEmpty()) {
      byte[][] fields = items.stream().map(RedisLedgerEntry::field).toArray(byte[][]::new);
      List<byte[]> values = j.hmget(ledger, fields);
      for (int i = 0; i < items.size(); i++) {
        if (values.get(i) != null) {
          known.put(items.get(i), RedisLedgerEntry.decode(values.get(i)));
        }
      }
    }
    RedisGroupPlan plan = new RedisGroupPlan(schema, group);
    boolean republished = appliedTo != null && !Arrays.equals(appliedTo, stamp == null ? new byte[0] : stamp);
    List<RedisGroupPlan.Member> whole = null;
    if (republished) {
      plan.replay(allEntries(j, ledger), backfillStartMicros(build, stamp) - IndexCommit.BACKFILL_MARGIN_MICROS);
    }
    plan.decide(changes, known, (clock.millis() - dedupeMillis) * 1000);
    Map<KeyValue, List<RedisGroupPlan.Member>> runs = new HashMap<>();
    if (republished && !plan.itemsToFind().isEmpty()) {
      whole = readAll(j, live, group);
      plan.touchRunsHoldingItems(whole);
      for (RedisGroupPlan.Member m : whole) {
        runs.computeIfAbsent(m.record().sortKey(), k -> new ArrayList<>()).add(m);
      }
    } else {
      for (KeyValue sortKey : plan.touchedSortKeys()) {
        runs.put(sortKey, readRun(j, live, group, sortKey));
      }
    }
    plan.rebuild(runs, ties);
    if (!plan.writes() && !republished) {
      j.unwatch();
      return new Result(0, plan.stale(), 0, 0, attempt, List.of());
    }
    List<byte[]> args = new ArrayList<>();
    args.add(stamp == null ? new byte[0] : stamp);
    args.add(RedisLayout.stamp(build, group));
    args.add(group.bytes());
    args.add(ascii(plan.removes().size()));
    args.add(ascii(plan.adds().size()));
    args.add(ascii(plan.ledgerUpdates().size()));
    args.addAll(plan.removes());
    args.addAll(plan.adds());
    plan.ledgerUpdates().forEach((item, entry) -> {
      args.add(RedisLedgerEntry.field(item));
      args.add(entry.encode());
    });
    Transaction t = j.multi();
    t.eval(WRITE, List.of(live, ledger, stampKey), args);
    List<Object> done = t.exec();
    if (done == null || done.isEmpty() || !Long.valueOf(1).equals(done.get(0))) {
      if (done != null && !done.isEmpty() && done.get(0) instanceof RuntimeException e) {
        throw e;
      }
      return null; // the set, the ledger or the group's stamp changed meanwhile: start over
    }
    return new Result(plan.applied(), plan.stale(), plan.replayed(), plan.runsRebuilt(), attempt,
        plan.appliedCreationMicros());
  }

  /** The members of the run of equal sort keys {@code sortKey}: ZRANGEBYLEX from the member prefix to its end. */
  private List<RedisGroupPlan.Member> readRun(Jedis j, byte[] live, KeyValue group, KeyValue sortKey) {
    byte[] prefix = memberPrefix(sortKey);
    List<byte[]> members = j.zrangeByLex(live, lexInclusive(prefix), lexExclusive(runEnd(prefix)));
    List<RedisGroupPlan.Member> run = new ArrayList<>(members.size());
    for (byte[] m : members) {
      run.add(member(m, group));
    }
    return run;
  }

  private List<RedisGroupPlan.Member> readAll(Jedis j, byte[] live, KeyValue group) {
    List<RedisGroupPlan.Member> all = new ArrayList<>();
    for (long from = 0; ; from += READ_CHUNK) {
      List<byte[]> chunk = j.zrange(live, from, from + READ_CHUNK - 1);
      for (byte[] m : chunk) {
        all.add(member(m, group));
      }
      if (chunk.size() < READ_CHUNK) {
        return all;
      }
    }
  }

  private RedisGroupPlan.Member member(byte[] m, KeyValue group) {
    try {
      return new RedisGroupPlan.Member(m, SortedSetMember.decode(m, schema.storedAttributes()));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("group " + group + " in " + layout + " holds a member that is not a pagemark"
          + " member (" + e.getMessage() + "); is something else writing to it?", e);
    }
  }

  private Map<List<KeyValue>, RedisLedgerEntry> allEntries(Jedis j, byte[] ledger) {
    Map<List<KeyValue>, RedisLedgerEntry> all = new HashMap<>();
    j.hgetAll(ledger).forEach((f, v) -> {
      if (RedisLedgerEntry.isItemField(f)) {
        all.put(RedisLedgerEntry.itemOfField(f), RedisLedgerEntry.decode(v));
      }
    });
    return all;
  }

  /**
   * When the build that published the group (or, for a group it removed, the last finished build) began, in µs;
   * 0 (replay everything) when the build id does not tell.
   */
  private static long backfillStartMicros(String lastBuild, byte[] stamp) {
    String build = stamp != null ? RedisLayout.stampBuild(stamp) : lastBuild;
    return buildStartMillis(build) * 1000;
  }

  static long buildStartMillis(String buildId) {
    if (buildId.length() < 16) {
      return 0;
    }
    try {
      return LocalDateTime.parse(buildId.substring(0, 16), BUILD_TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
    } catch (DateTimeParseException e) {
      return 0;
    }
  }

  private String currentBuild() {
    byte[] meta = layout.metaKey();
    byte[] b = redis.call("read the last build", meta, j -> j.hget(meta, META_BUILD));
    return b == null ? NO_BUILD : new String(b, StandardCharsets.UTF_8);
  }

  /** Drops ledger entries older than the dedupe window, at most once an hour per group. */
  private void prune(byte[] field) {
    byte[] ledger = layout.ledgerKey(field);
    long now = clock.millis();
    byte[] last = redis.call("read the ledger's prune time", ledger, j -> j.hget(ledger, PRUNED));
    if (last != null && now - Long.parseLong(new String(last, StandardCharsets.US_ASCII)) < PRUNE_EVERY_MILLIS) {
      return;
    }
    long horizonMicros = (now - dedupeMillis) * 1000;
    List<byte[]> args = new ArrayList<>();
    args.add(ascii(now));
    redis.call("read the ledger", ledger, j -> j.hgetAll(ledger)).forEach((f, v) -> {
      if (RedisLedgerEntry.isItemField(f) && RedisLedgerEntry.decode(v).version().creationMicros() < horizonMicros) {
        args.add(f);
        args.add(v);
      }
    });
    redis.call("prune the ledger", ledger, j -> j.eval(PRUNE, List.of(ledger), args));
  }

  /**
   * Once a build newer than the last one caught up with has finished (its lease is gone), catches up every group
   * that has a ledger (see the class comment). Returns the groups whose sets changed, or -1 when there was nothing to
   * do.
   */
  public long catchUp() {
    byte[] meta = layout.metaKey();
    byte[] build = redis.call("read the last build", meta, j -> j.hget(meta, META_BUILD));
    if (build == null) {
      return -1;
    }
    String id = new String(build, StandardCharsets.UTF_8);
    byte[] stream = layout.streamKey();
    byte[] lease = layout.leaseKey(id);
    byte[] done = redis.call("read the stream's state", stream, j -> j.hget(stream, CAUGHT_UP));
    if (Arrays.equals(done, build) || redis.call("check the build's lease", lease, j -> j.exists(lease))) {
      return -1;
    }
    long changed = 0;
    ScanParams params = new ScanParams().match(layout.ledgerKeyPattern()).count(1_000);
    for (List<byte[]> keys : redis.onEachMaster("list the ledgers", j -> scanAll(j, params))) {
      for (byte[] key : keys) {
        byte[] stored = redis.call("read a ledger's group", key, j -> j.hget(key, GROUP));
        if (stored == null) {
          continue;
        }
        Result r = apply(KeyValue.of(groupType(), stored), List.of());
        changed += r.runsRebuilt() > 0 ? 1 : 0;
      }
    }
    redis.call("record the catch-up", stream, j -> j.hset(stream, CAUGHT_UP, build));
    return changed;
  }

  /** Every key of one node that matches {@code params} (SCAN to the end). */
  static List<byte[]> scanAll(Jedis j, ScanParams params) {
    List<byte[]> keys = new ArrayList<>();
    byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
    do {
      ScanResult<byte[]> page = j.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursorAsBytes();
    } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    return keys;
  }

  private KeyType groupType() {
    return schema.groupType();
  }

  /**
   * The member bytes every entry with this sort key starts with: the sort key's order bytes with every 0x00 written
   * as 0x00 0xFF, then 0x00 0x00 (docs/redis.md, "Redis index format").
   */
  static byte[] memberPrefix(KeyValue sortKey) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte b : sortKey.sortableBytes()) {
      out.write(b);
      if (b == 0) {
        out.write(0xFF);
      }
    }
    out.write(0);
    out.write(0);
    return out.toByteArray();
  }

  /** The smallest byte string above every string that starts with {@code prefix} (prefix ends with 0x00 0x00). */
  static byte[] runEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    end[end.length - 1] = 1;
    return end;
  }

  private static byte[] lexInclusive(byte[] b) {
    return concat(new byte[] {'['}, b);
  }

  private static byte[] lexExclusive(byte[] b) {
    return concat(new byte[] {'('}, b);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] ascii(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() {
    redis.close();
  }
}
