package io.pagemark.pipelines.relay;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.transforms.source.KinesisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamResponse;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamSpecification;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * Plays the part of "Kinesis Data Streams for DynamoDB" for a DynamoDB that lacks it (DynamoDB Local): reads the
 * table's own DynamoDB Stream and puts every record into a Kinesis stream, as JSON in the format DynamoDB uses there
 * ({@code eventName}, {@code tableName}, {@code dynamodb.Keys}, {@code NewImage}, {@code OldImage},
 * {@code ApproximateCreationDateTime}, ...). The partition key is a hash of the item's key, so that an item's records
 * stay in one shard, in order; a batch never holds two records of one item, and failed puts are retried before the
 * next batch.
 *
 * <p>DynamoDB Local stamps stream records to the minute, so the relay stamps {@code ApproximateCreationDateTime} with
 * its own clock when it reads the record, in microseconds ({@code ApproximateCreationDateTimePrecision:
 * MICROSECOND}), strictly increasing per shard. For tests it can also put a fraction of the records twice, the copy
 * a random number of records later (see {@link Options#duplicates}).
 */
public final class Relay implements AutoCloseable {
  private static final int MAX_BATCH = 500;
  private static final long IDLE_POLL_MILLIS = 50;
  private static final long DESCRIBE_EVERY_MILLIS = 2_000;

  /**
   * How the relay runs.
   *
   * @param duplicates fraction of records put a second time (0 to 1), for tests of idempotence
   * @param maxDuplicateDelay the most records a duplicate may trail its original by
   * @param seed seed of the duplicate choice
   */
  public record Options(double duplicates, int maxDuplicateDelay, long seed) {
    public static final Options PLAIN = new Options(0, 0, 0);

    public Options {
      if (duplicates < 0 || duplicates > 1) {
        throw new IllegalArgumentException("duplicates must be a fraction between 0 and 1, not " + duplicates);
      }
    }
  }

  private final DynamoConnection dynamo;
  private final String table;
  private final KinesisConnection kinesis;
  private final String stream;
  private final Options options;
  private final Random random;
  private final Thread thread;
  private final AtomicLong read = new AtomicLong();
  private final AtomicLong put = new AtomicLong();
  private final AtomicLong duplicated = new AtomicLong();
  private final Object idleLock = new Object();
  private long idleRounds;
  private volatile boolean stopping;
  private volatile RuntimeException failure;

  private final Map<String, ShardState> shards = new TreeMap<>();
  private final List<Pending> duplicatesDue = new ArrayList<>();
  private String streamArn;

  private static final class ShardState {
    final String parent;
    String iterator;
    boolean finished;
    long lastMicros;

    ShardState(String parent) {
      this.parent = parent;
    }
  }

  /** A record waiting to be put again, after {@code countdown} more records. */
  private static final class Pending {
    final PutRecordsRequestEntry entry;
    int countdown;

    Pending(PutRecordsRequestEntry entry, int countdown) {
      this.entry = entry;
      this.countdown = countdown;
    }
  }

  private Relay(DynamoConnection dynamo, String table, KinesisConnection kinesis, String stream, Options options) {
    this.dynamo = dynamo;
    this.table = table;
    this.kinesis = kinesis;
    this.stream = stream;
    this.options = options;
    this.random = new Random(options.seed());
    this.thread = new Thread(this::run, "relay-" + table);
    this.thread.setDaemon(true);
  }

  /**
   * Enables the table's stream (new and old images) when it has none, then relays it from its oldest record in a
   * thread of its own until closed.
   */
  public static Relay start(
      DynamoConnection dynamo, String table, KinesisConnection kinesis, String stream, Options options) {
    Relay r = new Relay(dynamo, table, kinesis, stream, options);
    try (DynamoDbClient c = dynamo.client()) {
      r.streamArn = enableStream(c, table);
    }
    r.thread.start();
    return r;
  }

  /**
   * The ARN of the table's stream, enabling one with new and old images when there is none. Throws
   * {@link IllegalStateException} when the table's stream carries less than both images.
   */
  public static String enableStream(DynamoDbClient c, String table) {
    TableDescription t = c.describeTable(b -> b.tableName(table)).table();
    StreamSpecification s = t.streamSpecification();
    if (s == null || !Boolean.TRUE.equals(s.streamEnabled())) {
      c.updateTable(b -> b.tableName(table).streamSpecification(
          x -> x.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
      t = c.describeTable(b -> b.tableName(table)).table();
    } else if (s.streamViewType() != StreamViewType.NEW_AND_OLD_IMAGES) {
      throw new IllegalStateException("table " + table + " has a stream of " + s.streamViewTypeAsString()
          + "; the index needs NEW_AND_OLD_IMAGES (disable the stream and enable it with both images)");
    }
    return t.latestStreamArn();
  }

  /** Records read from the DynamoDB stream. */
  public long read() {
    return read.get();
  }

  /** Records put into Kinesis, duplicates included. */
  public long put() {
    return put.get();
  }

  /** Duplicates put. */
  public long duplicated() {
    return duplicated.get();
  }

  /**
   * Waits until every record the table's stream held when this was called has been put into Kinesis, its duplicate
   * included: until a whole round over the shards found nothing new and no duplicate was pending.
   */
  public void awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idleLock) {
      long target = idleRounds + 2; // the round running now may have started before the caller's last write
      while (idleRounds < target) {
        checkFailure();
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("the relay did not catch up within " + timeout.toSeconds() + " s ("
              + read.get() + " records read, " + put.get() + " put)");
        }
        idleLock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
    checkFailure();
  }

  /** Throws {@link IllegalStateException} when the relay thread failed (with its cause). */
  public void checkHealthy() {
    checkFailure();
  }

  private void checkFailure() {
    if (failure != null) {
      throw new IllegalStateException("the relay failed: " + failure.getMessage(), failure);
    }
  }

  private void run() {
    try (DynamoDbStreamsClient streams = dynamo.streamsClient();
        KinesisClient k = kinesis.client()) {
      long lastDescribe = 0;
      while (!stopping) {
        if (System.nanoTime() - lastDescribe > TimeUnit.MILLISECONDS.toNanos(DESCRIBE_EVERY_MILLIS)) {
          describe(streams);
          lastDescribe = System.nanoTime();
        }
        List<PutRecordsRequestEntry> batch = new ArrayList<>();
        for (Map.Entry<String, ShardState> e : shards.entrySet()) {
          ShardState s = e.getValue();
          if (s.finished || (s.parent != null && shards.containsKey(s.parent) && !shards.get(s.parent).finished)) {
            continue; // a child shard waits until its parent is read to the end: per-item order
          }
          if (s.iterator == null) {
            s.iterator = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(e.getKey())
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
          }
          String it = s.iterator;
          GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(it).limit(1000));
          for (Record rec : r.records()) {
            batch.add(entry(rec, s));
          }
          read.addAndGet(r.records().size());
          s.iterator = r.nextShardIterator();
          s.finished = s.iterator == null;
        }
        boolean idle = batch.isEmpty();
        send(k, batch); // when idle, this lets the pending duplicates out: a caught-up relay has put everything
        if (idle) {
          synchronized (idleLock) {
            idleRounds++;
            idleLock.notifyAll();
          }
          Thread.sleep(IDLE_POLL_MILLIS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (stopping) {
        return; // an interrupted request while closing
      }
      failure = e;
      synchronized (idleLock) {
        idleLock.notifyAll();
      }
    }
  }

  private void describe(DynamoDbStreamsClient streams) {
    String start = null;
    do {
      String from = start;
      DescribeStreamResponse d =
          streams.describeStream(b -> b.streamArn(streamArn).exclusiveStartShardId(from));
      for (Shard s : d.streamDescription().shards()) {
        shards.computeIfAbsent(s.shardId(), id -> new ShardState(s.parentShardId()));
      }
      start = d.streamDescription().lastEvaluatedShardId();
    } while (start != null);
  }

  /** The record in the Kinesis format, stamped with the relay's clock (strictly increasing per shard). */
  private PutRecordsRequestEntry entry(Record rec, ShardState shard) {
    long micros = KinesisChangeRecords.stamp(rec, shard.lastMicros);
    shard.lastMicros = micros;
    return PutRecordsRequestEntry.builder()
        .partitionKey(KinesisChangeRecords.partitionKey(table, rec.dynamodb().keys()))
        .data(SdkBytes.fromString(KinesisChangeRecords.json(rec, table, micros), StandardCharsets.UTF_8))
        .build();
  }

  /**
   * Puts the records in order, with the duplicates that fall due among them: batches of at most 500 that never hold
   * two records of one item, each retried until every record is in before the next batch goes.
   */
  private void send(KinesisClient k, List<PutRecordsRequestEntry> records) throws InterruptedException {
    List<PutRecordsRequestEntry> ordered = new ArrayList<>();
    for (PutRecordsRequestEntry e : records) {
      ordered.add(e);
      for (Iterator<Pending> it = duplicatesDue.iterator(); it.hasNext(); ) {
        Pending p = it.next();
        if (--p.countdown <= 0) {
          ordered.add(p.entry);
          duplicated.incrementAndGet();
          it.remove();
        }
      }
      if (options.duplicates() > 0 && random.nextDouble() < options.duplicates()) {
        duplicatesDue.add(new Pending(e, random.nextInt(options.maxDuplicateDelay() + 1)));
      }
    }
    if (records.isEmpty()) {
      for (Pending p : duplicatesDue) {
        ordered.add(p.entry);
        duplicated.incrementAndGet();
      }
      duplicatesDue.clear();
    }
    List<PutRecordsRequestEntry> batch = new ArrayList<>();
    Set<String> items = new HashSet<>();
    for (PutRecordsRequestEntry e : ordered) {
      if (batch.size() == MAX_BATCH || !items.add(e.partitionKey())) {
        putAll(k, batch);
        batch.clear();
        items.clear();
        items.add(e.partitionKey());
      }
      batch.add(e);
    }
    putAll(k, batch);
  }

  private void putAll(KinesisClient k, List<PutRecordsRequestEntry> batch) throws InterruptedException {
    List<PutRecordsRequestEntry> left = batch;
    for (int attempt = 0; !left.isEmpty(); attempt++) {
      if (attempt > 20) {
        throw new IllegalStateException("Kinesis kept rejecting records after 20 attempts");
      }
      List<PutRecordsRequestEntry> send = left;
      PutRecordsResponse r = k.putRecords(b -> b.streamName(stream).records(send));
      List<PutRecordsRequestEntry> failed = new ArrayList<>();
      List<PutRecordsResultEntry> results = r.records();
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i).errorCode() != null) {
          failed.add(send.get(i));
        }
      }
      put.addAndGet(send.size() - failed.size());
      left = failed;
      if (!left.isEmpty()) {
        Thread.sleep(Math.min(1000, 20L << Math.min(attempt, 6)));
      }
    }
  }

  /** Stops relaying (records read but not yet put are dropped; the stream keeps them). */
  @Override
  public void close() {
    stopping = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A one-line summary of what was relayed. */
  public String summary() {
    return String.format("%,d records read from the stream of %s, %,d put into %s (%,d duplicates)",
        read.get(), table, put.get(), stream, duplicated.get());
  }
}
