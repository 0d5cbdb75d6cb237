package io.pagemark.transforms.sink.jdbc;

import io.pagemark.format.jdbc.JdbcBuilds;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * The load's first step, run once before any entry is written: creates the index's tables if missing, checks that
 * the schema holds this index (or none), registers the build as loading and creates its tables. Safe to retry.
 */
final class BeginJdbcBuildFn extends DoFn<String, String> {
  private final JdbcTarget target;

  BeginJdbcBuildFn(JdbcTarget target) {
    this.target = target;
  }

  @ProcessElement
  public void process(@Element String buildId, OutputReceiver<String> out) throws IOException, SQLException {
    try (Connection c = target.address().connect()) {
      new JdbcBuilds(target.address()).begin(c, target.meta(), buildId, target.buildTimeMillis());
    }
    out.output(buildId);
  }
}
