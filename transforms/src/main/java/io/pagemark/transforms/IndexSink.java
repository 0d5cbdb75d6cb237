package io.pagemark.transforms;

import io.pagemark.transforms.order.OrderedPart;
import java.io.Serializable;
import java.util.Optional;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/**
 * A store an index build is written to: files (local or any Beam file system), Redis sorted sets, and the stores to
 * come. {@link BuildIndex} orders every group once and hands the same {@link OrderedPart}s to each of its sinks; a
 * sink writes them and publishes the build atomically for its readers (a reader sees the old build or the new one,
 * never a mix), then emits one {@link Published}. Each sink lives in its own package under
 * {@code io.pagemark.transforms.sink}, beside the reader of the same store in {@code io.pagemark.lookup}; adding one
 * touches no other.
 *
 * <p>Implementations are immutable and serializable; {@link #write} may be applied once per pipeline.
 */
public interface IndexSink extends Serializable {
  /** What the sink writes to, for step names and messages: {@code files at /data/index}, {@code Redis at ...}. */
  String describe();

  /**
   * Checks the configuration before the pipeline runs.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  default void validate() {}

  /**
   * Where this sink keeps a build's dead letters, if it keeps them beside the build (a file index does); empty when
   * the backfill must put them elsewhere.
   */
  default Optional<String> deadLetterDirectory(String buildId) {
    return Optional.empty();
  }

  /** The transform that writes one build's ordered parts and publishes it; it emits one {@link Published}. */
  PTransform<PCollection<OrderedPart>, PCollection<Published>> write(BuildContext build);
}
