package io.pagemark.lookup;

/** The page number is outside 1..pages for the group and page size. */
public final class PageOutOfRangeException extends LookupException {
  private static final long serialVersionUID = 1L;

  public PageOutOfRangeException(String message) {
    super(message);
  }
}
