package io.pagemark.pipelines.relay;

import io.pagemark.pipelines.stream.StreamCommand;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;

/**
 * {@code pagemark relay}: plays "Kinesis Data Streams for DynamoDB" for DynamoDB Local ({@link Relay}) until SIGTERM
 * or Ctrl-C, printing progress, then a summary; exit code 0 on such a stop.
 */
public final class RelayCommand {
  static final Set<String> OPTIONS =
      Set.of("table", "stream", "dynamoEndpoint", "kinesisEndpoint", "awsRegion", "createStream", "progressSeconds");
  static final String USAGE =
      "usage: pagemark relay --table=T --stream=NAME [--dynamoEndpoint=URL] [--kinesisEndpoint=URL] [--awsRegion=R]"
          + " [--createStream=SHARDS] [--progressSeconds=5]";

  private RelayCommand() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    String table;
    String stream;
    DynamoConnection dynamo;
    KinesisConnection kinesis;
    int shards;
    int progressSeconds;
    try {
      Args a = Args.parse(argv, OPTIONS);
      table = a.required("table");
      stream = a.required("stream");
      shards = (int) Args.number("createStream", a.get("createStream", "0"), 0, 1000);
      progressSeconds = (int) Args.number("progressSeconds", a.get("progressSeconds", "5"), 0, 3600);
      try {
        dynamo = new DynamoConnection(a.get("dynamoEndpoint", null), a.get("awsRegion", null));
        kinesis = new KinesisConnection(a.get("kinesisEndpoint", null), a.get("awsRegion", null));
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException(e.getMessage());
      }
    } catch (Args.UsageException e) {
      err.println("pagemark relay: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    Relay relay;
    try {
      if (shards > 0) {
        try (KinesisClient k = kinesis.client()) {
          k.createStream(b -> b.streamName(stream).shardCount(shards));
          k.waiter().waitUntilStreamExists(b -> b.streamName(stream));
        } catch (ResourceInUseException e) {
          // it exists
        }
      }
      relay = Relay.start(dynamo, table, kinesis, stream, Relay.Options.PLAIN);
    } catch (RuntimeException e) {
      err.println("pagemark relay: failed to start: " + StreamCommand.rootMessage(e));
      return ExitCode.FAILURE;
    }
    err.println("pagemark relay: relaying the stream of table " + table + " into " + stream + " at " + kinesis
        + "; SIGTERM or Ctrl-C stops it");
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.countDown();
      try {
        stopped.await(15, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Runtime.getRuntime().halt(ExitCode.OK);
    }, "pagemark-relay-stop"));
    try {
      while (!stop.await(Math.max(1, progressSeconds), TimeUnit.SECONDS)) {
        if (progressSeconds > 0) {
          err.println("relay: " + relay.summary());
        }
        relay.checkHealthy();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IllegalStateException e) {
      err.println("pagemark relay: failed: " + StreamCommand.rootMessage(e));
      relay.close();
      return ExitCode.FAILURE;
    }
    relay.close();
    out.println("pagemark relay: stopped; " + relay.summary());
    out.flush();
    stopped.countDown();
    return ExitCode.OK;
  }
}
