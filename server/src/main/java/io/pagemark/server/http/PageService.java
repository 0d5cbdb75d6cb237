package io.pagemark.server.http;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.CursorRefusedException;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageMetrics;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionPage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * What both the JSON API and the web page ask of an index: a group's size, a page of its items (one
 * {@link PageReader} read, so one Query from the index's exclusive start key), the list of groups. Every answer comes
 * from one build, held for the whole call; every failure becomes an {@link HttpFailure} with the status the API
 * documents (400 bad input, 404 unknown group, build or page, 503 when DynamoDB or the store fails).
 */
final class PageService {
  private static final Logger LOG = LoggerFactory.getLogger(PageService.class);
  /** The home page lists at most this many groups (the first in DynamoDB's key order). */
  static final int MAX_LISTED_GROUPS = 1000;

  private final Builds builds;
  private final DynamoDbClient client;
  private final ServeConfig config;
  private final PageMetrics metrics;
  private volatile Listing listing;

  PageService(Builds builds, DynamoDbClient client, ServeConfig config, PageMetrics metrics) {
    this.builds = builds;
    this.client = client;
    this.config = config;
    this.metrics = metrics;
  }

  /** A page request over a union of groups, checked as {@link PageRequest} is. */
  record UnionRequest(List<String> groups, long page, int size, Order order, String build) {}

  /** Reads a page of a union of groups: one Query per group with items on it, merged. */
  UnionPage<Map<String, AttributeValue>> unionPage(UnionRequest r) throws HttpFailure {
    return readUnion(r.groups(), r.build(), (reader, keys) -> reader.read(keys, r.page(), r.size(), r.order()));
  }

  /**
   * Reads the page of a union of groups that a cursor names (one this server, or one with its secret, handed out);
   * a cursor it refuses is a 400.
   */
  UnionPage<Map<String, AttributeValue>> unionPage(List<String> groups, String cursor, String build)
      throws HttpFailure {
    return readUnion(groups, build, (reader, keys) -> reader.read(keys, cursor, config.cursors()));
  }

  private interface UnionReadFn {
    UnionPage<Map<String, AttributeValue>> read(PageReader<Map<String, AttributeValue>> reader, List<KeyValue> keys)
        throws LookupException, IOException;
  }

  private UnionPage<Map<String, AttributeValue>> readUnion(List<String> groups, String build, UnionReadFn read)
      throws HttpFailure {
    if (groups.isEmpty()) {
      throw HttpFailure.badRequest("a union needs at least one group parameter (group=A&group=B)");
    }
    try (Builds.Lease lease = lease(build)) {
      Index index = lease.index();
      List<KeyValue> keys = new ArrayList<>();
      for (String g : groups) {
        keys.add(UrlText.group(index.groupType(), g));
      }
      PageReader<Map<String, AttributeValue>> reader =
          (config.gsi() == null ? PageReader.of(client, config.table(), index)
              : PageReader.of(client, config.table(), config.gsi(), index)).withMetrics(metrics);
      return read.read(reader, keys);
    } catch (IllegalArgumentException e) {
      throw HttpFailure.badRequest(e.getMessage()); // a group given twice, or too many
    } catch (GroupRepublishedException e) {
      throw HttpFailure.unavailable("a group was republished under each read of the union; try again", e);
    } catch (CursorRefusedException e) {
      throw HttpFailure.badRequest("cursor is refused: " + e.getMessage());
    } catch (LookupException e) {
      throw HttpFailure.notFound(e.getMessage());
    } catch (IOException e) {
      throw storeFailed(e);
    } catch (SdkException e) {
      throw dynamoFailed(e);
    }
  }

  /** A group's size in one build. */
  record GroupSize(KeyValue group, long count, String build) {}

  /** A page request, checked: page from 1, size within the server's limits. */
  record PageRequest(String group, long page, int size, Order order, String build) {}

  ServeConfig config() {
    return config;
  }

  /** Reads a page: the index places it, DynamoDB returns its items. */
  ItemPage<Map<String, AttributeValue>> page(PageRequest r) throws HttpFailure {
    for (int attempt = 1; ; attempt++) {
      try (Builds.Lease lease = lease(r.build())) {
        Index index = lease.index();
        KeyValue key = UrlText.group(index.groupType(), r.group());
        PageReader<Map<String, AttributeValue>> reader =
            (config.gsi() == null ? PageReader.of(client, config.table(), index)
                : PageReader.of(client, config.table(), config.gsi(), index))
                .withFreshPages(config.freshPages()).withMetrics(metrics);
        return reader.read(key, r.page(), r.size(), r.order());
      } catch (GroupRepublishedException e) {
        if (attempt == 2) {
          throw HttpFailure.unavailable("the group was republished twice while it was read; try again", e);
        }
      } catch (LookupException e) {
        throw HttpFailure.notFound(e.getMessage());
      } catch (IOException e) {
        throw storeFailed(e);
      } catch (SdkException e) {
        throw dynamoFailed(e);
      }
    }
  }

