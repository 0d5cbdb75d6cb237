package io.pagemark.pipelines.relay;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.DynamoOptions;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;

/**
 * {@code pagemark relay}: plays "Kinesis Data Streams for DynamoDB" for DynamoDB Local ({@link Relay}) until SIGTERM
 * or Ctrl-C, printing progress, then a summary; exit code 0 on such a stop.
 */
@Command(
    name = "relay",
    description = "Plays Kinesis Data Streams for DynamoDB for DynamoDB Local: puts the change records of a table's"
        + " DynamoDB stream on a Kinesis stream (kinesalite) until SIGTERM or Ctrl-C, then prints a summary.")
public final class RelayCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--table", required = true, paramLabel = "T", description = "The table whose changes to relay.")
  String table;

  @Option(names = "--stream", required = true, paramLabel = "NAME", description = "The Kinesis stream to put them on.")
  String stream;

  @Mixin DynamoOptions aws;

  @Option(names = "--kinesisEndpoint", paramLabel = "URL",
      description = "Kinesis endpoint, e.g. http://127.0.0.1:4567 for kinesalite (default: AWS).")
  String kinesisEndpoint;

  @Option(names = "--createStream", paramLabel = "SHARDS", defaultValue = "0",
      description = "Create the Kinesis stream first, with this many shards (0: it exists). Default: ${DEFAULT-VALUE}.")
  long createStream;

  @Option(names = "--progressSeconds", paramLabel = "S", defaultValue = "5",
      description = "Seconds between progress lines on stderr (0: none). Default: ${DEFAULT-VALUE}.")
  long progressSeconds;

  private final PrintStream out;
  private final PrintStream err;

  public RelayCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    int shards = (int) Cli.inRange(spec, "--createStream", createStream, 0, 1000);
    int progressSeconds = (int) Cli.inRange(spec, "--progressSeconds", this.progressSeconds, 0, 3600);
    DynamoConnection dynamo;
    KinesisConnection kinesis;
    try {
      dynamo = aws.connection();
      kinesis = new KinesisConnection(kinesisEndpoint, aws.region());
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
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
      err.println("pagemark relay: failed to start: " + Cli.rootMessage(e));
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
      err.println("pagemark relay: failed: " + Cli.rootMessage(e));
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
