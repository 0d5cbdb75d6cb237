package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimeBucketsTest {
  private final TimeBuckets quarterHours = new TimeBuckets(15, "yyyyMMddHHmm");

  @Test
  void aBucketIsNamedByItsStartInUtc() {
    assertThat(quarterHours.name(Instant.parse("2026-11-23T12:29:59.999Z")), is("202611231215"));
    assertThat(quarterHours.name(Instant.parse("2026-11-23T12:30:00Z")), is("202611231230"));
    assertThat(quarterHours.start(Instant.parse("1969-12-31T23:59:59Z")), is(Instant.parse("1969-12-31T23:45:00Z")));
  }

  @Test
  void betweenListsEveryBucketFromTheOneHoldingFromToTheOneHoldingTo() {
    assertThat(quarterHours.between(Instant.parse("2026-11-23T23:44:00Z"), Instant.parse("2026-11-24T00:15:00Z")),
        is(List.of("202611232330", "202611232345", "202611240000", "202611240015")));
    assertThat(quarterHours.between(Instant.parse("2026-11-23T23:44:00Z"), Instant.parse("2026-11-23T23:44:00Z")),
        is(List.of("202611232330")));
    assertThat(new TimeBuckets(60, "yyyyMMddHH").between(Instant.parse("2026-11-23T22:59:00Z"),
        Instant.parse("2026-11-23T23:00:00Z")), is(List.of("2026112322", "2026112323")));
  }

  @Test
  void lengthsThatDoNotDivideADayAndPatternsThatNameTwoBucketsAlikeAreRefused() {
    assertThat(assertThrows(IllegalArgumentException.class, () -> new TimeBuckets(7, "yyyyMMddHHmm")).getMessage(),
        containsString("--bucketMinutes must divide a day"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> new TimeBuckets(15, "yyyyMMddHH")).getMessage(),
        containsString("gives two buckets of 15 minutes the same name"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> new TimeBuckets(15, "HHmm")).getMessage(),
        containsString("the same name"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> new TimeBuckets(15, "yyyyMMddHHmm'")).getMessage(),
        containsString("is not a date-time pattern"));
  }
}
