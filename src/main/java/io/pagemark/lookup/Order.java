package io.pagemark.lookup;

/** The direction a Query reads a group: {@code ScanIndexForward=true} is ascending. */
public enum Order {
  ASC,
  DESC;

  /** Parses "asc" or "desc" (any case); throws {@link IllegalArgumentException} naming the bad value. */
  public static Order parse(String s) {
    switch (s.toLowerCase(java.util.Locale.ROOT)) {
      case "asc":
        return ASC;
      case "desc":
        return DESC;
      default:
        throw new IllegalArgumentException("--order must be asc or desc, not \"" + s + "\"");
    }
  }

  /** The value of the Query's {@code ScanIndexForward}. */
  public boolean scanIndexForward() {
    return this == ASC;
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
