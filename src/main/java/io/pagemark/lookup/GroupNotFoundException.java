package io.pagemark.lookup;

/**
 * The index holds no group with that key (the table had no item with that group key as of the build), or the text
 * given cannot be a group key of the index. The message names the group and the build or store.
 */
public final class GroupNotFoundException extends LookupException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message names the group and says where it was looked for. */
  public GroupNotFoundException(String message) {
    super(message);
  }
}
