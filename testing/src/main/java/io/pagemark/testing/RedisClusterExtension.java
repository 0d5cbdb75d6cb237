package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one 3-master Redis Cluster for the test JVM ({@code @ExtendWith(RedisClusterExtension.class)}, then a
 * parameter {@code RedisCluster cluster}), checked before each test and started again (empty) when a master died.
 * Tests share it: each works under its own key prefix. Logs: {@code target/services/redis-cluster-N*.log}.
 */
public final class RedisClusterExtension extends ServiceExtension<RedisCluster> {
  private static final SharedService<RedisCluster> SHARED = SharedService.of("redis-cluster", RedisCluster::start);

  public RedisClusterExtension() {
    super(RedisCluster.class, SHARED);
  }

  /** The JVM's cluster, started or restarted as needed: for helpers that are not handed it. */
  public static RedisCluster get() throws IOException {
    return SHARED.get();
  }
}
