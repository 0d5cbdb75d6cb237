package io.pagemark.lookup;

/** The index holds no group with that key (the table has no item with that group key, as of the build). */
public final class GroupNotFoundException extends LookupException {
  private static final long serialVersionUID = 1L;

  public GroupNotFoundException(String message) {
    super(message);
  }
}
