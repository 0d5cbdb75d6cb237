package io.pagemark.format.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RedisAddressTest {
  @ParameterizedTest
  @CsvSource({
    "redis://127.0.0.1:6390/3, 127.0.0.1, 6390, 3",
    "redis://localhost, localhost, 6379, 0",
    "redis://cache.internal:7000/, cache.internal, 7000, 0",
    "redis://[::1]:6400/1, ::1, 6400, 1",
  })
  void parsesHostPortAndDatabase(String uri, String host, int port, int db) {
    RedisAddress a = RedisAddress.parse(uri);
    assertThat(a.host(), equalTo(host));
    assertThat(a.port(), equalTo(port));
    assertThat(a.database(), equalTo(db));
  }

  @Test
  void credentialsAreUsedButNeverShown() {
    RedisAddress a = RedisAddress.parse("redis://app:s3cret@127.0.0.1:6390/2");
    assertThat(a.user(), equalTo("app"));
    assertThat(a.password(), equalTo("s3cret"));
    assertThat(a.toString(), equalTo("redis://127.0.0.1:6390/2"));
    assertThat(RedisAddress.parse("redis://:pw@h").password(), equalTo("pw"));
    assertThat(a.unreachable(new RuntimeException("refused")).getMessage(), not(containsString("s3cret")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://h:1", "redis://", "redis://h:1/x", "redis://h:99999", "rediss://h:1",
      "redis://h:1/0?prefix=x", "127.0.0.1:6379"})
  void rejectsWhatIsNotAnAddressAndShowsTheExpectedForm(String uri) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisAddress.parse(uri));
    assertThat(e.getMessage(), containsString("redis://HOST:PORT"));
  }

  @Test
  void parsesAClusterOfSeedNodes() {
    RedisAddress a = RedisAddress.parse("redis-cluster://app:pw@10.0.0.1:7000,10.0.0.2:7001");
    assertThat(a.isCluster(), is(true));
    assertThat(a.seeds(), equalTo(java.util.List.of("10.0.0.1:7000", "10.0.0.2:7001")));
    assertThat(a.password(), equalTo("pw"));
    assertThat(a.toString(), equalTo("redis-cluster://10.0.0.1:7000,10.0.0.2:7001"));
    assertThat(RedisAddress.parse("redis-cluster://h:1").seedNodes().size(), is(1));
    assertThat(RedisAddress.parse("redis://h:1").isCluster(), is(false));
  }

  @ParameterizedTest
  @ValueSource(strings = {"redis-cluster://", "redis-cluster://h", "redis-cluster://h:1,", "redis-cluster://h:x",
      "redis-cluster://h:1/0", "redis-cluster://h:1?prefix=p", "redis-cluster://h:70000"})
  void rejectsWhatIsNotAClusterAddressAndShowsTheExpectedForm(String uri) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisAddress.parse(uri));
    assertThat(e.getMessage(), containsString("redis-cluster://HOST:PORT[,HOST:PORT...]"));
  }
}
