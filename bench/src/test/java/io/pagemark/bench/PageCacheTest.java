package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Runs the real dd and fincore on a file in target/ (a disk-backed file system, unlike a tmpfs /tmp). */
class PageCacheTest {
  @Test
  void evictsOneFileFromThePageCache() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "page-cache-test"));
    Path file = dir.resolve("f.bin");
    byte[] data = new byte[4 << 20];
    new Random(1).nextBytes(data);
    Files.write(file, data);
    Files.readAllBytes(file);
    assertThat(PageCache.residentPages(file), is(greaterThan(0L)));
    PageCache.evict(file);
    assertThat(PageCache.residentPages(file), is(0L));
    Files.delete(file);
  }
}
