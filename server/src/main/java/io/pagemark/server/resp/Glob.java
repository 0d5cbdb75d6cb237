package io.pagemark.server.resp;

/**
 * Redis's glob patterns ({@code KEYS}, {@code SCAN MATCH}, {@code CONFIG GET}) over bytes: {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a-z]} and {@code \} to escape. Matched with one backtracking point (the last star), so a
 * hostile pattern costs at most pattern length times key length.
 */
final class Glob {
  private Glob() {}

  static boolean matches(byte[] p, byte[] s) {
    int pi = 0;
    int si = 0;
    int starP = -1;
    int starS = 0;
    while (si < s.length) {
      if (pi < p.length && p[pi] == '*') {
        starP = pi++;
        starS = si;
        continue;
      }
      int next = pi < p.length ? one(p, pi, s[si]) : -1;
      if (next >= 0) {
        pi = next;
        si++;
      } else if (starP >= 0) {
        pi = starP + 1;
        si = ++starS;
      } else {
        return false;
      }
    }
    while (pi < p.length && p[pi] == '*') {
      pi++;
    }
    return pi == p.length;
  }

  /** Where the pattern goes on if its element at {@code pi} matches byte {@code c}, else -1. */
  private static int one(byte[] p, int pi, byte c) {
    switch (p[pi]) {
      case '?':
        return pi + 1;
      case '[': {
        int i = pi + 1;
        boolean not = i < p.length && p[i] == '^';
        if (not) {
          i++;
        }
        boolean hit = false;
        while (i < p.length && p[i] != ']') {
          if (p[i] == '\\' && i + 1 < p.length) {
            i++;
            hit |= p[i] == c;
          } else if (i + 2 < p.length && p[i + 1] == '-' && p[i + 2] != ']') {
            int lo = Math.min(p[i] & 0xFF, p[i + 2] & 0xFF);
            int hi = Math.max(p[i] & 0xFF, p[i + 2] & 0xFF);
            hit |= (c & 0xFF) >= lo && (c & 0xFF) <= hi;
            i += 2;
          } else {
            hit |= p[i] == c;
          }
          i++;
        }
        return not != hit ? Math.min(i + 1, p.length) : -1;
      }
      case '\\':
        if (pi + 1 < p.length) {
          return p[pi + 1] == c ? pi + 2 : -1;
        }
        return c == '\\' ? pi + 1 : -1;
      default:
        return p[pi] == c ? pi + 1 : -1;
    }
  }
}
