package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The datetime texts are parsed and printed by hand: every answer must be java.time's. */
class DatetimesTest {
  @Test
  void parsesAndPrintsAsJavaTimeDoes() {
    Random rnd = new Random(3);
    long from = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    long to = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 300_000; i++) {
      long s = i < 1_000 ? from + i * 86_401L : from + Math.floorMod(rnd.nextLong(), to - from + 1);
      String text = Instant.ofEpochSecond(s).toString();
      byte[] b = text.getBytes(StandardCharsets.US_ASCII);
      if (b.length == 20) {
        assertThat(text, Datetimes.parse(b, 0, 20, false), is(s));
        byte[] printed = new byte[20];
        Datetimes.format(s, false, printed, 0);
        assertThat(new String(printed, StandardCharsets.US_ASCII), is(text));
      }
      long ms = s * 1000 + rnd.nextInt(1000);
      String msText = Instant.ofEpochMilli(ms).toString();
      if (msText.length() == 24) {
        assertThat(msText, Datetimes.parse(msText.getBytes(StandardCharsets.US_ASCII), 0, 24, true), is(ms));
      }
    }
  }

  @Test
  void epochDaysAndMonthLengthsAreTheCalendars() {
    for (LocalDate d = LocalDate.of(0, 1, 1); d.getYear() < 2500; d = d.plusDays(1)) {
      assertThat(d.toString(), Datetimes.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()),
          is(d.toEpochDay()));
      assertThat(d.toString(), Datetimes.lengthOfMonth(d.getYear(), d.getMonthValue()), is(d.lengthOfMonth()));
    }
  }

  @Test
  void refusesWhatIsNotARealDateAndTime() {
    for (String text : new String[] {"2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
        "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-01-01 23:59:59Z", "2024-01-01T23:59:59",
        "+024-01-01T00:00:00Z", "2024-1-01T00:00:00Z"}) {
      byte[] b = text.getBytes(StandardCharsets.US_ASCII);
      assertThat(text, Datetimes.parse(b, 0, b.length, false), is(Datetimes.NOT_A_DATETIME));
    }
    // a byte that is no digit, in any digit's place: just below '0', just above '9', and far from both
    for (String valid : new String[] {"2024-06-15T12:34:56Z", "2024-06-15T12:34:56.789Z"}) {
      boolean millis = valid.length() == 24;
      for (int i = 0; i < valid.length(); i++) {
        if (Character.isDigit(valid.charAt(i))) {
          for (char c : new char[] {'/', ':', 'a', ' ', (char) 0xC3}) {
            byte[] b = valid.getBytes(StandardCharsets.ISO_8859_1);
            b[i] = (byte) c;
            assertThat(valid + " with " + c + " at " + i, Datetimes.parse(b, 0, b.length, millis),
                is(Datetimes.NOT_A_DATETIME));
          }
        }
      }
    }
    byte[] leap = "2000-02-29T12:00:00Z".getBytes(StandardCharsets.US_ASCII);
    assertThat(Datetimes.parse(leap, 0, 20, false), is(Instant.parse("2000-02-29T12:00:00Z").getEpochSecond()));
  }
}
