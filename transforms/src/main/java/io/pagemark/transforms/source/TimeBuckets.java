package io.pagemark.transforms.source;

import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a table names its time buckets: buckets of {@code minutes} minutes aligned to midnight UTC, each named by its
 * start formatted with a {@link DateTimeFormatter} pattern in UTC ({@code yyyyMMddHHmm} names the quarter-hour from
 * 12:15 "202611231215"). Immutable.
 *
 * @param minutes the bucket length, a divisor of a day's 1,440 minutes
 * @param pattern the name's pattern, which must tell every bucket apart
 */
public record TimeBuckets(int minutes, String pattern) implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final long DAY_MINUTES = 24 * 60;

  /**
   * @throws IllegalArgumentException for a length that does not divide a day, a pattern that is not one, or a pattern
   *     that names two buckets of a day alike
   */
  public TimeBuckets {
    Objects.requireNonNull(pattern, "pattern");
    if (minutes < 1 || DAY_MINUTES % minutes != 0) {
      throw new IllegalArgumentException("--bucketMinutes must divide a day (1440 minutes) evenly, e.g. 5, 15, 60;"
          + " not " + minutes);
    }
    DateTimeFormatter f = formatter(pattern);
    Instant day = Instant.parse("2026-01-01T00:00:00Z");
    java.util.Set<String> names = new java.util.HashSet<>();
    for (long m = 0; m < 2 * DAY_MINUTES; m += minutes) {
      if (!names.add(f.format(day.plusSeconds(m * 60)))) {
        throw new IllegalArgumentException("--bucketFormat " + pattern + " gives two buckets of " + minutes
            + " minutes the same name (" + f.format(day.plusSeconds(m * 60)) + "); it needs the date and enough of"
            + " the time");
      }
    }
  }

  private static DateTimeFormatter formatter(String pattern) {
    try {
      return DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--bucketFormat " + pattern + " is not a date-time pattern: "
          + e.getMessage());
    }
  }

  /** The start of the bucket that holds {@code t}. */
  public Instant start(Instant t) {
    long step = minutes * 60L;
    return Instant.ofEpochSecond(Math.floorDiv(t.getEpochSecond(), step) * step);
  }

  /** The name of the bucket that holds {@code t}. */
  public String name(Instant t) {
    return formatter(pattern).format(start(t));
  }

  /** The names of every bucket from the one that holds {@code from} to the one that holds {@code to}, oldest first. */
  public List<String> between(Instant from, Instant to) {
    DateTimeFormatter f = formatter(pattern);
    List<String> out = new ArrayList<>();
    for (Instant b = start(from); !b.isAfter(to); b = b.plusSeconds(minutes * 60L)) {
      out.add(f.format(b));
    }
    return out;
  }
}
