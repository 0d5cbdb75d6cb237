package io.pagemark.transforms.sink.file;

import io.pagemark.transforms.source.RecordRef;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Writes one flush of dead letters as a new file {@code wal/deadletter/dl-T-R.jsonl} (renamed into place), then names
 * their records.
 */
final class WriteWalDeadLettersFn extends DoFn<KV<Integer, Iterable<KV<RecordRef, String>>>, RecordRef> {
  private final String root;

  WriteWalDeadLettersFn(String root) {
    this.root = root;
  }

  @ProcessElement
  public void process(@Element KV<Integer, Iterable<KV<RecordRef, String>>> shard, OutputReceiver<RecordRef> out)
      throws IOException {
    List<String> lines = new ArrayList<>();
    List<RecordRef> records = new ArrayList<>();
    for (KV<RecordRef, String> l : shard.getValue()) {
      records.add(l.getKey());
      lines.add(l.getValue());
    }
    if (lines.isEmpty()) {
      return;
    }
    Path dir = new Wal(Path.of(root)).deadLetterDir();
    Files.createDirectories(dir);
    String name = Wal.newSegmentName().replace("s-", "dl-").replace(WalSegment.SUFFIX, ".jsonl");
    Path tmp = dir.resolve("." + name + ".tmp");
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    records.forEach(out::output);
  }
}
