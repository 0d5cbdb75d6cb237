package io.pagemark.pipelines.backfill;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The backfill's PostgreSQL options ({@code --jdbcUrl}, {@code --jdbcUser}, {@code --jdbcPassword},
 * {@code --jdbcSchema}, {@code --jdbcBatchSize}); a pipeline's options interface extends this one to offer them.
 * {@link JdbcSink} checks them and builds the sink.
 */
public interface JdbcOptions extends PipelineOptions {
  @Description(
      "Write the index into PostgreSQL, besides or instead of --output: jdbc:postgresql://HOST[:PORT]/DB (user and"
          + " password as URL parameters, or --jdbcUser/--jdbcPassword). One table of entries per build, published"
          + " in one transaction.")
  String getJdbcUrl();

  void setJdbcUrl(String value);

  @Description("PostgreSQL user (default: the URL's).")
  String getJdbcUser();

  void setJdbcUser(String value);

  @Description("PostgreSQL password (default: the URL's).")
  String getJdbcPassword();

  void setJdbcPassword(String value);

  @Description("Schema of the index's tables, created when missing (default: the URL's currentSchema, else pagemark)."
      + " One index per schema.")
  String getJdbcSchema();

  void setJdbcSchema(String value);

  @Description("Rows per batch of the PostgreSQL load (one transaction each).")
  @Default.Integer(1000)
  int getJdbcBatchSize();

  void setJdbcBatchSize(int value);
}
