package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The launcher forms a working 3-master cluster, and a reshard moves a slot's keys to another master. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterTest {
  @Test
  void formsAClusterAndReshardsSlotsWithTheirKeys(RedisCluster cluster) throws Exception {
    cluster.ping();
    byte[] key = null;
    for (int i = 0; key == null; i++) {
      byte[] k = ("launcher-test{" + i + "}").getBytes(StandardCharsets.UTF_8);
      key = JedisClusterCRC16.getSlot(k) == 0 ? k : null;
    }
    int owner = cluster.ownerOf(0);
    try (Jedis j = cluster.node(owner)) {
      j.set(key, "v".getBytes(StandardCharsets.UTF_8));
    }
    // redis-cli moves slots from the start of the source's lowest range: slot 0 is among the first ten
    cluster.reshard(owner, (owner + 1) % 3, 10);
    assertThat(cluster.ownerOf(0), is((owner + 1) % 3));
    try (Jedis j = cluster.node(cluster.ownerOf(0))) {
      assertThat(new String(j.get(key), StandardCharsets.UTF_8), is("v"));
    }
  }
}
