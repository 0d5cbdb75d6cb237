package io.pagemark.lookup;

/** A lookup that cannot be answered: the group is unknown or the page is out of range. The message says which. */
public class LookupException extends Exception {
  private static final long serialVersionUID = 1L;

  public LookupException(String message) {
    super(message);
  }
}
