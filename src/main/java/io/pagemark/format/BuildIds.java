package io.pagemark.format;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;

/** Build ids: UTC time to the second plus 4 random hex digits, so that ids sort by time and rarely collide. */
public final class BuildIds {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private BuildIds() {}

  public static String newId(long timeMillis) {
    return FORMAT.format(Instant.ofEpochMilli(timeMillis))
        + String.format("-%04x", ThreadLocalRandom.current().nextInt(0x10000));
  }
}
