package io.pagemark.key;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The escapes of pagemark's JSON, which manifests and dead letters written before Jackson wrote them still have. */
class JsonTest {
  @Test
  void stringsAreEscapedAsTheyAlwaysWere() throws Exception {
    String s = "q\" b\\ n\n r\r t\t b\b f\f nul\u0000 us\u001f del\u007f ls\u2028 ps\u2029 \u00e9 \u4e2d \uD83D\uDE00";
    String quoted = Json.quote(s);
    assertThat(quoted, equalTo("\"q\\\" b\\\\ n\\n r\\r t\\t b\\u0008 f\\u000c nul\\u0000 us\\u001f del\u007f"
        + " ls\\u2028 ps\\u2029 \u00e9 \u4e2d \uD83D\uDE00\""));
    assertThat(new ObjectMapper().readTree(quoted).textValue(), equalTo(s));
  }

  @Test
  void objectsAreCompactAndKeepTheirFieldOrder() {
    assertThat(Json.write(Json.object().put("z", 1L).put("a", "x").putNull("n").put("t", true)),
        equalTo("{\"z\":1,\"a\":\"x\",\"n\":null,\"t\":true}"));
    assertThat(Json.write(Json.of(KeyValue.ofNumber("1.50"))), equalTo("{\"N\":\"1.50\"}"));
    assertThat(KeyValue.ofBinary(new byte[] {(byte) 0x80, 0x7f}).toString(), equalTo("{\"B\":\"gH8=\"}"));
    assertThat(KeyValue.ofString("a\"b").toString(), equalTo("{\"S\":\"a\\\"b\"}"));
  }
}
