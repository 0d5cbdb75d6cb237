package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.order.IndexEntryCoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Builds an index of items a benchmark has just loaded into DynamoDB, from their keys (the entries a backfill's scan
 * would read, without scanning them back), with pagemark's {@link BuildIndex} on the DirectRunner.
 */
final class LoadedItemsBuild {
  private LoadedItemsBuild() {}

  /**
   * Runs {@code buildIndex} (its sinks and build id already set) over the keys of {@code items}; {@code what} names
   * them in the pipeline and in the error.
   *
   * @throws IllegalStateException if the pipeline does not end in state DONE
   */
  static void run(KeySchema schema, List<Map<String, AttributeValue>> items, BuildIndex buildIndex, String what) {
    List<IndexEntry> entries = new ArrayList<>(items.size());
    for (Map<String, AttributeValue> item : items) {
      entries.add(ItemKeys.extract(schema, item).entry());
    }
    Pipeline p = Pipeline.create(
        PipelineOptionsFactory.fromArgs(Sizes.Runner.DIRECT.options().toArray(String[]::new)).create());
    p.apply("Loaded " + what, Create.of(entries).withCoder(IndexEntryCoder.of())).apply("Build index", buildIndex);
    PipelineResult.State state = p.run().waitUntilFinish();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException("the " + what + " index build ended in state " + state);
    }
  }
}
