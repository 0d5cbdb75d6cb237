package io.pagemark.transforms.sink.file;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.FileSync;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupFileFormat;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.beam.sdk.util.MimeTypes;

/**
 * Where the file sink writes one index's builds, and how it publishes them atomically for readers:
 *
 * <ul>
 *   <li>a local directory: files are written in place under {@code builds/.ID.partial/}, which is renamed to
 *       {@code builds/ID}, then {@code CURRENT} is replaced by a rename ({@link IndexLayout#publish});
 *   <li>any other Beam file system ({@code s3://BUCKET/PREFIX}, ...): each group file is written to a local temporary
 *       file (its header, with the count and checksum, is written after its records) and copied under
 *       {@code builds/ID/} through {@link FileSystems}; {@code build.json} is written after every other file of the
 *       build, and {@code CURRENT} last, one object each. An object store that is strongly consistent (S3 is) then
 *       shows a reader that read the new {@code CURRENT} every file of the build.
 * </ul>
 *
 * Immutable and serializable: the sink's steps each hold one.
 */
final class BuildOutput implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String root;
  private final boolean local;

  private BuildOutput(String root, boolean local) {
    this.root = root;
    this.local = local;
  }

  /**
   * The output at {@code root}: a plain path (made absolute now, so that every worker writes the same place), a
   * {@code file:} URI, or a URI of another Beam file system such as {@code s3://BUCKET/PREFIX}.
   */
  static BuildOutput of(String root) {
    if (root.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") && !root.startsWith("file:")) {
      String r = root;
      while (r.endsWith("/") && !r.endsWith("://")) {
        r = r.substring(0, r.length() - 1);
      }
      return new BuildOutput(r, false);
    }
    Path p = root.startsWith("file:") ? Path.of(java.net.URI.create(root)) : Path.of(root);
    return new BuildOutput(p.toAbsolutePath().normalize().toString(), true);
  }

  String root() {
    return root;
  }

  boolean isLocal() {
    return local;
  }

  private IndexLayout layout() {
    return new IndexLayout(Path.of(root));
  }

  /** Where a file of the build being written goes: a path inside the partial build, or a URI under the build. */
  String buildFile(String buildId, String relative) {
    if (local) {
      Path p = layout().partialBuild(buildId);
      for (String part : relative.split("/")) {
        p = p.resolve(part);
      }
      return p.toString();
    }
    return root + "/" + IndexLayout.BUILDS + "/" + IndexLayout.checkBuildId(buildId) + "/" + relative;
  }

  /** Where this build's dead letters go (beside its group files). */
  String deadLetterDirectory(String buildId) {
    return buildFile(buildId, IndexLayout.DEAD_LETTER);
  }

  /** Writes a whole group (or part) file at a local path, e.g. with {@link GroupFileWriter#write}. */
  interface GroupFileWrite {
    GroupHeader writeTo(Path file) throws IOException;
  }

  /** Writes a group (or part) file of the build being written; returns its finished header. */
  GroupHeader writeGroupFile(String buildId, String relative, GroupFileWrite write) throws IOException {
    if (local) {
      return write.writeTo(Path.of(buildFile(buildId, relative)));
    }
    Path staged = Files.createTempFile("pagemark-group-", ".pmi");
    try {
      GroupHeader done = write.writeTo(staged);
      try (OutputStream out = create(buildFile(buildId, relative))) {
        Files.copy(staged, out);
      }
      return done;
    } finally {
      Files.deleteIfExists(staged);
    }
  }

  /**
   * The format version of part files: version 1 on a local disk, where fixed-width records are the cheapest to write
   * and to read back; the writers' version elsewhere, where each part is uploaded and downloaded once and version 2's
   * records are several times smaller. {@link GroupFileWriter#join} reads either.
   */
  int partFormatVersion() {
    return local ? GroupFileFormat.VERSION_1 : GroupFileFormat.defaultVersion();
  }

  /** Opens a part file of the build being written (from another file system, through a local copy). */
  GroupFile openPart(String buildId, String relative) throws IOException {
    if (local) {
      return GroupFile.open(Path.of(buildFile(buildId, relative)));
    }
    Path copy = Files.createTempFile("pagemark-part-", ".pmi");
    try {
      try (InputStream in = Channels.newInputStream(
          FileSystems.open(FileSystems.matchNewResource(buildFile(buildId, relative), false)))) {
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      }
      return GroupFile.open(copy);
    } finally {
      Files.deleteIfExists(copy); // the open file stays readable until it is closed
    }
  }

  /** Writes a small text file (manifest, build.json) of the build being written. */
  void writeText(String buildId, String relative, String text) throws IOException {
    if (local) {
      Path p = Path.of(buildFile(buildId, relative));
      Files.createDirectories(p.getParent());
      Files.writeString(p, text, StandardCharsets.UTF_8);
      return;
    }
    try (OutputStream out = create(buildFile(buildId, relative))) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Opens a text file of the build being written for writing. */
  OutputStream createText(String buildId, String relative) throws IOException {
    if (local) {
      Path p = Path.of(buildFile(buildId, relative));
      Files.createDirectories(p.getParent());
      return Files.newOutputStream(p);
    }
    return create(buildFile(buildId, relative));
  }

  /** Removes the build's part files (joined into group files by now). */
  void deleteParts(String buildId) throws IOException {
    if (local) {
      PublishBuildFn.deleteTree(Path.of(buildFile(buildId, "parts")));
      return;
    }
    FileSystemBuilds.deleteAll(buildFile(buildId, "parts/**"));
  }

  /**
   * Makes the written build the index's current build, atomically for readers. On a local disk its files, written
   * without an fsync each ({@link FileSync#BY_CALLER}), are first synced all at once, so that a crash never
   * leaves {@code CURRENT} naming a build whose files did not reach the disk.
   */
  void publish(String buildId) throws IOException {
    if (local) {
      IndexLayout layout = layout();
      if (Files.isDirectory(layout.partialBuild(buildId))) { // a retried publish may find it moved already
        layout.syncPartialBuild(buildId);
      }
      layout.publish(buildId);
      return;
    }
    new FileSystemBuilds(root).publish(buildId);
  }

  /** Removes builds beyond the newest {@code keep} (never the current one, nor one younger than {@code grace}). */
  void prune(int keep, Duration grace) throws IOException {
    BuildCollector c = local ? new BuildCollector(layout()) : new BuildCollector(new FileSystemBuilds(root));
    c.collect(keep, grace, System.currentTimeMillis());
  }

  private static OutputStream create(String uri) throws IOException {
    ResourceId file = FileSystems.matchNewResource(uri, false);
    return Channels.newOutputStream(FileSystems.create(file, MimeTypes.BINARY));
  }

  @Override
  public String toString() {
    return "files at " + root;
  }
}
