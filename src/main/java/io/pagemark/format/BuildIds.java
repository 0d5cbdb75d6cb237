package io.pagemark.format;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Build ids: UTC time to the second, then 4 hex digits, so that ids sort by time and rarely collide. The digits are
 * the millisecond times 65 plus a random number below 65 (at most 999 * 65 + 64 = 0xfde8): builds published within
 * one second still sort in the order they were made (a listing of builds is oldest first), and two builds of the
 * same millisecond collide once in 65.
 */
public final class BuildIds {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  /** Random values per millisecond: 65 * 1000 of them fit in 4 hex digits. */
  static final int PER_MILLI = 65;

  private BuildIds() {}

  public static String newId(long timeMillis) {
    int suffix = (int) Math.floorMod(timeMillis, 1000L) * PER_MILLI
        + ThreadLocalRandom.current().nextInt(PER_MILLI);
    return FORMAT.format(Instant.ofEpochMilli(timeMillis)) + String.format("-%04x", suffix);
  }
}
