package io.pagemark.server.resp;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * What a command sees while it runs on an event loop: the client it answers, where its reply goes, the loop's
 * buffers, the build the loop serves and the groups it has open, and the server. One per event loop; its
 * {@link #client} changes with every request.
 */
final class Session {
  final RespServer server;
  final EventLoop loop;
  final Reply out;
  final Scratch scratch = new Scratch();
  final LoopGroups groups;
  Connection client;

  Session(RespServer server, EventLoop loop, Reply out, LoopGroups groups) {
    this.server = server;
    this.loop = loop;
    this.out = out;
    this.groups = groups;
  }

  /** The group a key names in the served build, or null when there is none. */
  GroupView group(byte[] key) throws IOException {
    return groups.get(key);
  }

  ServedBuild build() {
    return groups.build();
  }

  /**
   * Makes the current client wait for a reply computed on another thread: its later requests stay queued until the
   * reply has been written by {@link #complete}.
   */
  void await() {
    client.awaiting++;
  }

  /** Delivers an awaited reply to {@code c} on this session's loop (callable from any thread). */
  void complete(Connection c, Consumer<Reply> reply) {
    loop.execute(() -> loop.completeAwaited(c, reply));
  }

  /** Continues the current reply a piece at a time (the reply so far stays in {@link #out}). */
  void continueWith(Connection.Continuation more) {
    client.more = more;
  }
}
