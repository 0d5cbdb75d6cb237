package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.backfill.RedisOptions;

import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.Validation;

/** Options of {@code pagemark stream}; every Beam option is accepted as well. */
public interface StreamOptions extends AwsOptions, RedisOptions {
  @Description("Kinesis data stream that carries the table's changes (Kinesis Data Streams for DynamoDB).")
  @Validation.Required
  String getStream();

  void setStream(String value);

  @Description("Kinesis endpoint URL, e.g. http://127.0.0.1:4567 for kinesalite.")
  String getKinesisEndpoint();

  void setKinesisEndpoint(String value);

  @Description("Index root directory; changes are appended to its wal/ folder. Give it, --redis, or both.")
  String getOutput();

  void setOutput(String value);

  @Description("Page markers to keep current: dynamodb://TABLE/MARKER_INDEX[?stats=STATS_TABLE | ?statsKey=PREFIX]"
      + " (built by pagemark markers build; endpoint and region are --dynamoEndpoint's and --awsRegion's).")
  String getMarkers();

  void setMarkers(String value);

  @Description("DynamoDB table whose changes the stream carries.")
  @Validation.Required
  String getTable();

  void setTable(String value);

  @Description("Global secondary index of the table that the index numbers pages of (read with DescribeTable).")
  @Validation.Required
  String getGsi();

  void setGsi(String value);

  @Description("DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local.")
  String getDynamoEndpoint();

  void setDynamoEndpoint(String value);

  @Description(
      "Where to start reading: resume (from the WAL's and Redis's per-shard positions, else the oldest record),"
          + " trim_horizon, latest, or an ISO-8601 instant.")
  @Default.String("resume")
  String getFrom();

  void setFrom(String value);

  @Description("Milliseconds a group's changes wait, at most, before they are appended to the WAL.")
  @Default.Long(1000)
  long getFlushMillis();

  void setFlushMillis(long value);

  @Description(
      "Seconds without records after which a shard's watermark advances with the clock (Beam's Kinesis arrival-time"
          + " policy); it does not affect where a restarted stream resumes.")
  @Default.Integer(120)
  int getWatermarkIdleSeconds();

  void setWatermarkIdleSeconds(int value);

  @Description(
      "With --redis: learn DynamoDB's order of the runs of equal sort keys that changes touch (one Query each way);"
          + " false marks them unknown (lookups step around them).")
  @Default.Boolean(true)
  boolean getResolveTies();

  void setResolveTies(boolean value);

  @Description("With --redis: hours the ledger remembers an item's last change; older changes are stale.")
  @Default.Integer(24)
  int getDedupeHours();

  void setDedupeHours(int value);

  @Description(
      "On Flink: seconds between checkpoints of the job's state (Kinesis shard positions, changes waiting to be"
          + " written), from which Flink restarts the job when a TaskManager is lost (0: no checkpoints). Flink's own"
          + " --checkpointingInterval (ms), --stateBackend and --stateBackendStoragePath take precedence.")
  @Default.Integer(10)
  int getCheckpointSeconds();

  void setCheckpointSeconds(int value);

  @Description("Seconds between progress lines on stderr (0: none).")
  @Default.Integer(5)
  int getProgressSeconds();

  void setProgressSeconds(int value);
}
