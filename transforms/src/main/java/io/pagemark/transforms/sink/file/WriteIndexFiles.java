package io.pagemark.transforms.sink.file;

import io.pagemark.format.BuildInfo;
import io.pagemark.transforms.BuildContext;
import io.pagemark.transforms.IndexSink;
import io.pagemark.transforms.Published;
import io.pagemark.transforms.order.OrderedPart;
import java.util.Objects;
import java.util.Optional;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * The file index sink: one fixed-width group file per group (the format in {@code docs/file-format.md}) under the
 * build being written, then a manifest, a check that every item scanned is accounted for, {@code build.json}, and an
 * atomic publish: on a local disk the build directory renamed into place, then {@code CURRENT} moved to it; on S3 (or
 * another Beam file system) every object under the build's prefix first, {@code CURRENT} last ({@link BuildOutput}).
 * Builds beyond the newest {@code keepBuilds} are removed. A group of one part is written straight to its file; the
 * parts of a bigger group are written side by side and joined in one sequential pass.
 *
 * <pre>{@code
 * BuildIndex.of(schema).withSink(WriteIndexFiles.to("/data/comments-index"))
 * BuildIndex.of(schema).withSink(WriteIndexFiles.to("s3://my-bucket/comments-index"))
 * }</pre>
 */
public final class WriteIndexFiles implements IndexSink {
  private static final long serialVersionUID = 1L;

  private final BuildOutput output;

  private WriteIndexFiles(BuildOutput output) {
    this.output = output;
  }

  /**
   * Writes under this index root: a directory (made absolute now, so that every worker writes the same place), or
   * the URI of another Beam file system, such as {@code s3://BUCKET/PREFIX} (see {@link BuildOutput} for how each
   * is published).
   *
   * @throws NullPointerException if {@code root} is null
   * @throws IllegalArgumentException if it is blank
   */
  public static WriteIndexFiles to(String root) {
    if (Objects.requireNonNull(root, "root").isBlank()) {
      throw new IllegalArgumentException("the index root directory must not be blank");
    }
    return new WriteIndexFiles(BuildOutput.of(root));
  }

  /** The index root: an absolute directory, or a URI such as {@code s3://BUCKET/PREFIX}. */
  public String root() {
    return output.root();
  }

  @Override
  public String describe() {
    return output.toString();
  }

  @Override
  public Optional<String> deadLetterDirectory(String buildId) {
    return Optional.of(output.deadLetterDirectory(buildId));
  }

  @Override
  public PTransform<PCollection<OrderedPart>, PCollection<Published>> write(BuildContext build) {
    return new Write(output, build);
  }

  private static final class Write extends PTransform<PCollection<OrderedPart>, PCollection<Published>> {
    private final BuildOutput output;
    private final BuildContext build;

    Write(BuildOutput output, BuildContext build) {
      this.output = output;
      this.build = build;
    }

    @Override
    public PCollection<Published> expand(PCollection<OrderedPart> parts) {
      PCollectionTuple written =
          parts.apply(
              "Write group files",
              ParDo.of(new WritePartFn(build.schema(), output, build.buildId(), build.buildTimeMillis()))
                  .withOutputTags(WritePartFn.GROUPS, TupleTagList.of(WritePartFn.PARTS)));
      PCollection<GroupSummary> joined =
          written
              .get(WritePartFn.PARTS)
              .setCoder(KvCoder.of(StringUtf8Coder.of(), SerializableCoder.of(WritePartFn.PartFile.class)))
              .apply("Group parts", GroupByKey.create())
              .apply("Join parts", ParDo.of(
                  new ConcatPartsFn(build.schema(), output, build.buildId(), build.buildTimeMillis())))
              .setCoder(GroupSummary.Coder.of());
      PCollection<GroupSummary> groups =
          PCollectionList.of(written.get(WritePartFn.GROUPS).setCoder(GroupSummary.Coder.of()))
              .and(joined)
              .apply("All groups", Flatten.pCollections());
      PCollectionView<Iterable<GroupSummary>> groupView = groups.apply("Written groups", View.asIterable());
      BuildContext.ScanCounts counts = build.scanCounts();
      String where = output.toString();
      String buildId = build.buildId();
      return parts
          .getPipeline()
          .apply("Publish trigger", Create.of(build.buildId()))
          .apply(
              "Publish build",
              ParDo.of(
                      new PublishBuildFn(
                          build.schema(), output, build.buildId(), build.buildTimeMillis(), build.keepBuilds(),
                          groupView, counts))
                  .withSideInputs(groupView).withSideInputs(counts.sideInputs()))
          .setCoder(SerializableCoder.of(BuildInfo.Counts.class))
          .apply("Published", MapElements.into(TypeDescriptor.of(Published.class))
              .via((BuildInfo.Counts c) -> new Published(where, buildId, c.groups(), c.entries(),
                  String.format("published build %s to %s: %,d items scanned, %,d entries in %,d groups, %,d skipped"
                      + " (no group or sort key), %,d dead letters, %,d runs of equal sort keys", buildId,
                      where, c.itemsScanned(), c.entries(), c.groups(), c.skippedNoGroupKey() + c.skippedNoSortKey(),
                      c.deadLetters(), c.tieRuns()))))
          .setCoder(SerializableCoder.of(Published.class));
    }
  }
}
