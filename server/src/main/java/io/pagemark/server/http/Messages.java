package io.pagemark.server.http;

/** Keeps error messages readable when they quote what a client sent (a group of 1,000 bytes, say). */
final class Messages {
  private static final int MAX = 120;

  private Messages() {}

  /** The text, cut to its first 120 characters with "..." when longer. */
  static String shorten(String s) {
    if (s.length() <= MAX) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(MAX - 1)) ? MAX - 1 : MAX;
    return s.substring(0, end) + "...";
  }
}
