package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FigureTest {
  @Test
  void printsValueBaselineAndRatio() {
    Figure f = new Figure("page 10 DynamoDB requests", 1, "requests", "walk", 10, "requests", "");
    assertThat(f.line(), is("page 10 DynamoDB requests: 1 requests (baseline: 10 requests, ratio 0.1x)"));
  }

  @Test
  void ratioIsValueOverBaseline() {
    Figure f = new Figure("x", 3.5, "us", "b", 28_000, "us", null);
    assertThat(f.ratio(), is(3.5 / 28_000));
    assertThat(f.line(), is("x: 3.50 us (baseline: 28,000 us, ratio 0.000125x)"));
  }

  @Test
  void numbersKeepThreeSignificantDigits() {
    assertThat(Figure.number(12_345), is("12,345"));
    assertThat(Figure.number(12_345.6), is("12,346"));
    assertThat(Figure.number(51.06), is("51.1"));
    assertThat(Figure.number(1.456), is("1.46"));
    assertThat(Figure.number(0.5), is("0.5"));
    assertThat(Figure.number(0.0001234), is("0.000123"));
    assertThat(Figure.number(Double.POSITIVE_INFINITY), is("inf"));
  }

  @Test
  void rejectsValuesThatAreNotNumbers() {
    assertThrows(IllegalArgumentException.class, () -> new Figure("x", Double.NaN, "s", "b", 1, "s", ""));
    assertThrows(IllegalArgumentException.class,
        () -> new Figure("x", 1, "s", "b", Double.POSITIVE_INFINITY, "s", ""));
  }
}
