package io.pagemark.pipelines.catchup;

import io.pagemark.transforms.sink.file.S3EndpointOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.Validation;

/** Options of {@code pagemark catch-up}; every Beam option is accepted as well. */
public interface CatchUpOptions extends S3EndpointOptions {
  @Description("DynamoDB table to catch up from.")
  @Validation.Required
  String getTable();

  void setTable(String value);

  @Description("Global secondary index of the table that the index numbers pages of (read with DescribeTable).")
  @Validation.Required
  String getGsi();

  void setGsi(String value);

  @Description("The index: a directory (its WAL inside it), s3://BUCKET/PREFIX or jdbc:postgresql://... (give --wal"
      + " too).")
  @Validation.Required
  String getIndex();

  void setIndex(String value);

  @Description("With an s3:// or PostgreSQL --index: the local directory that holds its WAL (as pagemark stream"
      + " --output and pagemark commit --wal).")
  String getWal();

  void setWal(String value);

  @Description("Global secondary index of the table whose partition key is the time bucket.")
  @Validation.Required
  String getBucketIndex();

  void setBucketIndex(String value);

  @Description("The bucket attribute (default: the partition key of --bucketIndex; when given, it must be).")
  String getBucketAttribute();

  void setBucketAttribute(String value);

  @Description("Minutes per bucket, a divisor of 1440; buckets start at midnight UTC.")
  @Default.Integer(15)
  int getBucketMinutes();

  void setBucketMinutes(int value);

  @Description("How a bucket's start is written in the bucket attribute: a java.time pattern, in UTC.")
  @Default.String("yyyyMMddHHmm")
  String getBucketFormat();

  void setBucketFormat(String value);

  @Description("Read the buckets from this ISO-8601 instant instead of the stored watermark (needed on the first"
      + " run: the start of the backfill that built the index, say).")
  String getSince();

  void setSince(String value);

  @Description("Minutes of buckets before the watermark read again each run, to catch items written late into an"
      + " older bucket.")
  @Default.Integer(30)
  int getOverlapMinutes();

  void setOverlapMinutes(int value);

  @Description("DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local.")
  String getDynamoEndpoint();

  void setDynamoEndpoint(String value);

  @Description("After the catch-up, commit the WAL into the index (as pagemark commit does).")
  @Default.Boolean(false)
  boolean getCommit();

  void setCommit(boolean value);
}
