package io.pagemark.lookup.jdbc;

import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.IndexProvider;
import java.io.IOException;

/**
 * Opens PostgreSQL indexes loaded by backfill {@code --jdbcUrl}:
 * {@code jdbc:postgresql://HOST[:PORT]/DB[?user=U&password=P&currentSchema=S]}. Needs the optional PostgreSQL driver
 * and HikariCP; without them, opening fails with what to add.
 */
public final class JdbcIndexProvider implements IndexProvider {
  @Override
  public boolean accepts(String spec) {
    return spec.startsWith(JdbcAddress.SCHEME);
  }

  @Override
  public Index open(String spec) throws IOException {
    return open(spec, null);
  }

  @Override
  public Index open(String spec, String buildId) throws IOException {
    try {
      return JdbcIndex.open(JdbcAddress.parse(spec), buildId);
    } catch (NoClassDefFoundError e) {
      throw new IOException("PostgreSQL indexes need HikariCP and the PostgreSQL driver on the classpath"
          + " (com.zaxxer:HikariCP 5.1.0 and org.postgresql:postgresql 42.7.4, optional dependencies of"
          + " pagemark-lookup): " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      throw new IOException(e.getMessage(), e); // the driver is missing
    }
  }

  @Override
  public String usage() {
    return "jdbc:postgresql://HOST[:PORT]/DB[?currentSchema=S]";
  }
}
