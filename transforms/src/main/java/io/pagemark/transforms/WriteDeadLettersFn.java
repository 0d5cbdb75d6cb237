package io.pagemark.transforms;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.ResolveOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Writes one shard of dead letters, sorted so that two builds write the same file, and outputs its line count. The
 * directory is a local path or a URI of any Beam file system ({@code s3://...}).
 */
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
    var file = FileSystems.matchNewResource(directory, true)
        .resolve(String.format("part-%05d.jsonl", shard.getKey()), ResolveOptions.StandardResolveOptions.RESOLVE_FILE);
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
        Channels.newOutputStream(FileSystems.create(file, "application/json")), StandardCharsets.UTF_8))) {
      for (String l : lines) {
        w.write(l);
        w.write('\n');
      }
    }
    out.output((long) lines.size());
  }
}
