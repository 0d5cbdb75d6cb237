package io.pagemark.pipelines.backfill;

import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.transforms.sink.jdbc.WriteJdbcIndex;

/** Turns {@link JdbcOptions} into the PostgreSQL sink of a backfill. */
public final class JdbcSink {
  private JdbcSink() {}

  /**
   * Checks the PostgreSQL options without connecting; throws {@link IllegalArgumentException} (a usage error) that
   * names the option. Options without {@code --jdbcUrl} pass unless they give another PostgreSQL option.
   */
  public static void check(JdbcOptions o) {
    if (o.getJdbcUrl() == null) {
      for (String[] given : new String[][] {{"jdbcUser", o.getJdbcUser()}, {"jdbcPassword", o.getJdbcPassword()},
          {"jdbcSchema", o.getJdbcSchema()}}) {
        if (given[1] != null) {
          throw new IllegalArgumentException("--" + given[0] + " needs --jdbcUrl");
        }
      }
      return;
    }
    try {
      JdbcAddress a = JdbcAddress.parse(o.getJdbcUrl());
      if (o.getJdbcSchema() != null) {
        a.withSchema(o.getJdbcSchema());
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--" + (o.getJdbcSchema() != null && e.getMessage().contains("schema")
          ? "jdbcSchema" : "jdbcUrl") + ": " + e.getMessage());
    }
    if (o.getJdbcBatchSize() < 1 || o.getJdbcBatchSize() > 100_000) {
      throw new IllegalArgumentException(
          "--jdbcBatchSize must be between 1 and 100000, not " + o.getJdbcBatchSize());
    }
  }

  /** The sink the options ask for, or null without {@code --jdbcUrl}. */
  public static WriteJdbcIndex of(JdbcOptions o) {
    if (o.getJdbcUrl() == null) {
      return null;
    }
    check(o);
    WriteJdbcIndex w = WriteJdbcIndex.to(o.getJdbcUrl()).withCredentials(o.getJdbcUser(), o.getJdbcPassword())
        .withBatchSize(o.getJdbcBatchSize());
    return o.getJdbcSchema() == null ? w : w.withSchema(o.getJdbcSchema());
  }
}
