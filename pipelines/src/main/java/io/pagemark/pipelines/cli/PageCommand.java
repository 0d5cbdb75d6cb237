package io.pagemark.pipelines.cli;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.key.Json;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * {@code pagemark page --table=T --gsi=G --index=SPEC --group=G --page=N --pageSize=S [--order=asc|desc]
 * [--freshPages=K] [--dynamoEndpoint=URL] [--awsRegion=R] [--build=ID]}: prints the page's items as one JSON object
 * on stdout, and what reading it cost on stderr. Exit codes per {@link ExitCode}: 2 for bad options, 3 for an unknown
 * group or a page past the end, 1 when the index or DynamoDB fails.
 */
public final class PageCommand {
  static final Set<String> OPTIONS =
      Set.of("table", "gsi", "index", "group", "page", "pageSize", "order", "freshPages", "dynamoEndpoint",
          "awsRegion", "build", "s3Endpoint");
  static final String USAGE =
      "usage: pagemark page --table=T --gsi=G --index=DIR|redis://...|s3://... --group=G --page=N --pageSize=S"
          + " [--order=asc|desc] [--freshPages=K] [--dynamoEndpoint=URL] [--s3Endpoint=URL] [--awsRegion=R]"
          + " [--build=ID]";

  private PageCommand() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    Args args;
    String table;
    String gsi;
    String spec;
    String group;
    long page;
    int pageSize;
    int freshPages;
    Order order;
    DynamoConnection connection;
    try {
      args = Args.parse(argv, OPTIONS);
      table = args.required("table");
      gsi = args.get("gsi", null);
      spec = args.required("index");
      group = args.required("group");
      page = Args.number("page", args.required("page"), 1, Long.MAX_VALUE);
      pageSize = (int) Args.number("pageSize", args.required("pageSize"), 1, PageReader.MAX_PAGE_SIZE);
      freshPages = (int) Args.number("freshPages", args.get("freshPages", "0"), 0, PageReader.MAX_PAGE_SIZE);
      try {
        order = Order.parse(args.get("order", "asc"));
        connection = new DynamoConnection(args.get("dynamoEndpoint", null), args.get("awsRegion", null));
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException(e.getMessage());
      }
    } catch (Args.UsageException e) {
      return usage(err, e.getMessage());
    }
    ItemPage<Map<String, AttributeValue>> result;
    try (Index index = VerifyCommand.openIndex(spec, args.get("build", null), args.get("s3Endpoint", null));
        DynamoDbClient client = connection.client()) {
      PageReader<Map<String, AttributeValue>> reader =
          PageReader.of(client, table, gsi, index).withFreshPages(freshPages);
      result = reader.read(group, page, pageSize, order);
    } catch (IllegalArgumentException e) {
      return usage(err, e.getMessage());
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
    out.println(toJson(result));
    err.println(summary(result));
    return ExitCode.OK;
  }

  private static int usage(PrintStream err, String message) {
    err.println("pagemark page: " + message);
    err.println(USAGE);
    return ExitCode.USAGE;
  }

  /** The page command's JSON object. */
  public static String toJson(ItemPage<Map<String, AttributeValue>> p) {
    StringBuilder b = new StringBuilder();
    b.append("{\"group\":").append(Json.quote(p.group().text()))
        .append(",\"page\":").append(p.page())
        .append(",\"pageSize\":").append(p.pageSize())
        .append(",\"order\":\"").append(p.order().label()).append('"')
        .append(",\"count\":").append(p.count())
        .append(",\"pages\":").append(p.pages())
        .append(",\"build\":").append(Json.quote(p.buildId()))
        .append(",\"fresh\":").append(p.fresh())
        .append(",\"stale\":").append(p.stale())
        .append(",\"items\":[");
    for (int i = 0; i < p.items().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(DynamoJson.item(p.items().get(i)));
    }
    return b.append("]}").toString();
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
