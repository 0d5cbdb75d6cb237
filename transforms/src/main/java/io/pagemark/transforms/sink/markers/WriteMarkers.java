package io.pagemark.transforms.sink.markers;

import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.transforms.BuildContext;
import io.pagemark.transforms.IndexSink;
import io.pagemark.transforms.Published;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.order.OrderedPartCoder;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * Writes page markers inside DynamoDB: for each group, the marker attribute on every item that ends a page (and a
 * tie attribute inside runs of equal sort keys), every other marker of the group taken off, and the group's STATS
 * item, read back by {@link io.pagemark.lookup.Indexes#open(String)} as {@code dynamodb://TABLE/MARKER_INDEX}. Writes
 * are conditional ({@link io.pagemark.commit.markers.GroupMarkers}): an item changed since the scan is not
 * clobbered, its group is read again from DynamoDB and placed from that. Only differences are written, so a second
 * run writes nothing. Set up the stats table and the marker index first
 * ({@link io.pagemark.commit.markers.MarkerTables#prepare}). Emits one {@link Published}.
 *
 * <pre>{@code
 * Backfill.of(connection, schema).withSink(WriteMarkers.to(spec, config)).withDeadLetterOutput(dir);
 * }</pre>
 *
 * <p>Immutable and serializable. A group is placed by one worker, which holds its keys in memory. Once every group is
 * written, the STATS items of groups that have no item left are deleted (their markers went with their items).
 */
public final class WriteMarkers implements IndexSink {
  private static final long serialVersionUID = 1L;
  private final MarkerSpec spec;
  private final MarkerConfig config;

  private WriteMarkers(MarkerSpec spec, MarkerConfig config) {
    this.spec = spec;
    this.config = config;
  }

  /**
   * Markers as {@code config} describes them, at {@code spec}.
   *
   * @throws NullPointerException if either argument is null
   */
  public static WriteMarkers to(MarkerSpec spec, MarkerConfig config) {
    return new WriteMarkers(Objects.requireNonNull(spec, "spec"), Objects.requireNonNull(config, "config"));
  }

  @Override
  public String describe() {
    return "page markers at " + spec;
  }

  @Override
  public void validate() {
    if (!spec.table().equals(config.schema().table())) {
      throw new IllegalArgumentException("markers at " + spec + " cannot be built from table "
          + config.schema().table());
    }
  }

  private static MarkerCounts sum(Iterable<MarkerCounts> counts) {
    MarkerCounts total = MarkerCounts.NONE;
    for (MarkerCounts c : counts) {
      total = total.plus(c);
    }
    return total;
  }

  @Override
  public PTransform<PCollection<OrderedPart>, PCollection<Published>> write(BuildContext build) {
    return new PTransform<>() {
      @Override
      public PCollection<Published> expand(PCollection<OrderedPart> parts) {
        return parts
            .apply("Key by group", WithKeys.<String, OrderedPart>of(p -> OrderGroups.groupId(p.group()))
                .withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), OrderedPartCoder.of()))
            .apply("Gather each group's parts", GroupByKey.create())
            .apply("Write markers", ParDo.of(new WriteGroupMarkersFn(spec, config)))
            .setCoder(SerializableCoder.of(MarkerCounts.class))
            .apply("Add up", Combine.globally(WriteMarkers::sum))
            .setCoder(SerializableCoder.of(MarkerCounts.class))
            .apply("Remove STATS of groups with no items", ParDo.of(new RemoveVanishedStatsFn(spec, config)))
            .setCoder(SerializableCoder.of(MarkerCounts.class))
            .apply("Published", MapElements.into(TypeDescriptor.of(Published.class))
                .via(c -> new Published(describe(), config.buildId(), c.groups(), c.entries(), c.summary())));
      }
    };
  }
}
