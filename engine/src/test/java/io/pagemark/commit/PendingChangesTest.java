package io.pagemark.commit;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The commit's merge rules that the file and PostgreSQL commits share: per item the newest unseen change decides, a
 * duplicate or a replay applies once, changes older than the horizon are stale, and the ledger survives its bytes.
 */
class PendingChangesTest {
  static final KeyValue GROUP = KeyValue.ofString("g");
  static final List<KeyValue> ITEM = List.of(KeyValue.ofString("pk-1"));
  static final long T0 = 1_700_000_000_000_000L;

  static List<KeyValue> entry(String sortKey) {
    return List.of(KeyValue.ofNumber(sortKey), KeyValue.ofString("pk-1"));
  }

  static IndexChange change(long micros, String from, String to) {
    return new IndexChange(GROUP, ITEM, new Version(micros, ""), from == null ? null : entry(from),
        to == null ? null : entry(to));
  }

  @Test
  void theNewestChangeOfAnItemDecidesAndEveryRunItNamesIsTouched() throws IOException {
    // delivered out of order: 1 -> 2 at T0+2 arrives before 5 -> 1 at T0+1
    PendingChanges p = PendingChanges.decide(GROUP, List.of(change(T0 + 2, "1", "2"), change(T0 + 1, "5", "1")),
        null, T0);
    assertThat(p.applied(), is(2L));
    assertThat(p.stale(), is(0L));
    assertThat(p.dropped(), is(Set.of(entry("5"), entry("1"), entry("2"))));
    assertThat(p.addsBySortKey().keySet().stream().map(KeyValue::toString).toList(),
        is(List.of(KeyValue.ofNumber("1").toString(), KeyValue.ofNumber("2").toString(),
            KeyValue.ofNumber("5").toString())));
    assertThat(p.addsBySortKey().get(KeyValue.ofNumber("2")), is(List.of(new IndexEntry(GROUP, entry("2")))));
    assertThat(p.addsBySortKey().get(KeyValue.ofNumber("1")), is(empty()));
  }

  @Test
  void aDuplicateAppliesOnceAndAReplayAgainstTheStoredLedgerAppliesNothing() throws IOException {
    List<IndexChange> changes = List.of(change(T0 + 5, null, "3"), change(T0 + 5, null, "3"));
    PendingChanges first = PendingChanges.decide(GROUP, changes, null, T0);
    assertThat(first.applied(), is(1L));
    assertThat(first.stale(), is(1L));
    byte[] ledger = first.ledgerAfter(Duration.ofHours(24));

    PendingChanges replay = PendingChanges.decide(GROUP, changes, ledger, T0);
    assertThat(replay.applied(), is(0L));
    assertThat(replay.stale(), is(2L));
    assertThat(replay.dropped(), is(empty()));
    assertThat(replay.addsBySortKey().isEmpty(), is(true));

    PendingChanges newer = PendingChanges.decide(GROUP, List.of(change(T0 + 6, "3", null)), ledger, T0);
    assertThat(newer.applied(), is(1L));
    assertThat(newer.dropped(), is(Set.of(entry("3"))));
  }

  @Test
  void changesBeforeTheHorizonAreInTheBuildAlready() throws IOException {
    PendingChanges p = PendingChanges.decide(GROUP, List.of(change(T0 - 1, null, "7")), null, T0);
    assertThat(p.applied(), is(0L));
    assertThat(p.stale(), is(1L));
    assertThat(p.addsBySortKey().isEmpty(), is(true));
  }

  @Test
  void aDamagedLedgerIsRefused() throws IOException {
    byte[] ledger = PendingChanges.decide(GROUP, List.of(change(T0 + 1, null, "1")), null, T0)
        .ledgerAfter(Duration.ofHours(1));
    ledger[ledger.length / 2] ^= 1;
    IOException e = assertThrows(IOException.class,
        () -> PendingChanges.decide(GROUP, List.of(change(T0 + 2, null, "1")), ledger, T0));
    assertThat(e.getMessage(), containsString("checksum mismatch"));
  }
}
