// Preloaded into kinesalite's node process (node --require keep-serving.js .../kinesalite/cli.js) by Kinesalite.java.
//
// kinesalite 3.3.3 rethrows the 'error' event of every incoming request. When a client closes its connection before
// it has sent a whole request (a test process killed with SIGKILL, a Flink job cancelled, an SDK call that timed out
// while sending a PutRecords body), Node reports the request as aborted, the rethrown error is uncaught, and the
// whole server exits: every later test of the JVM then gets "Connection refused". Such an error concerns one request
// whose client is gone, so it is logged and dropped; any other uncaught error still ends the process, as before.
'use strict';

process.on('uncaughtException', (err, origin) => {
  if (err && err.code === 'ECONNRESET' && err.message === 'aborted') {
    console.error(`${new Date().toISOString()} a client disconnected in the middle of a request; request dropped`);
    return;
  }
  console.error(`${new Date().toISOString()} kinesalite: ${origin}:`, err);
  process.exit(70);
});
