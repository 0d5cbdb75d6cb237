package io.pagemark.transforms.sink.file;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.beam.sdk.util.MimeTypes;

/**
 * The builds of an index on a Beam file system other than the local one (an object store such as S3), as the file
 * sink publishes and prunes them: a build is published when its {@code build.json} exists (written after every
 * other file of it) and {@code CURRENT} names it; a folder under {@code builds/} without {@code build.json} is a build
 * being written, or one abandoned. Pruning lists every file under {@code builds/}: for an index of millions of groups,
 * prune with {@code pagemark gc} instead ({@code --keepBuilds} large).
 */
final class FileSystemBuilds implements BuildCollector.Store {
  private final String root;

  FileSystemBuilds(String root) {
    this.root = root;
  }

  private String buildsDir() {
    return root + "/" + IndexLayout.BUILDS + "/";
  }

  /** Points {@code CURRENT} at a written build (one object, written after the build's build.json was checked). */
  void publish(String buildId) throws IOException {
    createdAtMillis(buildId);
    try (OutputStream out = Channels.newOutputStream(FileSystems.create(
        FileSystems.matchNewResource(root + "/" + IndexLayout.CURRENT, false), MimeTypes.TEXT))) {
      out.write((buildId + "\n").getBytes(StandardCharsets.US_ASCII));
    }
  }

  @Override
  public String currentBuildId() throws IOException {
    String id = new String(read(root + "/" + IndexLayout.CURRENT), StandardCharsets.US_ASCII).trim();
    try {
      return IndexLayout.checkBuildId(id);
    } catch (IllegalArgumentException e) {
      throw new IndexFormatException(root + "/" + IndexLayout.CURRENT, "corrupt CURRENT pointer: " + e.getMessage());
    }
  }

  @Override
  public List<String> builds() throws IOException {
    TreeSet<String> ids = new TreeSet<>();
    for (MatchResult.Metadata m : match(buildsDir() + "*/" + IndexLayout.BUILD_INFO)) {
      String id = idOf(m.resourceId());
      if (id != null) {
        ids.add(id);
      }
    }
    return new ArrayList<>(ids);
  }

  @Override
  public long createdAtMillis(String id) throws IOException {
    String file = buildsDir() + IndexLayout.checkBuildId(id) + "/" + IndexLayout.BUILD_INFO;
    return BuildInfo.parse(file, read(file)).createdAtMillis();
  }

  /** Removes {@code build.json} first, so that a removal cut short is finished by the next collection. */
  @Override
  public void deleteBuild(String id) throws IOException {
    delete(List.of(FileSystems.matchNewResource(
        buildsDir() + IndexLayout.checkBuildId(id) + "/" + IndexLayout.BUILD_INFO, false)));
    deletePartial(id);
  }

  @Override
  public Map<String, Long> partials() throws IOException {
    Map<String, Long> newest = new LinkedHashMap<>();
    Set<String> published = new HashSet<>();
    for (MatchResult.Metadata m : match(buildsDir() + "**")) {
      String id = idOf(m.resourceId());
      if (id == null) {
        continue;
      }
      if (m.resourceId().getFilename().equals(IndexLayout.BUILD_INFO)
          && m.resourceId().getCurrentDirectory().toString().equals(buildsDir() + id + "/")) {
        published.add(id);
      }
      newest.merge(id, m.lastModifiedMillis(), Math::max);
    }
    newest.keySet().removeAll(published);
    return newest;
  }

  @Override
  public void deletePartial(String id) throws IOException {
    deleteAll(buildsDir() + IndexLayout.checkBuildId(id) + "/**");
  }

  /** Deletes every file a glob matches. */
  static void deleteAll(String glob) throws IOException {
    List<ResourceId> files = new ArrayList<>();
    for (MatchResult.Metadata m : match(glob)) {
      files.add(m.resourceId());
    }
    delete(files);
  }

  /** The build id of a file under {@code builds/ID/}, or null. */
  private String idOf(ResourceId file) {
    String s = file.toString();
    if (!s.startsWith(buildsDir())) {
      return null;
    }
    String rest = s.substring(buildsDir().length());
    int slash = rest.indexOf('/');
    if (slash < 0) {
      return null;
    }
    try {
      return IndexLayout.checkBuildId(rest.substring(0, slash));
    } catch (IllegalArgumentException notABuild) {
      return null;
    }
  }

  private static List<MatchResult.Metadata> match(String glob) throws IOException {
    MatchResult r = FileSystems.match(glob, EmptyMatchTreatment.ALLOW);
    if (r.status() == MatchResult.Status.NOT_FOUND) {
      return Collections.emptyList();
    }
    return r.metadata();
  }

  private static void delete(List<ResourceId> files) throws IOException {
    if (!files.isEmpty()) {
      FileSystems.delete(files, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
    }
  }

  private static byte[] read(String file) throws IOException {
    try (InputStream in = Channels.newInputStream(FileSystems.open(FileSystems.matchNewResource(file, false)))) {
      return in.readAllBytes();
    } catch (java.io.FileNotFoundException e) {
      throw new NoSuchFileException(file, null, "not found");
    }
  }
}
