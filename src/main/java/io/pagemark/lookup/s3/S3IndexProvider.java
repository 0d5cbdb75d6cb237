package io.pagemark.lookup.s3;

import io.pagemark.format.s3.S3Location;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.IndexProvider;
import java.io.IOException;

/**
 * Opens file indexes kept in S3 by backfill {@code --output=s3://...}: {@code s3://BUCKET/PREFIX[?endpoint=URL]}
 * ({@code &region=R}). Needs the optional AWS SDK {@code s3} artifact; without it, opening fails with what to add.
 */
public final class S3IndexProvider implements IndexProvider {
  @Override
  public boolean accepts(String spec) {
    return S3Location.accepts(spec);
  }

  @Override
  public Index open(String spec) throws IOException {
    try {
      return S3Index.open(spec, null);
    } catch (NoClassDefFoundError e) {
      throw noSdk(e);
    }
  }

  @Override
  public Index open(String spec, String buildId) throws IOException {
    try {
      return S3Index.open(spec, buildId);
    } catch (NoClassDefFoundError e) {
      throw noSdk(e);
    }
  }

  @Override
  public String usage() {
    return "s3://BUCKET/PREFIX[?endpoint=URL]";
  }

  private static IOException noSdk(NoClassDefFoundError e) {
    return new IOException("S3 indexes need the AWS SDK's S3 client on the classpath (software.amazon.awssdk:s3"
        + " 2.20.47, an optional dependency of pagemark-lookup): " + e.getMessage(), e);
  }
}
