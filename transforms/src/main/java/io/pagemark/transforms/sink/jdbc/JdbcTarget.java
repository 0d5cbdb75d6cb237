package io.pagemark.transforms.sink.jdbc;

import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import java.io.Serializable;
import org.apache.beam.sdk.io.jdbc.JdbcIO;

/**
 * What every step of one PostgreSQL load shares: where the index is, what it indexes, and the build being written.
 *
 * @param batchSize rows per JdbcIO batch (one statement batch and one transaction)
 */
record JdbcTarget(JdbcAddress address, JdbcIndexMeta meta, String buildId, long buildTimeMillis, int keepBuilds,
    int batchSize) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** JdbcIO's connection configuration for the same database, user and password. */
  JdbcIO.DataSourceConfiguration dataSource() {
    JdbcIO.DataSourceConfiguration c =
        JdbcIO.DataSourceConfiguration.create("org.postgresql.Driver", address.url())
            .withConnectionProperties("ApplicationName=pagemark-backfill");
    if (address.user() != null) {
      c = c.withUsername(address.user());
    }
    if (address.password() != null) {
      c = c.withPassword(address.password());
    }
    return c;
  }
}
