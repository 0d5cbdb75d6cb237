package io.pagemark.pipelines.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.key.Json;
import io.pagemark.lookup.CursorRefusedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPage;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * {@code pagemark page}: prints the page's items as one JSON object on stdout, and what reading it cost on stderr. A
 * page of a union carries a signed {@code "next"} cursor when a cursor secret is configured, and {@code --cursor}
 * reads the page one names. Exit codes per {@link ExitCode}: 2 for bad options or a refused cursor, 3 for an unknown
 * group or a page past the end, 1 when the index or DynamoDB fails.
 */
@Command(
    name = "page",
    description = {
      "Prints the items of one page as one JSON object (items in DynamoDB's JSON), read with one Query from where the"
          + " index says the page starts, and what reading it cost on stderr.",
      "Exit code 3 when the group is not in the index or the page is past its end."
    })
public final class PageCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--table", required = true, paramLabel = "T", description = "The DynamoDB table.")
  String table;

  @Option(names = "--gsi", paramLabel = "G",
      description = "The global secondary index the index numbers pages of (none: the table's own keys).")
  String gsi;

  @Option(names = "--index", required = true, paramLabel = "DIR|redis://...|s3://...",
      description = "The index: its root directory, redis://HOST:PORT[/DB][?prefix=P],"
          + " redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P], s3://BUCKET/PREFIX, or"
          + " jdbc:postgresql://HOST:PORT/DB[?currentSchema=S].")
  String index;

  @Mixin S3EndpointOption s3;

  @Option(names = "--group", required = true, paramLabel = "G",
      description = "Group key: text for S groups, a decimal number for N, base64 for B. Give it more than once for"
          + " a page of the union of those groups (see docs/unions.md).")
  List<String> groups;

  @Option(names = "--page", paramLabel = "N", description = "The page, from 1 (required unless --cursor is given).")
  Long page;

  @Option(names = "--pageSize", paramLabel = "S",
      description = "Items per page, 1 to 1000000 (required unless --cursor is given).")
  Long pageSize;

  @Option(names = "--cursor", paramLabel = "C",
      description = "Read the page of the union of the --groups that a \"next\" cursor printed by page or lookup names"
          + " (it holds the page, its size and its order; needs the secret that signed it).")
  String cursor;

  @Mixin CursorSecretOption secret;

  @Option(names = "--order", paramLabel = "asc|desc", defaultValue = "asc",
      description = "asc: the GSI's order (ScanIndexForward=true); desc: the reverse. Default: ${DEFAULT-VALUE}.")
  Order order;

  @Option(names = "--freshPages", paramLabel = "K", defaultValue = "0",
      description = "Serve pages 1..K straight from DynamoDB, so items written since the build show there."
          + " Default: ${DEFAULT-VALUE}.")
  long freshPages;

  @Mixin DynamoOptions dynamo;

  @Option(names = "--build", paramLabel = "ID", description = "Read this build (default: the current one).")
  String build;

  private final PrintStream out;
  private final PrintStream err;

  public PageCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    UnionCursor cursors = secret.forPages(spec, cursor, groups.size());
    if (cursor == null) {
      Cli.inRange(spec, "--page", page, 1, Long.MAX_VALUE);
    }
    int size = cursor != null ? 0 : (int) Cli.inRange(spec, "--pageSize", pageSize, 1, PageReader.MAX_PAGE_SIZE);
    int fresh = (int) Cli.inRange(spec, "--freshPages", freshPages, 0, PageReader.MAX_PAGE_SIZE);
    DynamoConnection connection;
    try {
      connection = dynamo.connection();
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    if ((groups.size() > 1 || cursor != null) && fresh > 0) {
      throw Cli.usageError(spec, "--freshPages applies to one group's numbered pages, not to a union or a cursor");
    }
    ItemPage<Map<String, AttributeValue>> result = null;
    UnionPage<Map<String, AttributeValue>> union = null;
    try (Index opened = VerifyCommand.openIndex(s3.apply(index), build);
        DynamoDbClient client = connection.client()) {
      PageReader<Map<String, AttributeValue>> reader =
          (gsi == null ? PageReader.of(client, table, opened) : PageReader.of(client, table, gsi, opened))
              .withFreshPages(fresh);
      if (cursor != null) {
        union = reader.read(UnionJson.keys(opened, groups), cursor, cursors);
      } else if (groups.size() == 1) {
        result = reader.read(groups.get(0), page, size, order);
      } else {
        union = reader.read(UnionJson.keys(opened, groups), page, size, order);
      }
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    } catch (CursorRefusedException e) {
      throw Cli.usageError(spec, "--cursor is refused: " + e.getMessage());
    } catch (LookupException e) {
      err.println("pagemark page: " + e.getMessage());
      return ExitCode.NOT_FOUND;
    } catch (ResourceNotFoundException e) {
      err.println("pagemark page: table " + table + (gsi == null ? "" : " or its index " + gsi)
          + " does not exist in " + connection + " (" + e.awsErrorDetails().errorMessage() + ")");
      return ExitCode.FAILURE;
    } catch (DynamoDbException e) {
      err.println("pagemark page: " + connection + " refused the Query: " + e.awsErrorDetails().errorMessage()
          + " (do --table and --gsi name the table and index that --index was built from?)");
      return ExitCode.FAILURE;
    } catch (SdkException e) {
      err.println("pagemark page: cannot read from " + connection + ": " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (IOException e) {
      err.println("pagemark page: " + e);
      return ExitCode.FAILURE;
    }
    out.println(result != null ? toJson(result) : Json.write(UnionJson.page(union, cursors)));
    err.println(result != null ? summary(result) : UnionJson.summary(union));
    return ExitCode.OK;
  }

  /** The page command's JSON object. */
  public static String toJson(ItemPage<Map<String, AttributeValue>> p) {
    ObjectNode o = Json.object().put("group", p.group().text()).put("page", p.page()).put("pageSize", p.pageSize())
        .put("order", p.order().label()).put("count", p.count()).put("pages", p.pages()).put("build", p.buildId())
        .put("fresh", p.fresh()).put("stale", p.stale());
    ArrayNode items = o.putArray("items");
    p.items().forEach(item -> items.add(DynamoJson.itemJson(item)));
    return Json.write(o);
  }

  /** The cost report: one line. */
  static String summary(ItemPage<?> p) {
    return String.format(Locale.ROOT,
        "pagemark page: page %d of %d (%s, %s) of group %s: %d item%s, %d Query request%s, %.1f read capacity units"
            + " consumed%s",
        p.page(), p.pages(), p.order().label(), p.fresh() ? "fresh from DynamoDB" : "build " + p.buildId(),
        Json.quote(p.group().text()), p.items().size(), p.items().size() == 1 ? "" : "s", p.requests(),
        p.requests() == 1 ? "" : "s", p.consumedReadCapacity(),
        p.stale() ? "; stale: the group changed since the build" : "");
  }
}
