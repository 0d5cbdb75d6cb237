package io.pagemark.format.s3;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.RecordSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The objects of one index in S3, laid out as a file index is on disk ({@link IndexLayout}) under the location's
 * prefix. A build is written under {@code builds/ID/} with its {@code build.json} last, then published by one PUT of
 * {@code CURRENT} (S3 is strongly consistent: a reader that reads the new {@code CURRENT} then finds every object of
 * the build); a prefix under {@code builds/} without {@code build.json} is a build being written, or one abandoned.
 *
 * <p>Errors are the file system's types, so that callers treat both stores alike: {@link NoSuchFileException} for a
 * missing bucket, object or {@code CURRENT}, {@link AccessDeniedException} when S3 refuses the credentials,
 * {@link IndexFormatException} for a corrupt pointer or build, and an {@link IOException} naming the endpoint when S3
 * cannot be reached. Thread-safe; closing it closes its client.
 */
public final class S3IndexStore implements BuildCollector.Store, AutoCloseable {
  private static final int DELETE_BATCH = 1000;

  private final S3Location location;
  private final S3Client s3;
  private final S3Reads reads = new S3Reads();

  public S3IndexStore(S3Location location) {
    this.location = location;
    this.s3 = location.client();
  }

  public S3Location location() {
    return location;
  }

  /** The GETs this store has sent and the bytes they returned. */
  public S3Reads reads() {
    return reads;
  }

