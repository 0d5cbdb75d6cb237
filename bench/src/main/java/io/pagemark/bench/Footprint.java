package io.pagemark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Figure 5, footprint: bytes per entry on disk of the deep group's file (header included) against the raw bytes of
 * the key values each entry stores (sort key and table key, UTF-8, no framing). The fixed-width record pays for its
 * O(1) rank lookup with padding to the widest record plus 12 bytes of tie fields and 2-byte lengths.
 *
 * <p>Extension point: Redis memory per member of the same entries joins here once the Redis sink is built.
 */
final class Footprint implements Bench {
  static final String NAME = "index bytes per entry on disk, demo comments, vs raw key bytes";

  @Override
  public String id() {
    return "footprint";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(NAME);
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    Path file = LookupLatency.groupFile(table);
    double perEntry = Files.size(file) / (double) table.items();
    double raw = table.rawKeyBytes() / (double) table.items();
    context.report(new Figure(NAME, perEntry, "bytes", "the entry's sort key and table key bytes (UTF-8)", raw,
        "bytes", String.format("group file of %,d demo comments (%,d bytes)", table.items(), Files.size(file))));
  }
}
