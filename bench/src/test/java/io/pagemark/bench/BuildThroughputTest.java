package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.bench.BuildThroughput.Round;
import java.util.List;
import org.junit.jupiter.api.Test;

class BuildThroughputTest {
  // ratios 0.25, 0.40, 0.30; beyond a 2 s fixed cost 0.50, 0.80, 0.30
  private static final Round SLOW_SORT_FAST_FIXED = new Round(2, 6, 1.5);
  private static final Round FASTEST = new Round(2, 5, 2);
  private static final Round MIDDLE = new Round(0.5, 10, 3);

  @Test
  void theFigureIsTheRoundOfTheMedianRatioNotTheMedianOfEachTime() {
    List<Round> rounds = List.of(SLOW_SORT_FAST_FIXED, FASTEST, MIDDLE);
    assertThat(BuildThroughput.median(rounds, Round::ratio), sameInstance(MIDDLE));
    assertThat(BuildThroughput.median(rounds, Round::marginalRatio), sameInstance(SLOW_SORT_FAST_FIXED));
    assertThat(MIDDLE.ratio(), closeTo(0.3, 1e-12));
    assertThat(SLOW_SORT_FAST_FIXED.marginalRatio(), closeTo(0.375, 1e-12));
  }

  @Test
  void oneRoundIsItsOwnMedianAndNeedsNoNote() {
    assertThat(BuildThroughput.median(List.of(FASTEST), Round::ratio), sameInstance(FASTEST));
    assertThat(BuildThroughput.roundsNote(List.of(FASTEST), Round::ratio), is(""));
  }

  @Test
  void theNoteListsEveryRoundInTheOrderTheyRan() {
    assertThat(BuildThroughput.roundsNote(List.of(SLOW_SORT_FAST_FIXED, FASTEST, MIDDLE), Round::ratio),
        is("; the median of 3 rounds in turns: 0.250x (build 6.0 s, sort 1.50 s), 0.400x (build 5.0 s, sort 2.00 s),"
            + " 0.300x (build 10.0 s, sort 3.00 s)"));
  }

  @Test
  void theCpuNoteSaysWhatEachTookAndHowManyCoresThatIs() {
    assertThat(BuildThroughput.cpuNote(new Round(2, 10, 3.5, 19, 4.48)),
        is("; CPU of that round: build 19.00 s (1.90 cores on average), sort 4.48 s (1.28 cores), 4.24x sort's"));
    assertThat("a sort too short to count", BuildThroughput.cpuNote(new Round(2, 3, 0.01, 5, 0)),
        is("; CPU of that round: build 5.00 s (1.67 cores on average), sort 0.00 s (0.00 cores)"));
    assertThat("not measured", BuildThroughput.cpuNote(MIDDLE), is(""));
  }

  @Test
  void anEvenNumberOfRoundsHasNoMedianRound() {
    assertThrows(IllegalArgumentException.class,
        () -> BuildThroughput.median(List.of(FASTEST, MIDDLE), Round::ratio));
    assertThrows(IllegalArgumentException.class,
        () -> new Sizes.Build(Sizes.Runner.FLINK, new SyntheticEntries(10, 1, 10), 2));
  }

  @Test
  void fullSizesTakeTheMedianOfThreeRoundsOfEachRunner() {
    for (Sizes.Build b : Sizes.FULL.builds()) {
      assertThat(b.runner() + " rounds", b.rounds(), is(3));
    }
  }
}
