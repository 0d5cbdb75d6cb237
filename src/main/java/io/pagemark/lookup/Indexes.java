package io.pagemark.lookup;

import java.io.IOException;
import java.nio.file.Path;

/** Opens an index from the {@code --index} value of the CLI: a directory written by backfill. */
public final class Indexes {
  private Indexes() {}

  /** Opens the current build of the index, or the given build when {@code buildId} is not null. */
  public static Index open(String spec, String buildId) throws IOException {
    Path root = Path.of(spec);
    return buildId == null ? FileIndex.open(root) : FileIndex.open(root, buildId);
  }
}
