package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachedFlinkRpcTest {
  @TempDir Path dir;

  @Test
  void flinkLoadsItsRpcSystemFromTheCopyKeptInTheNamedDirectory() throws Exception {
    String before = System.getProperty(CachedFlinkRpc.DIR_PROPERTY);
    System.setProperty(CachedFlinkRpc.DIR_PROPERTY, dir.toString());
    try (RpcSystem rpc = RpcSystem.load(new Configuration())) {
      assertThat("Flink's own entry point picks this loader first", rpc, instanceOf(CachedFlinkRpc.Closing.class));
      assertThat(rpc.getMaximumMessageSizeInBytes(new Configuration()), greaterThan(0L));
    } finally {
      if (before == null) {
        System.clearProperty(CachedFlinkRpc.DIR_PROPERTY);
      } else {
        System.setProperty(CachedFlinkRpc.DIR_PROPERTY, before);
      }
    }
    List<Path> kept = files();
    assertThat(kept.size(), is(1));
    assertThat(kept.get(0).getFileName().toString(), containsString("flink-rpc-"));
  }

  @Test
  void theCopyIsKeptBetweenLoadsAndWrittenAgainWhenItDiffers() throws Exception {
    ClassLoader flink = RpcSystem.class.getClassLoader();
    Path jar = CachedFlinkRpc.copy(flink, dir);
    long written = Files.getLastModifiedTime(jar).toMillis();
    byte[] original = Files.readAllBytes(jar);
    Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(written - 60_000));
    assertThat("kept as it was", CachedFlinkRpc.copy(flink, dir), is(jar));
    assertThat(Files.getLastModifiedTime(jar).toMillis(), is(written - 60_000));

    try (RandomAccessFile damaged = new RandomAccessFile(jar.toFile(), "rw")) { // same size, one byte changed
      damaged.seek(original.length / 2);
      damaged.write(original[original.length / 2] ^ 0x5A);
    }
    assertThat(CachedFlinkRpc.copy(flink, dir), is(jar));
    assertThat("written again", Files.readAllBytes(jar), is(original));

    Files.write(jar, new byte[] {1, 2, 3}); // cut short
    assertThat(CachedFlinkRpc.copy(flink, dir), is(jar));
    assertThat(Files.readAllBytes(jar), is(original));
    assertThat("no partial copies left behind", files(), is(List.of(jar)));

    try (RpcSystem rpc = CachedFlinkRpc.load(dir.toString())) {
      assertThat(rpc.getClass().getName(), not(containsString("CleanupOnClose")));
    }
    assertThat("closing the RPC system keeps the copy", Files.exists(jar), is(true));
  }

  @Test
  void offLeavesTheRpcSystemToFlinksOwnLoader() {
    RpcLoaderException e = assertThrows(RpcLoaderException.class, () -> CachedFlinkRpc.load("off"));
    assertThat(e.getMessage(), containsString("pagemark.flinkRpc.dir=off"));
  }

  @Test
  void aDirectoryThatCannotBeWrittenLeavesItToFlinksOwnLoader() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
    assertThrows(RpcLoaderException.class, () -> CachedFlinkRpc.load(notADirectory.resolve("rpc").toString()));
  }

  private List<Path> files() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.collect(Collectors.toList());
    }
  }
}
