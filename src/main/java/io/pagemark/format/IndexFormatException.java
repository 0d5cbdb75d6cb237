package io.pagemark.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A group file (or another file of an index) that is not a pagemark index, is of an unknown version, is truncated, or
 * fails its checksum. The message names the file and what was wrong; the fix is to rebuild the index (or point at the
 * right directory).
 */
public class IndexFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public IndexFormatException(Path file, String problem) {
    super(file + ": " + problem);
  }

  /** For an index read from elsewhere than a local file: {@code where} is its path or URI. */
  public IndexFormatException(String where, String problem) {
    super(where + ": " + problem);
  }
}
