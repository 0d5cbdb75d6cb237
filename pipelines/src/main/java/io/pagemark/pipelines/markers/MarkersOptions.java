package io.pagemark.pipelines.markers;

import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.Validation;

/** Options of {@code pagemark markers build}; every Beam option (runner, parallelism, ...) is accepted as well. */
public interface MarkersOptions extends AwsOptions {
  @Description("DynamoDB table whose items get the page markers.")
  @Validation.Required
  String getTable();

  void setTable(String value);

  @Description("Global secondary index whose pages to number: its partition key is the group key, its sort key the"
      + " order.")
  @Validation.Required
  String getGsi();

  void setGsi(String value);

  @Description("Items a page: every this-many-th item of a group carries a marker. Readers get pages of this size"
      + " only.")
  @Validation.Required
  Integer getPageSize();

  void setPageSize(Integer value);

  @Description("The sparse GSI on (group key, marker attribute) that holds only page ends (default: GSI-markers).")
  String getMarkerIndex();

  void setMarkerIndex(String value);

  @Description("The marker attribute (a number); its tie attribute is MARKER_tie.")
  @Default.String("pm_page")
  String getMarkerAttribute();

  void setMarkerAttribute(String value);

  @Description("Table of the configuration and of each group's STATS item (default: TABLE.MARKER_INDEX).")
  String getStatsTable();

  void setStatsTable(String value);

  @Description("Keep the configuration and STATS items in the table itself, under partition keys that begin with"
      + " PREFIX# (the table's partition key must be a string, and none of your items' keys may begin so); read"
      + " them with dynamodb://TABLE/MARKER_INDEX?statsKey=PREFIX. Not with --statsTable.")
  String getStatsKey();

  void setStatsKey(String value);

  @Description("Create the marker index with UpdateTable when the table lacks it (DynamoDB fills it from the"
      + " whole table).")
  @Default.Boolean(false)
  boolean isCreateIndex();

  void setCreateIndex(boolean value);

  @Description("DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local.")
  String getDynamoEndpoint();

  void setDynamoEndpoint(String value);

  @Description("Number of parallel Scan segments.")
  @Default.Integer(8)
  int getSegments();

  void setSegments(int value);

  @Description("Most entries one worker orders at once (a run of equal sort keys is never split).")
  @Default.Long(200_000)
  long getMaxPartEntries();

  void setMaxPartEntries(long value);

  @Description("Where items the build cannot place go: DIR/BUILD_ID/part-N.jsonl.")
  @Default.String("pagemark-deadletters")
  String getDeadLetterOutput();

  void setDeadLetterOutput(String value);

  @Description("Seconds between progress lines on stderr (0: none).")
  @Default.Integer(5)
  int getProgressSeconds();

  void setProgressSeconds(int value);
}
