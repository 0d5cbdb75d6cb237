package io.pagemark.lookup;

/** The direction a Query reads a group: {@code ScanIndexForward=true} is ascending. */
public enum Order {
  /** Ascending sort keys: {@code ScanIndexForward=true}. */
  ASC,
  /** Descending sort keys: {@code ScanIndexForward=false}. */
  DESC;

  /**
   * Parses "asc" or "desc" (any case).
   *
   * @throws NullPointerException if {@code s} is null
   * @throws IllegalArgumentException naming the bad value for any other text
   */
  public static Order parse(String s) {
    switch (java.util.Objects.requireNonNull(s, "s").toLowerCase(java.util.Locale.ROOT)) {
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

  /** "asc" or "desc", as {@link #parse} takes it. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
