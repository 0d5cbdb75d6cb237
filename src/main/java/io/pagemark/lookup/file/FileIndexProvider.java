package io.pagemark.lookup.file;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.IndexProvider;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Opens file indexes: a directory written by backfill ({@code --output=DIR}), given as a plain path or a
 * {@code file:} URI. Found by {@link java.util.ServiceLoader}; applications call
 * {@link io.pagemark.lookup.Indexes#open(String)}. Stateless and thread-safe.
 */
public final class FileIndexProvider implements IndexProvider {
  @Override
  public boolean accepts(String spec) {
    return !spec.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") || spec.startsWith("file:");
  }

  @Override
  public Index open(String spec) throws IOException {
    return FileIndex.open(path(spec));
  }

  @Override
  public Index open(String spec, String buildId) throws IOException {
    return FileIndex.open(path(spec), buildId);
  }

  @Override
  public String usage() {
    return "DIR (a file index)";
  }

  private static Path path(String spec) {
    return spec.startsWith("file:") ? Path.of(java.net.URI.create(spec)) : Path.of(spec);
  }
}
