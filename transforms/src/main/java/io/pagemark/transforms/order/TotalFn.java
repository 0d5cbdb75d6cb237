package io.pagemark.transforms.order;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;

/**
 * Adds up counts and makes one value of the total, so that a count becomes a side input in one step
 * ({@code Combine.globally(fn).asSingletonView()}): each step between the entries and their ordering is one more a
 * runner schedules and waits for (Beam's DirectRunner one watermark hop each, Flink one task each).
 *
 * @param <OutputT> what the total becomes
 */
public abstract class TotalFn<OutputT> extends Combine.CombineFn<Long, Long, OutputT> {
  /** The value of this total (of no counts at all: 0). */
  protected abstract OutputT of(long total);

  /** The coder of {@link #of}'s values. */
  protected abstract Coder<OutputT> outputCoder();

  @Override
  public final Long createAccumulator() {
    return 0L;
  }

  @Override
  public final Long addInput(Long total, Long n) {
    return total + n;
  }

  @Override
  public final Long mergeAccumulators(Iterable<Long> totals) {
    long sum = 0;
    for (long n : totals) {
      sum += n;
    }
    return sum;
  }

  @Override
  public final OutputT extractOutput(Long total) {
    return of(total);
  }

  @Override
  public final Coder<Long> getAccumulatorCoder(CoderRegistry registry, Coder<Long> inputCoder) {
    return VarLongCoder.of();
  }

  @Override
  public final Coder<OutputT> getDefaultOutputCoder(CoderRegistry registry, Coder<Long> inputCoder) {
    return outputCoder();
  }
}
