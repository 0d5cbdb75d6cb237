package io.pagemark.lookup;

/**
 * A union's cursor that this reader will not follow: malformed, not signed with this secret (forged or altered), made
 * for another set of groups, or numbered by another build of the index. The message says which; the client starts
 * again from page 1 (a server answers 400, a command line exits with 2).
 */
public final class CursorRefusedException extends LookupException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message says why the cursor is refused and what to do. */
  public CursorRefusedException(String message) {
    super(message);
  }
}
