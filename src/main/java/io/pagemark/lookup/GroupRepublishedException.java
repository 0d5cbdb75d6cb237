package io.pagemark.lookup;

import java.io.IOException;

/**
 * A group was replaced by a newer build while a lookup was reading it (possible with stores that publish group by
 * group, such as Redis). The lookup read nothing inconsistent; opening the group again and repeating the lookup
 * answers from the new build. {@link PageReader} does so itself; code that reads {@link GroupPages} directly retries.
 */
public final class GroupRepublishedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message names the group and the builds before and after. */
  public GroupRepublishedException(String message) {
    super(message);
  }
}
