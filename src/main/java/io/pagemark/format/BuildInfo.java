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
    Counts counts) {

  /** A stored key attribute, as JSON. */
  public record Attribute(String name, String type, List<String> roles) {}

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

  public String toJson() {
    try {
      return JSON.writeValueAsString(this) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
