package io.pagemark.transforms;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/** Writes one shard of dead letters, sorted so that two builds write the same file, and outputs its line count. */
final class WriteDeadLettersFn extends DoFn<KV<Integer, Iterable<String>>, Long> {
  private final String directory;

  WriteDeadLettersFn(String directory) {
    this.directory = directory;
  }

  @ProcessElement
  public void process(@Element KV<Integer, Iterable<String>> shard, OutputReceiver<Long> out) throws IOException {
    List<String> lines = new ArrayList<>();
    shard.getValue().forEach(lines::add);
    lines.sort(null);
    Path dir = Path.of(directory);
    Files.createDirectories(dir);
    Path file = dir.resolve(String.format("part-%05d.jsonl", shard.getKey()));
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (String l : lines) {
        w.write(l);
        w.write('\n');
      }
    }
    out.output((long) lines.size());
  }
}
