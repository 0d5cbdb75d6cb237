package io.pagemark.pipelines.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.CursorRefusedException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPages;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark lookup}: prints one JSON object per requested page, in the order asked, the same for every
 * backend. Every page is resolved before anything is printed, so a page out of range prints nothing on stdout (exit
 * code 3). A union's line carries the signed cursor of its next page when a cursor secret is configured, and
 * {@code --cursor} prints the line of the page one names (a refused cursor: exit code 2).
 */
@Command(
    name = "lookup",
    description = {
      "Prints where pages start: one JSON line per page, in the order asked, with the exclusiveStartKey of the Query"
          + " on the GSI that reads the page (skip: items to drop from its start).",
      "With --group given more than once, each line is a page of the union of the groups: one start per group"
          + " (exclusiveStartKey, skip, take), to be merged by sort key, then group key.",
      "Exit code 3, and nothing on stdout, when the group is not in the index or a page is out of range."
    })
public final class LookupCommand implements Callable<Integer> {
  /** DynamoDB reads at most 1 MB a request; a page is at most what one Query can be asked for. */
  static final int MAX_PAGE_SIZE = 1_000_000;
  static final int REPUBLISHED_ATTEMPTS = 3;

  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR|redis://HOST:PORT[/DB][?prefix=P]|s3://BUCKET/PREFIX",
      description = "The index: its root directory, the Redis database (redis://) or Redis Cluster"
          + " (redis-cluster://HOST:PORT[,HOST:PORT...]) that holds it (prefix: its key prefix, when it holds several"
          + " indexes), its S3 prefix (see --s3Endpoint), or a PostgreSQL index:"
          + " jdbc:postgresql://HOST:PORT/DB[?currentSchema=S].")
  String index;

  @Mixin S3EndpointOption s3;

  @Option(names = "--group", required = true, paramLabel = "G",
      description = "Group key: text for S groups, a decimal number for N, base64 for B. Give it more than once for"
          + " the union of those groups (one Query per group a page; see docs/unions.md).")
  List<String> groups;

  @Option(names = "--page", paramLabel = "N[,N...]",
      description = "Page numbers, from 1; one line each, in this order (required unless --cursor is given).")
  String pages;

  @Option(names = "--pageSize", paramLabel = "S",
      description = "Items per page, 1 to 1000000 (required unless --cursor is given).")
  Long pageSize;

  @Option(names = "--cursor", paramLabel = "C",
      description = "Print where the page of the union of the --groups starts that a \"next\" cursor names (it holds"
          + " the page, its size and its order; needs the secret that signed it).")
  String cursor;

  @Mixin CursorSecretOption secret;

  @Option(names = "--order", paramLabel = "asc|desc", defaultValue = "asc",
      description = "asc: the GSI's order (ScanIndexForward=true); desc: the reverse. Default: ${DEFAULT-VALUE}.")
  Order order;

  @Option(names = "--build", paramLabel = "ID", description = "Read this build (default: the current one).")
  String build;

  private final PrintStream out;
  private final PrintStream err;

  public LookupCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    UnionCursor cursors = secret.forPages(spec, cursor, groups.size());
    List<Long> pageNumbers = cursor != null ? List.of() : Cli.wholeNumbers(spec, "--page", pages, 1, Long.MAX_VALUE);
    int size = cursor != null ? 0 : (int) Cli.inRange(spec, "--pageSize", pageSize, 1, MAX_PAGE_SIZE);
    List<String> lines;
    try (Index opened = open()) {
      lines = groups.size() == 1 && cursor == null
          ? pageStarts(opened, groups.get(0), pageNumbers, size, order)
          : unionStarts(opened, groups, pageNumbers, size, order, cursors);
    } catch (CursorRefusedException e) {
      throw Cli.usageError(spec, "--cursor is refused: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage()); // a page size the index does not hold (page markers)
    } catch (LookupException e) {
      err.println("pagemark lookup: " + e.getMessage());
      return ExitCode.NOT_FOUND;
    } catch (IOException e) {
      err.println("pagemark lookup: " + e);
      return ExitCode.FAILURE;
    }
    lines.forEach(out::println);
    return ExitCode.OK;
  }

  private Index open() throws IOException {
    try {
      return VerifyCommand.openIndex(s3.apply(index), build);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage()); // a malformed --index URI or --build id
    }
  }

  /**
   * Every requested page's line. A backend that publishes group by group (Redis) may replace the group while it is
   * read; the lookup then starts over on the new build, a few times at most.
   */
  private static List<String> pageStarts(Index index, String group, List<Long> pages, int pageSize, Order order)
      throws IOException, LookupException {
    for (int attempt = 1; ; attempt++) {
      List<String> lines = new ArrayList<>();
      try (GroupPages g = openGroup(index, group)) {
        for (long page : pages) {
          lines.add(toJson(g.pageStart(page, pageSize, order)));
        }
        return lines;
      } catch (GroupRepublishedException e) {
        if (attempt >= REPUBLISHED_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * As {@link #pageStarts}, for a union of groups: one line per page (or one for the page {@code --cursor} names),
   * one start per group, and the next page's cursor when {@code cursors} is given.
   */
  private List<String> unionStarts(Index index, List<String> groups, List<Long> pages, int pageSize, Order order,
      UnionCursor cursors) throws IOException, LookupException {
    List<KeyValue> keys = UnionJson.keys(index, groups);
    for (int attempt = 1; ; attempt++) {
      List<String> lines = new ArrayList<>();
      try (UnionPages union = openUnion(index, keys)) {
        if (cursor != null) {
          // checked against the groups and the build the union reads, which may be newer than the index's
          UnionCursor.Position p = cursors.decode(cursor, union.groups(), union.buildId());
          lines.add(Json.write(UnionJson.start(union.pageStart(p.page(), p.pageSize(), p.order()), cursors)));
        }
        for (long page : pages) {
          lines.add(Json.write(UnionJson.start(union.pageStart(page, pageSize, order), cursors)));
        }
        return lines;
      } catch (GroupRepublishedException e) {
        if (attempt >= REPUBLISHED_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private UnionPages openUnion(Index index, List<KeyValue> keys) throws IOException {
    try {
      return index.union(keys);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage()); // a group given twice, or too many
    }
  }

  private static GroupPages openGroup(Index index, String group) throws IOException, LookupException {
    try {
      return index.group(group);
    } catch (IllegalArgumentException e) {
      throw new LookupException("group \"" + group + "\" cannot be a key of this index: " + e.getMessage());
    }
  }

  /** The lookup contract's JSON line for a page start. */
  public static String toJson(PageStart p) {
    ObjectNode line = Json.object().put("group", p.group().text()).put("page", p.page())
        .put("pageSize", p.pageSize()).put("order", p.order().label()).put("count", p.count())
        .put("pages", p.pages());
    line.set("exclusiveStartKey", DynamoJson.key(p.exclusiveStartKey()));
    return Json.write(line.put("skip", p.skip()));
  }
}
