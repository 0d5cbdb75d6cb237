package io.pagemark.lookup;

/**
 * A lookup that cannot be answered because of what was asked, not because the store failed: the group is unknown or
 * the page is out of range (a command line tool exits with 3 for it). The message says which; failures of the store
 * are {@link java.io.IOException}s instead.
 */
public class LookupException extends Exception {
  private static final long serialVersionUID = 1L;

  /** An exception with a message that says what was asked and why it cannot be answered. */
  public LookupException(String message) {
    super(message);
  }
}