  /**
   * The build and page count that would answer a page request, without reading DynamoDB (to answer a conditional
   * request with 304). Fails as {@link #page} does for an unknown group or a page out of range.
   */
  GroupSize placement(PageRequest r) throws HttpFailure {
    GroupSize g = size(r.group(), r.build());
    long pages = (g.count() + r.size() - 1) / r.size();
    if (r.page() > pages) {
      throw HttpFailure.notFound("group " + g.group() + " has " + pages + " page" + (pages == 1 ? "" : "s") + " of "
          + r.size() + "; page " + r.page() + " is out of range");
    }
    return g;
  }

  /** A group's item count, in the current build or a pinned one. */
  GroupSize size(String groupText, String build) throws HttpFailure {
    for (int attempt = 1; ; attempt++) {
      try (Builds.Lease lease = lease(build)) {
        KeyValue key = UrlText.group(lease.index().groupType(), groupText);
        try (GroupPages g = lease.index().group(key)) {
          return new GroupSize(key, g.count(), g.buildId());
        }
      } catch (GroupRepublishedException e) {
        if (attempt == 2) {
          throw HttpFailure.unavailable("the group was republished twice while it was read; try again", e);
        }
      } catch (GroupNotFoundException e) {
        throw HttpFailure.notFound(e.getMessage());
      } catch (IOException e) {
        throw storeFailed(e);
      }
    }
  }

  /** The current build's groups with their counts, the first {@value #MAX_LISTED_GROUPS} in key order. */
  Listing groups() throws HttpFailure {
    try (Builds.Lease lease = builds.current()) {
      Index index = lease.index();
      Listing cached = listing;
      if (cached != null && cached.build().equals(index.buildId())) {
        return cached;
      }
      List<KeyValue> all = new ArrayList<>(index.groups());
      all.sort(KeyValue.ORDER);
      List<GroupSize> listed = new ArrayList<>();
      for (KeyValue k : all.subList(0, Math.min(all.size(), MAX_LISTED_GROUPS))) {
        try (GroupPages g = index.group(k)) {
          listed.add(new GroupSize(k, g.count(), g.buildId()));
        } catch (GroupNotFoundException removedSinceListed) {
          // a store that publishes group by group may drop one between the listing and this read
        }
      }
      Listing fresh = new Listing(index.buildId(), index.groupAttribute(), List.copyOf(listed), all.size());
      listing = fresh;
      return fresh;
    } catch (IOException e) {
      throw storeFailed(e);
    }
  }

  /** The home page's groups: at most {@value #MAX_LISTED_GROUPS} of {@code total}. */
  record Listing(String build, String groupAttribute, List<GroupSize> groups, long total) {}

  /** The names of the index's key attributes, for the web page's columns (group key, then sort key). */
  List<String> keyAttributes(String build) throws HttpFailure {
    try (Builds.Lease lease = lease(build)) {
      return List.of(lease.index().groupAttribute(), lease.index().sortAttribute());
    } catch (IOException e) {
      throw storeFailed(e);
    }
  }

  /** The current build's id, or a 503 when the index cannot be opened. */
  String currentBuild() throws HttpFailure {
    try (Builds.Lease lease = builds.current()) {
      return lease.index().buildId();
    } catch (IOException e) {
      throw storeFailed(e);
    }
  }

  private Builds.Lease lease(String build) throws IOException, HttpFailure {
    if (build == null) {
      return builds.current();
    }
    try {
      return builds.pinned(build);
    } catch (Builds.UnknownBuildException e) {
      throw HttpFailure.notFound(e.getMessage());
    }
  }

  private HttpFailure storeFailed(IOException e) {
    LOG.warn("index {} failed: {}", config.index(), e.toString());
    return HttpFailure.unavailable("the index " + config.index() + " cannot be read: " + e.getMessage(), e);
  }

  private HttpFailure dynamoFailed(SdkException e) {
    LOG.warn("DynamoDB failed: {}", e.toString());
    String where = config.dynamo().toString();
    if (e instanceof ResourceNotFoundException) {
      return HttpFailure.unavailable("table " + config.table() + (config.gsi() == null ? "" : " or its index "
          + config.gsi()) + " does not exist in " + where + "; check the server's --table and --gsi", e);
    }
    if (e instanceof DynamoDbException && ((DynamoDbException) e).awsErrorDetails() != null) {
      return HttpFailure.unavailable(where + " refused the Query: "
          + ((DynamoDbException) e).awsErrorDetails().errorMessage(), e);
    }
    return HttpFailure.unavailable("cannot read from " + where + ": " + e.getMessage(), e);
  }
}
