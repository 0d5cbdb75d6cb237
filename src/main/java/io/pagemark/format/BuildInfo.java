package io.pagemark.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a build directory's {@code build.json} says: where the index came from, which key attributes it stores, and
 * the counts that account for every item read. Written once when a build is published.
 *
 * @param buildId the build's id (also its directory name under {@code builds/})
 * @param createdAtMillis publish time, ms since the epoch
 * @param table the DynamoDB table
 * @param indexName the GSI whose order the index reproduces, or null for explicit attributes
 * @param groupAttribute the group key attribute (the GSI's partition key)
 * @param groupType its type: S, N or B
 * @param attributes the attributes stored in each record, the index sort key first
 * @param counts items read and where each went
 * @param groupBuilds for a build made by an incremental commit: the ids of the builds whose group files it holds
 *     (unchanged groups keep the file, and the header, an earlier build wrote); null for a backfill's build
 * @param commit for a build made by an incremental commit: what it applied; null for a backfill's build
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BuildInfo(
    int formatVersion,
    String buildId,
    long createdAtMillis,
    String table,
    String indexName,
    String groupAttribute,
    String groupType,
    List<Attribute> attributes,
    Counts counts,
    List<String> groupBuilds,
    Commit commit) {

  /** A backfill's build: it wrote every group file itself. */
  public BuildInfo(int formatVersion, String buildId, long createdAtMillis, String table, String indexName,
      String groupAttribute, String groupType, List<Attribute> attributes, Counts counts) {
    this(formatVersion, buildId, createdAtMillis, table, indexName, groupAttribute, groupType, attributes, counts,
        null, null);
  }

  /** Whether a group file written by build {@code id} belongs to this build. */
  public boolean holdsFilesOf(String id) {
    return buildId.equals(id) || (groupBuilds != null && groupBuilds.contains(id));
  }

  /**
   * What an incremental commit applied to its base build.
   *
   * @param baseBuild the build the commit started from
   * @param horizonMicros changes created before this time (microseconds) count as already in the index
   * @param segments WAL segments applied (and then discarded)
   * @param changes changes read from them
   * @param applied changes that were newer than what the index held
   * @param stale changes that were not (duplicates, replays, late records)
   * @param groupsRewritten group files written anew
   * @param groupsLinked group files carried over unchanged (hard links)
   * @param lagMillisP50 median time from a change's ApproximateCreationDateTime to this build's publication
   * @param lagMillisP95 95th percentile of the same
   */
  public record Commit(String baseBuild, long horizonMicros, long segments, long changes, long applied, long stale,
      long groupsRewritten, long groupsLinked, long lagMillisP50, long lagMillisP95) {}

  /** A stored key attribute, as JSON. */
  public record Attribute(String name, String type, List<String> roles) {
    private static final String INDEX_SORT_KEY = "indexSortKey";
    private static final String TABLE_PARTITION_KEY = "tablePartitionKey";
    private static final String TABLE_SORT_KEY = "tableSortKey";

    /** How build.json records a stored attribute: its roles as names. */
    public static Attribute of(KeyAttribute a) {
      List<String> roles = new java.util.ArrayList<>();
      if ((a.roles() & KeyAttribute.INDEX_SORT_KEY) != 0) {
        roles.add(INDEX_SORT_KEY);
      }
      if ((a.roles() & KeyAttribute.TABLE_PARTITION_KEY) != 0) {
        roles.add(TABLE_PARTITION_KEY);
      }
      if ((a.roles() & KeyAttribute.TABLE_SORT_KEY) != 0) {
        roles.add(TABLE_SORT_KEY);
      }
      return new Attribute(a.name(), a.type().name(), roles);
    }

    /** The stored attribute this entry of build.json describes. */
    public KeyAttribute toKeyAttribute() {
      int bits = (roles.contains(INDEX_SORT_KEY) ? KeyAttribute.INDEX_SORT_KEY : 0)
          | (roles.contains(TABLE_PARTITION_KEY) ? KeyAttribute.TABLE_PARTITION_KEY : 0)
          | (roles.contains(TABLE_SORT_KEY) ? KeyAttribute.TABLE_SORT_KEY : 0);
      return new KeyAttribute(name, io.pagemark.key.KeyType.fromDynamoName(type), bits);
    }
  }

  /**
   * Every item scanned is counted once in exactly one of: indexed {@code entries}, skipped because the index would
   * not hold it ({@code skippedNoGroupKey}, {@code skippedNoSortKey}), or sent to the dead-letter output.
   */
  public record Counts(
      long itemsScanned,
      long entries,
      long groups,
      long skippedNoGroupKey,
      long skippedNoSortKey,
      long deadLetters,
      long tieRuns,
      long tieRunsUnresolved) implements java.io.Serializable {}

  static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public static BuildInfo read(Path file) throws IOException {
    try {
      return JSON.readValue(file.toFile(), BuildInfo.class);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IndexFormatException(file, "not a readable build.json (" + e.getOriginalMessage() + ")");
    }
  }

  /** A build.json read from elsewhere than a local file; {@code where} names it in errors. */
  public static BuildInfo parse(String where, byte[] json) throws IOException {
    try {
      return JSON.readValue(json, BuildInfo.class);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IndexFormatException(where, "not a readable build.json (" + e.getOriginalMessage() + ")");
    }
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
