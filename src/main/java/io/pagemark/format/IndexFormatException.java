package io.pagemark.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A group file that is not a pagemark index, is of an unknown version, is truncated, or fails its checksum. The
 * message names the file and what was wrong; the fix is to rebuild the index (or point at the right directory).
 */
public class IndexFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public IndexFormatException(Path file, String problem) {
    super(file + ": " + problem);
  }
}
