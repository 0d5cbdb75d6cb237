package io.pagemark.pipelines.backfill;

import io.pagemark.transforms.sink.file.S3EndpointOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.Validation;

/** Options of {@code pagemark backfill}; every Beam option (runner, parallelism, ...) is accepted as well. */
public interface BackfillOptions extends S3EndpointOptions, RedisOptions, JdbcOptions {
  @Description("DynamoDB table to index.")
  @Validation.Required
  String getTable();

  void setTable(String value);

  @Description(
      "Global secondary index whose pages to number: its partition key is the group key, its sort key the order."
          + " Read with DescribeTable.")
  String getGsi();

  void setGsi(String value);

  @Description("Group key attribute, instead of --gsi (with --sortAttribute).")
  String getGroupAttribute();

  void setGroupAttribute(String value);

  @Description("Sort key attribute, instead of --gsi (with --groupAttribute).")
  String getSortAttribute();

  void setSortAttribute(String value);

  @Description("Type (S, N or B) of --groupAttribute when the table does not define it.")
  @Default.String("S")
  String getGroupAttributeType();

  void setGroupAttributeType(String value);

  @Description("Type (S, N or B) of --sortAttribute when the table does not define it.")
  @Default.String("S")
  String getSortAttributeType();

  void setSortAttributeType(String value);

  @Description("Index root: a directory, or s3://BUCKET/PREFIX (see --s3Endpoint); each build is published under it"
      + " atomically. Optional with --redis or --jdbcUrl.")
  String getOutput();

  void setOutput(String value);

  @Description(
      "Where dead letters go without --output: DIR/BUILD_ID/part-N.jsonl (default: pagemark-deadletters in the"
          + " working directory).")
  @Default.String("pagemark-deadletters")
  String getDeadLetterOutput();

  void setDeadLetterOutput(String value);

  @Description("DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local.")
  String getDynamoEndpoint();

  void setDynamoEndpoint(String value);

  @Description("Number of parallel Scan segments.")
  @Default.Integer(8)
  int getSegments();

  void setSegments(int value);

  @Description("Published builds to keep (the newest ones; the current build is never removed).")
  @Default.Integer(3)
  int getKeepBuilds();

  void setKeepBuilds(int value);

  @Description(
      "Most entries one worker orders at once; bigger groups are split into parts at sampled sort keys (a run of"
          + " equal sort keys is never split).")
  @Default.Long(200_000)
  long getMaxPartEntries();

  void setMaxPartEntries(long value);

  @Description("Id of the build to publish (default: UTC time plus a random suffix).")
  String getBuildId();

  void setBuildId(String value);

  @Description("Seconds between progress lines on stderr (0: none).")
  @Default.Integer(5)
  int getProgressSeconds();

  void setProgressSeconds(int value);
}
