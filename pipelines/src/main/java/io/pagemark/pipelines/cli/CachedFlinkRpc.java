package io.pagemark.pipelines.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.classloading.SubmoduleClassLoader;
import org.apache.flink.runtime.rpc.AddressResolution;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

/**
 * Loads Flink's RPC system from a copy kept between runs, ahead of Flink's own loader. Flink ships its RPC system
 * (Pekko and Scala, 22 MB) as a jar inside a jar, and its loader inflates it to a new temporary file at every start of
 * a local cluster (left behind when the JVM exits first), then loads it in a class loader of its own: 0.33 to 0.36 s
 * of a command's start-up on this machine, one core, measured alone (docs/build-speed.md, "Tenth round"). This loader
 * keeps the inflated jar in {@link #dir} under a name made of the entry's CRC-32 and size, checks the copy against both
 * before each use (reading 22 MB from the page cache: about 20 ms) and writes it again, atomically, when it is missing
 * or differs; the class loader is the same kind as Flink's, with Flink's classes as parent. Any failure (no writable
 * directory, the jar not inside a jar) throws, and Flink then uses its own loader, as without this one.
 */
public final class CachedFlinkRpc implements RpcSystemLoader {
  /** The system property naming the directory of the copy, or {@code off} for Flink's own loader. */
  public static final String DIR_PROPERTY = "pagemark.flinkRpc.dir";

  /** The resource Flink's loader inflates. */
  static final String RESOURCE = "flink-rpc-akka.jar";

  @Override
  public int getLoadPriority() {
    return -1; // before Flink's loader (0)
  }

  @Override
  public RpcSystem loadRpcSystem(Configuration config) {
    return load(dir());
  }

  /** The RPC system, from a copy in {@code dir} ({@code off}: throws, for Flink's own loader). */
  static RpcSystem load(String dir) {
    if ("off".equals(dir)) {
      throw new RpcLoaderException(DIR_PROPERTY + "=off: Flink's own loader inflates its RPC system");
    }
    try {
      ClassLoader flink = RpcSystem.class.getClassLoader();
      Path jar = copy(flink, Path.of(dir));
      SubmoduleClassLoader loader = new SubmoduleClassLoader(new URL[] {jar.toUri().toURL()}, flink);
      try {
        return new Closing(ServiceLoader.load(RpcSystem.class, loader).iterator().next(), loader);
      } catch (RuntimeException | Error e) {
        loader.close();
        throw e;
      }
    } catch (IOException e) {
      throw new RpcLoaderException("could not keep Flink's RPC system in " + dir, e);
    }
  }

  /** The directory of the copy: {@value #DIR_PROPERTY}, by default {@code ~/.cache/pagemark/flink-rpc}. */
  static String dir() {
    String dir = System.getProperty(DIR_PROPERTY);
    return dir != null ? dir
        : Path.of(System.getProperty("user.home"), ".cache", "pagemark", "flink-rpc").toString();
  }

  /** The copy of Flink's RPC jar in {@code dir}, written first when it is missing or not the jar {@code flink} has. */
  static Path copy(ClassLoader flink, Path dir) throws IOException {
    URL url = flink.getResource(RESOURCE);
    if (url == null) {
      throw new IOException(RESOURCE + " is not on the class path");
    }
    URLConnection connection = url.openConnection();
    if (!(connection instanceof JarURLConnection)) {
      throw new IOException(url + " is not inside a jar");
    }
    // the JVM's shared handle on the outer jar (caches on): an uncached connection would open one more per start and
    // leave it open when the copy is already there
    JarEntry entry = ((JarURLConnection) connection).getJarEntry();
    if (entry.getCrc() < 0 || entry.getSize() < 0) {
      throw new IOException(url + " names no CRC or size");
    }
    Path jar = dir.resolve(String.format("flink-rpc-%08x-%d.jar", entry.getCrc(), entry.getSize()));
    if (matches(jar, entry.getCrc(), entry.getSize())) {
      return jar;
    }
    Files.createDirectories(dir);
    Path partial = Files.createTempFile(dir, ".flink-rpc-", ".partial");
    try {
      try (InputStream in = connection.getInputStream()) {
        Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
      }
      if (!matches(partial, entry.getCrc(), entry.getSize())) {
        throw new IOException("the copy of " + url + " does not match its CRC-32 and size");
      }
      Files.move(partial, jar, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
    return jar;
  }

  /** Whether {@code file} exists with this size and CRC-32. */
  static boolean matches(Path file, long crc, long size) throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) != size) {
      return false;
    }
    CRC32 sum = new CRC32();
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        sum.update(buffer, 0, n);
      }
    }
    return sum.getValue() == crc;
  }

  /** The loaded RPC system, closing its class loader when it is closed (the copy stays for the next start). */
  static final class Closing implements RpcSystem {
    private final RpcSystem rpc;
    private final SubmoduleClassLoader loader;

    Closing(RpcSystem rpc, SubmoduleClassLoader loader) {
      this.rpc = rpc;
      this.loader = loader;
    }

    @Override
    public RpcServiceBuilder localServiceBuilder(Configuration config) {
      return rpc.localServiceBuilder(config);
    }

    @Override
    public RpcServiceBuilder remoteServiceBuilder(Configuration config, String externalAddress,
        String externalPortRange) {
      return rpc.remoteServiceBuilder(config, externalAddress, externalPortRange);
    }

    @Override
    public String getRpcUrl(String hostname, int port, String endpointName, AddressResolution addressResolution,
        Configuration config) throws UnknownHostException {
      return rpc.getRpcUrl(hostname, port, endpointName, addressResolution, config);
    }

    @Override
    public InetSocketAddress getInetSocketAddressFromRpcUrl(String url) throws Exception {
      return rpc.getInetSocketAddressFromRpcUrl(url);
    }

    @Override
    public long getMaximumMessageSizeInBytes(Configuration config) {
      return rpc.getMaximumMessageSizeInBytes(config);
    }

    @Override
    public void close() {
      try {
        rpc.close();
      } finally {
        try {
          loader.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