  /** The published build's id. */
  @Override
  public String currentBuildId() throws IOException {
    String id;
    try {
      id = new String(read(IndexLayout.CURRENT), StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      if (!(e.getCause() instanceof NoSuchKeyException)) {
        throw e; // no bucket
      }
      throw new NoSuchFileException(location.uri(IndexLayout.CURRENT), null,
          "no published build under this prefix (is it an index written by backfill --output=" + location + "?)");
    }
    try {
      return IndexLayout.checkBuildId(id);
    } catch (IllegalArgumentException e) {
      throw new IndexFormatException(location.uri(IndexLayout.CURRENT), "corrupt CURRENT pointer: " + e.getMessage());
    }
  }

  /** A build's {@code build.json}, checked to name that build. */
  public BuildInfo buildInfo(String id) throws IOException {
    String relative = buildPath(id, IndexLayout.BUILD_INFO);
    byte[] json;
    try {
      json = read(relative);
    } catch (NoSuchFileException e) {
      if (!(e.getCause() instanceof NoSuchKeyException)) {
        throw e; // no bucket
      }
      throw new NoSuchFileException(location.uri(relative), null, "build " + id + " not found");
    }
    BuildInfo info = BuildInfo.parse(location.uri(relative), json);
    if (!id.equals(info.buildId())) {
      throw new IndexFormatException(location.uri(relative), "says build " + info.buildId() + " but lives in " + id);
    }
    return info;
  }

  /** The path of a file of a build, relative to the index's prefix: {@code builds/ID/FILE}. */
  public static String buildPath(String id, String file) {
    return IndexLayout.BUILDS + "/" + IndexLayout.checkBuildId(id) + "/" + file;
  }

  /** A whole object (a pointer, build.json, a manifest). */
  public byte[] read(String relative) throws IOException {
    try {
      ResponseBytes<GetObjectResponse> r =
          s3.getObjectAsBytes(b -> b.bucket(location.bucket()).key(location.key(relative)));
      reads.record(r.asByteArrayUnsafe().length);
      return r.asByteArrayUnsafe();
    } catch (SdkException e) {
      throw failure("read", relative, e);
    }
  }

  /** A group file, read with ranged GETs ({@link S3RangeSource}); null when there is no such object. */
  public RecordSource openIfExists(String relative) throws IOException {
    try {
      return S3RangeSource.open(this, relative);
    } catch (NoSuchFileException e) {
      if (e.getCause() instanceof NoSuchKeyException) {
        return null;
      }
      throw e;
    }
  }

  /** Bytes of an object from {@code position} (at most {@code length}), and the object's size. */
  record Range(byte[] bytes, long objectSize) {}

  Range readRange(String relative, long position, int length) throws IOException {
    try {
      ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(b -> b.bucket(location.bucket())
          .key(location.key(relative)).range("bytes=" + position + "-" + (position + length - 1)));
      byte[] bytes = r.asByteArrayUnsafe();
      reads.record(bytes.length);
      return new Range(bytes, objectSize(r.response(), position, bytes.length));
    } catch (S3Exception e) {
      if (e.statusCode() == 416 && position == 0) {
        reads.record(0);
        return new Range(new byte[0], 0); // an empty object: GroupFile reports it as truncated
      }
      throw failure("read", relative, e);
    } catch (SdkException e) {
      throw failure("read", relative, e);
    }
  }

  /** From {@code Content-Range: bytes FIRST-LAST/SIZE}; a store that ignored the range sent the whole object. */
  private static long objectSize(GetObjectResponse r, long position, int got) {
    String range = r.contentRange();
    if (range != null && range.lastIndexOf('/') >= 0) {
      String total = range.substring(range.lastIndexOf('/') + 1).trim();
      if (!total.equals("*")) {
        return Long.parseLong(total);
      }
    }
    return r.contentLength() != null && position == 0 ? r.contentLength() : position + got;
  }

  /** Uploads a local file (one PUT). */
  public void put(String relative, Path file) throws IOException {
    try {
      s3.putObject(b -> b.bucket(location.bucket()).key(location.key(relative)), RequestBody.fromFile(file));
    } catch (SdkException e) {
      throw failure("write", relative, e);
    }
  }

  /** Writes an object (one PUT). */
  public void put(String relative, byte[] bytes) throws IOException {
    try {
      s3.putObject(b -> b.bucket(location.bucket()).key(location.key(relative)), RequestBody.fromBytes(bytes));
    } catch (SdkException e) {
      throw failure("write", relative, e);
    }
  }

  /** Copies an object of the index to another key of it, inside S3 (no bytes pass through this process). */
  public void copy(String fromRelative, String toRelative) throws IOException {
    try {
      s3.copyObject(b -> b.sourceBucket(location.bucket()).sourceKey(location.key(fromRelative))
          .destinationBucket(location.bucket()).destinationKey(location.key(toRelative)));
    } catch (SdkException e) {
      throw failure("copy", fromRelative, e);
    }
  }

  /**
   * Publishes a written build: checks that its {@code build.json} is there (the last object a build writes), then
   * points {@code CURRENT} at it with one PUT.
   */
  public void publish(String id) throws IOException {
    buildInfo(id);
    put(IndexLayout.CURRENT, (id + "\n").getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Publishes as {@link #publish} does only if {@code CURRENT} still names {@code expectedCurrent}; returns false,
   * publishing nothing, when it moved. S3 offers this client no compare-and-set, so a build published between the
   * check and the PUT is superseded (as with {@link IndexLayout#publishIfCurrent}); commits serialize among themselves.
   */
  public boolean publishIfCurrent(String id, String expectedCurrent) throws IOException {
    if (!expectedCurrent.equals(currentBuildId())) {
      return false;
    }
    publish(id);
    return true;
  }

  /** Published builds (those with a {@code build.json}), ids sorted (ids sort by time). */
  @Override
  public List<String> builds() throws IOException {
    List<String> ids = new ArrayList<>();
    for (String id : buildPrefixes()) {
      if (exists(buildPath(id, IndexLayout.BUILD_INFO))) {
        ids.add(id);
      }
    }
    ids.sort(null);
    return ids;
  }

  @Override
  public long createdAtMillis(String id) throws IOException {
    return buildInfo(id).createdAtMillis();
  }

  /**
   * Removes a build: its {@code build.json} first, so that a removal cut short leaves what {@link #partials} lists
   * and the next collection finishes.
   */
  @Override
  public void deleteBuild(String id) throws IOException {
    delete(List.of(location.key(buildPath(id, IndexLayout.BUILD_INFO))));
    deletePartial(id);
  }

  /** Builds being written or abandoned (no {@code build.json}), with the time their newest object was written. */
  @Override
  public Map<String, Long> partials() throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String id : buildPrefixes()) {
      if (!exists(buildPath(id, IndexLayout.BUILD_INFO))) {
        long newest = 0;
        for (S3Object o : list(IndexLayout.BUILDS + "/" + id + "/")) {
          newest = Math.max(newest, o.lastModified().toEpochMilli());
        }
        out.put(id, newest);
      }
    }
    return out;
  }

  /** Deletes every object under {@code builds/ID/}. */
  @Override
  public void deletePartial(String id) throws IOException {
    List<String> keys = new ArrayList<>();
    for (S3Object o : list(IndexLayout.BUILDS + "/" + IndexLayout.checkBuildId(id) + "/")) {
      keys.add(o.key());
      if (keys.size() == DELETE_BATCH) {
        delete(keys);
        keys.clear();
      }
    }
    delete(keys);
  }

  /** Every object under a path relative to the index's prefix. */
  public List<S3Object> list(String relativePrefix) throws IOException {
    List<S3Object> out = new ArrayList<>();
    try {
      for (ListObjectsV2Response page : s3.listObjectsV2Paginator(ListObjectsV2Request.builder()
          .bucket(location.bucket()).prefix(location.key(relativePrefix)).build())) {
        out.addAll(page.contents());
      }
    } catch (SdkException e) {
      throw failure("list", relativePrefix, e);
    }
    return out;
  }

  /** The ids under {@code builds/} (published or not). */
  private List<String> buildPrefixes() throws IOException {
    List<String> ids = new ArrayList<>();
    String builds = location.key(IndexLayout.BUILDS + "/");
    try {
      for (ListObjectsV2Response page : s3.listObjectsV2Paginator(ListObjectsV2Request.builder()
          .bucket(location.bucket()).prefix(builds).delimiter("/").build())) {
        for (CommonPrefix p : page.commonPrefixes()) {
          String id = p.prefix().substring(builds.length(), p.prefix().length() - 1);
          try {
            ids.add(IndexLayout.checkBuildId(id));
          } catch (IllegalArgumentException notABuild) {
            // something else stored beside the builds: not ours to list or remove
          }
        }
      }
    } catch (SdkException e) {
      throw failure("list", IndexLayout.BUILDS + "/", e);
    }
    return ids;
  }

  private boolean exists(String relative) throws IOException {
    try {
      s3.headObject(b -> b.bucket(location.bucket()).key(location.key(relative)));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (SdkException e) {
      throw failure("look for", relative, e);
    }
  }

  private void delete(List<String> keys) throws IOException {
    if (keys.isEmpty()) {
      return;
    }
    List<ObjectIdentifier> ids = keys.stream().map(k -> ObjectIdentifier.builder().key(k).build()).toList();
    try {
      DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket(location.bucket())
          .delete(Delete.builder().objects(ids).quiet(true).build()));
      if (r.hasErrors() && !r.errors().isEmpty()) {
        throw new IOException(location.where() + " did not delete " + r.errors().size() + " object(s) of " + location
            + ", e.g. " + r.errors().get(0).key() + ": " + r.errors().get(0).message());
      }
    } catch (SdkException e) {
      throw failure("delete", keys.get(0), e);
    }
  }

  /** The file system's exception type for what S3 answered, naming the object and what to do. */
  IOException failure(String what, String relative, SdkException e) {
    String uri = location.uri(relative);
    if (e instanceof NoSuchBucketException
        || (e instanceof S3Exception s && s.awsErrorDetails() != null
            && "NoSuchBucket".equals(s.awsErrorDetails().errorCode()))) {
      return (IOException) new NoSuchFileException(bucketUri(), null, "no such bucket in " + location.where()
          + " (create it, or check --index and --s3Endpoint)").initCause(e);
    }
    if (e instanceof NoSuchKeyException) {
      return (IOException) new NoSuchFileException(uri, null, "no such object").initCause(e);
    }
    if (e instanceof S3Exception s && s.statusCode() == 403) {
      return (IOException) new AccessDeniedException(uri, null, location.where() + " denied the request to " + what
          + " it (" + code(s) + "); check the credentials the AWS default chain finds and the bucket's policy")
          .initCause(e);
    }
    if (e instanceof SdkClientException) {
      return new IOException("cannot reach " + location.where() + " to " + what + " " + uri + ": " + e.getMessage()
          + (location.endpoint() == null ? "" : " (is the store running? check --s3Endpoint)"), e);
    }
    return new IOException(location.where() + " refused to " + what + " " + uri + ": " + e.getMessage(), e);
  }

  private String bucketUri() {
    return S3Location.SCHEME + location.bucket();
  }

  private static String code(S3Exception s) {
    return s.awsErrorDetails() != null && s.awsErrorDetails().errorCode() != null
        ? s.awsErrorDetails().errorCode() : "HTTP " + s.statusCode();
  }

  @Override
  public void close() {
    s3.close();
  }

  @Override
  public String toString() {
    return location.toString();
  }
}
