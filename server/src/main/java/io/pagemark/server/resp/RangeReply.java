package io.pagemark.server.resp;

import java.io.IOException;

/**
 * The reply to a range of a group: the array header, then each member (and its score, the ascending rank), produced
 * in pieces of about 64 kB so that a range of millions of members never sits whole in memory and other clients of the
 * loop are served in between. The group stays open (held) until the last piece is written.
 */
final class RangeReply implements Connection.Continuation {
  /** How the walk's positions map to ascending ranks. */
  enum Walk {
    /** Position i is rank i. */
    ASCENDING,
    /** Position i is the i-th entry of DynamoDB's descending order. */
    DESCENDING_POSITIONS,
    /** Ranks from {@code from} down to {@code to} (a score range, highest score first). */
    ASCENDING_REVERSED
  }

  static final int PIECE = 64 * 1024;

  private final GroupView group;
  private final Walk walk;
  private final long to;
  private final boolean withScores;
  private final LoopGroups groups;
  private final ServedBuild build;
  private long next;

  private RangeReply(GroupView group, Walk walk, long from, long to, boolean withScores, LoopGroups groups,
      ServedBuild build) {
    this.group = group;
    this.walk = walk;
    this.next = from;
    this.to = to;
    this.withScores = withScores;
    this.groups = groups;
    this.build = build;
  }

  /**
   * Replies with the members at walk positions {@code from} to {@code to} (both included; for
   * {@link Walk#ASCENDING_REVERSED} {@code from >= to}); continues on the connection if it does not fit one piece.
   */
  static void send(Session s, GroupView g, Walk walk, long from, long to, boolean withScores) throws IOException {
    long n = Math.abs(to - from) + 1;
    s.out.array(withScores ? 2 * n : n);
    RangeReply r = new RangeReply(g, walk, from, to, withScores, s.groups, s.build());
    if (!r.produce(s.out, s.scratch)) {
      s.groups.hold(g);
      if (!r.build.hold()) {
        throw new IllegalStateException("the served build was closed while a loop served it");
      }
      s.continueWith(r);
    }
  }

  @Override
  public boolean produce(Reply out, Scratch scratch) throws IOException {
    long count = group.count();
    switch (walk) {
      case ASCENDING:
        group.range(next, to, false);
        break;
      case DESCENDING_POSITIONS:
        group.range(count - 1 - to, count - 1 - next, true);
        break;
      default:
        group.range(to, next, true);
    }
    try {
      while (!done()) {
        if (out.size() >= PIECE) {
          return false;
        }
        long rank;
        switch (walk) {
          case ASCENDING:
            rank = next++;
            break;
          case DESCENDING_POSITIONS:
            rank = group.ascendingAt(next++);
            break;
          default:
            rank = next--;
        }
        int length = group.member(rank, scratch);
        out.bulk(scratch.array(), 0, length);
        if (withScores) {
          out.bulkNumber(rank);
        }
      }
      return true;
    } finally {
      group.endRange();
    }
  }

  private boolean done() {
    return walk == Walk.ASCENDING_REVERSED ? next < to : next > to;
  }

  @Override
  public void release() {
    groups.release(group);
    build.release();
  }
}
