package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link GroupTable} finds what a {@code HashMap} of the same keys finds, keys equal as {@link KeyValue#equals}. */
class GroupTableTest {
  private static final Random R = new Random(41);

  @Test
  void findsWhatAHashMapFindsAsItGrowsAndAfterItIsCleared() {
    GroupTable<Integer> table = new GroupTable<>();
    for (int round = 0; round < 3; round++) { // a bundle's groups are forgotten and new ones come
      Map<KeyValue, Integer> oracle = new HashMap<>();
      List<KeyValue> added = new ArrayList<>();
      for (int i = 0; i < 20_000; i++) {
        KeyValue k = randomKey();
        Integer expected = oracle.get(k);
        assertThat(k.toString(), table.get(k), is(expected));
        if (expected == null) {
          oracle.put(k, i);
          added.add(k);
          table.put(k, i);
        }
      }
      assertThat(table.size(), is(oracle.size()));
      for (int i = 0; i < added.size(); i++) {
        assertThat(table.valueAt(i), is(oracle.get(added.get(i)))); // in the order they were added
      }
      table.clear();
      assertThat(table.size(), is(0));
      assertThat(table.get(added.get(0)), nullValue());
      assertThrows(IndexOutOfBoundsException.class, () -> table.valueAt(0));
    }
  }

  @Test
  void numbersAreEqualByValueAndTypesNeverMix() {
    GroupTable<String> table = new GroupTable<>();
    table.put(KeyValue.ofNumber("1.0"), "one");
    table.put(KeyValue.ofString("1"), "text one");
    table.put(KeyValue.ofBinary("1".getBytes(StandardCharsets.UTF_8)), "bytes one");
    assertThat(table.get(KeyValue.ofNumber("1")), is("one"));
    assertThat(table.get(KeyValue.ofNumber("100E-2")), is("one"));
    assertThat(table.get(KeyValue.ofString("1")), is("text one"));
    assertThat(table.get(KeyValue.ofBinary(new byte[] {'1'})), is("bytes one"));
    assertThat(table.get(KeyValue.ofString("1.0")), nullValue());
    assertThat(table.get(KeyValue.ofNumber("2")), nullValue());
    assertThat(table.size(), is(3));
  }

  /** Keys that collide often: short, of every type, numbers written several ways, texts beyond ASCII. */
  private static KeyValue randomKey() {
    int n = R.nextInt(3000);
    switch (R.nextInt(4)) {
      case 0:
        return KeyValue.ofString(String.format("SKU-%05d", n));
      case 1:
        return KeyValue.ofString("é" + n + (n % 7 == 0 ? "\uD83D\uDE00" : ""));
      case 2:
        return KeyValue.ofNumber(R.nextBoolean() ? Integer.toString(n % 500) : (n % 500) + ".0");
      default:
        return KeyValue.ofBinary(new byte[] {(byte) n, (byte) (n >> 8)});
    }
  }
}
