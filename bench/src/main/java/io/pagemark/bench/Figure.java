package io.pagemark.bench;

import java.util.Locale;
import java.util.Objects;

/**
 * One measured figure beside its baseline, both from the same run: printed as {@code name: value unit (baseline:
 * value unit, ratio x)}, where ratio = value / baseline (below 1 means pagemark needs less than the baseline).
 *
 * @param name what was measured, naming the baseline it is compared with
 * @param value the measured value
 * @param unit its unit
 * @param baseline what the baseline is (for the results table)
 * @param baselineValue the baseline's value, measured in the same run
 * @param baselineUnit its unit
 * @param note how it was measured: sizes, method (for the results table)
 */
public record Figure(
    String name, double value, String unit, String baseline, double baselineValue, String baselineUnit,
    String note) {
  public Figure {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(baseline, "baseline");
    Objects.requireNonNull(baselineUnit, "baselineUnit");
    note = note == null ? "" : note;
    if (!Double.isFinite(value) || !Double.isFinite(baselineValue)) {
      throw new IllegalArgumentException(name + ": value and baseline must be finite, not " + value + " and "
          + baselineValue);
    }
  }

  /** value / baseline; infinite when the baseline is 0. */
  public double ratio() {
    return value / baselineValue;
  }

  /** The line the suite prints. */
  public String line() {
    return name + ": " + number(value) + " " + unit + " (baseline: " + number(baselineValue) + " " + baselineUnit
        + ", ratio " + number(ratio()) + "x)";
  }

  /**
   * A number for people: whole numbers as they are (with thousands separators), others with three significant
   * digits.
   */
  static String number(double v) {
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.format(Locale.ROOT, "%,d", (long) v);
    }
    double a = Math.abs(v);
    if (a >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }
}
