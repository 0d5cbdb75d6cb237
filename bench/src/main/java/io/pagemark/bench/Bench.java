package io.pagemark.bench;

import java.util.List;

/**
 * One benchmark of the suite: it says up front which figures it will produce at a size (so that a missing one is
 * caught), then measures each figure and its baseline in the same run.
 */
public interface Bench {
  /** A short name for progress lines and {@code --only}. */
  String id();

  /** The names of the figures {@link #run} reports at these sizes. */
  List<String> figures(Sizes sizes);

  /** Measures and reports every figure; throws if it cannot (its figures then count as missing). */
  void run(Sizes sizes, Context context) throws Exception;
}
