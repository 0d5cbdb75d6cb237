package io.pagemark.lookup;

/**
 * The page number is outside 1..pages for the group and page size. The message says how many pages the group has:
 * {@code group {"S":"x"} has 91 pages of 20; page 292 is out of range}.
 */
public final class PageOutOfRangeException extends LookupException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message gives the group's pages and the page asked for. */
  public PageOutOfRangeException(String message) {
    super(message);
  }
}
