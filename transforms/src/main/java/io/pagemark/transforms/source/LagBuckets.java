package io.pagemark.transforms.source;

import java.util.Map;
import java.util.TreeMap;

/**
 * A lag histogram carried in Beam counters, so that any runner reports it while the pipeline runs: a lag of
 * {@code ms} milliseconds counts in the counter {@code lagMillis_<b>} where bucket {@code b} holds the lags from
 * {@code 1.1^(b-1)} up to {@code 1.1^b} ms. Percentiles read back from the counters are within 10% (the bucket's
 * upper bound is reported).
 */
public final class LagBuckets {
  /** Prefix of the bucket counters' names. */
  public static final String PREFIX = "lagMillis_";
  private static final double RATIO = 1.1;

  private LagBuckets() {}

  /** Prefix of the counters of the lag from a change to its visibility in Redis. */
  public static final String VISIBLE_PREFIX = "visibleLagMillis_";

  /** The counter name for a lag. */
  public static String counterName(long lagMillis) {
    return PREFIX + bucket(lagMillis);
  }

  /** The counter name for a lag, in the histogram whose counters start with {@code prefix}. */
  public static String counterName(String prefix, long lagMillis) {
    return prefix + bucket(lagMillis);
  }

  static int bucket(long lagMillis) {
    return lagMillis <= 1 ? 0 : (int) Math.ceil(Math.log(lagMillis) / Math.log(RATIO));
  }

  /**
   * The {@code q} quantile (0 to 1) of the lags counted in {@code counters} (counter name to count; other names are
   * ignored), as the upper bound of its bucket in milliseconds; -1 when nothing was counted.
   */
  public static long quantile(Map<String, Long> counters, double q) {
    return quantile(counters, q, PREFIX);
  }

  /** {@link #quantile(Map, double)} of the histogram whose counters start with {@code prefix}. */
  public static long quantile(Map<String, Long> counters, double q, String prefix) {
    TreeMap<Integer, Long> buckets = new TreeMap<>();
    long total = 0;
    for (Map.Entry<String, Long> e : counters.entrySet()) {
      if (e.getKey().startsWith(prefix) && e.getValue() > 0) {
        buckets.merge(Integer.parseInt(e.getKey().substring(prefix.length())), e.getValue(), Long::sum);
        total += e.getValue();
      }
    }
    if (total == 0) {
      return -1;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (Map.Entry<Integer, Long> e : buckets.entrySet()) {
      seen += e.getValue();
      if (seen >= Math.max(1, rank)) {
        return e.getKey() == 0 ? 1 : (long) Math.ceil(Math.pow(RATIO, e.getKey()));
      }
    }
    return (long) Math.ceil(Math.pow(RATIO, buckets.lastKey()));
  }
}
