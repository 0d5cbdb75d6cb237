package io.pagemark.key;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The copy-free views of a key's stored bytes agree with {@link KeyValue#bytes()}, for every type. */
class KeyValueViewsTest {
  @Test
  void copyFreeViewsSeeTheStoredBytes() {
    for (KeyValue k : List.of(KeyValue.ofString("SKU-é1"), KeyValue.ofNumber("1.50"),
        KeyValue.ofBinary(new byte[] {0, (byte) 0xFF, 7}), KeyValue.ofString(""))) {
      byte[] stored = k.bytes();
      assertThat(k.bytesEqual(stored), is(true));
      assertThat(k.bytesEqual(java.util.Arrays.copyOf(stored, stored.length + 1)), is(false));
      CRC32C viewed = new CRC32C();
      k.updateChecksum(viewed);
      CRC32C copied = new CRC32C();
      copied.update(stored);
      assertThat(viewed.getValue(), is(copied.getValue()));
    }
    // a number's stored bytes are its text as written, not its canonical form
    assertThat(KeyValue.ofNumber("1.50").bytesEqual("1.5".getBytes(StandardCharsets.US_ASCII)), is(false));
  }
}
