package io.pagemark.transforms.source;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.io.BoundedSource;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;

/**
 * The numbers {@code 0..n-1} of a parallel read's segments, handed out one at a time: a Beam source that splits into
 * one source per segment, so that a runner gives the next segment to whichever worker is free. On Flink's batch
 * runner each segment is an input split, assigned to the reader that asks next; a {@code Reshuffle} of the numbers
 * instead puts each segment on a worker by a hash of a random key, and with 8 segments on 2 workers the busier one
 * gets 5.09 on average instead of 4 (docs/build-speed.md).
 */
public final class Segments extends PTransform<PBegin, PCollection<Integer>> {
  private final int count;

  private Segments(int count) {
    this.count = count;
  }

  /**
   * Segments {@code 0..count-1}.
   *
   * @throws IllegalArgumentException if {@code count} is below 1
   */
  public static Segments of(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a read needs at least one segment, not " + count);
    }
    return new Segments(count);
  }

  @Override
  public PCollection<Integer> expand(PBegin begin) {
    return begin.apply("Read segment numbers", Read.from(new Source(0, count)));
  }

  /** Segments {@code [from, to)}; splits into one source per segment. */
  static final class Source extends BoundedSource<Integer> {
    private static final long serialVersionUID = 1L;
    private final int from;
    private final int to;

    Source(int from, int to) {
      this.from = from;
      this.to = to;
    }

    @Override
    public List<Source> split(long desiredBundleSizeBytes, PipelineOptions options) {
      List<Source> one = new ArrayList<>();
      for (int s = from; s < to; s++) {
        one.add(new Source(s, s + 1));
      }
      return one;
    }

    @Override
    public long getEstimatedSizeBytes(PipelineOptions options) {
      return 4L * (to - from);
    }

    @Override
    public Coder<Integer> getOutputCoder() {
      return VarIntCoder.of();
    }

    @Override
    public BoundedReader<Integer> createReader(PipelineOptions options) {
      return new BoundedReader<>() {
        private int next = from - 1;

        @Override
        public boolean start() {
          return advance();
        }

        @Override
        public boolean advance() {
          next++;
          return next < to;
        }

        @Override
        public Integer getCurrent() {
          if (next < from || next >= to) {
            throw new NoSuchElementException();
          }
          return next;
        }

        @Override
        public void close() throws IOException {}

        @Override
        public BoundedSource<Integer> getCurrentSource() {
          return Source.this;
        }
      };
    }
  }
}
