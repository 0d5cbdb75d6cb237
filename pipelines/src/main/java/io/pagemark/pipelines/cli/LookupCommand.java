package io.pagemark.pipelines.cli;

import io.pagemark.key.Json;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code pagemark lookup --index=DIR|redis://HOST:PORT[/DB][?prefix=P] --group=G --page=N[,N...] --pageSize=S
 * [--order=asc|desc] [--build=ID]}: prints one JSON object per requested page, in the order asked, the same for every
 * backend. Every page is resolved before anything is printed, so a page out of range prints nothing on stdout (exit
 * code 3).
 */
public final class LookupCommand {
  static final Set<String> OPTIONS = Set.of("index", "group", "page", "pageSize", "order", "build", "s3Endpoint");
  /** DynamoDB reads at most 1 MB a request; a page is at most what one Query can be asked for. */
  static final int MAX_PAGE_SIZE = 1_000_000;
  static final int REPUBLISHED_ATTEMPTS = 3;

  private LookupCommand() {}

  static final String USAGE =
      "usage: pagemark lookup --index=DIR|redis://HOST:PORT[/DB][?prefix=P]|s3://BUCKET/PREFIX --group=G"
          + " --page=N[,N...] --pageSize=S [--order=asc|desc] [--build=ID] [--s3Endpoint=URL]";

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    try {
      Args args = Args.parse(argv, OPTIONS);
      String spec = args.required("index");
      String group = args.required("group");
      List<Long> pages = Args.numbers("page", args.required("page"), 1, Long.MAX_VALUE);
      int pageSize = (int) Args.number("pageSize", args.required("pageSize"), 1, MAX_PAGE_SIZE);
      Order order;
      try {
        order = Order.parse(args.get("order", "asc"));
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException(e.getMessage());
      }
      List<String> lines;
      try (Index index = open(spec, args.get("build", null), args.get("s3Endpoint", null))) {
        lines = pageStarts(index, group, pages, pageSize, order);
      }
      lines.forEach(out::println);
      return ExitCode.OK;
    } catch (Args.UsageException e) {
      err.println("pagemark lookup: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    } catch (LookupException e) {
      err.println("pagemark lookup: " + e.getMessage());
      return ExitCode.NOT_FOUND;
    } catch (IOException e) {
      err.println("pagemark lookup: " + e);
      return ExitCode.FAILURE;
    }
  }

  private static Index open(String spec, String build, String s3Endpoint) throws IOException, Args.UsageException {
    try {
      return VerifyCommand.openIndex(spec, build, s3Endpoint);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException(e.getMessage()); // a malformed --index URI or --build id
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

  private static GroupPages openGroup(Index index, String group) throws IOException, LookupException {
    try {
      return index.group(group);
    } catch (IllegalArgumentException e) {
      throw new LookupException("group \"" + group + "\" cannot be a key of this index: " + e.getMessage());
    }
  }

  /** The lookup contract's JSON line for a page start. */
  public static String toJson(PageStart p) {
    return "{\"group\":" + Json.quote(p.group().text())
        + ",\"page\":" + p.page()
        + ",\"pageSize\":" + p.pageSize()
        + ",\"order\":\"" + p.order().label() + "\""
        + ",\"count\":" + p.count()
        + ",\"pages\":" + p.pages()
        + ",\"exclusiveStartKey\":" + DynamoJson.keyMap(p.exclusiveStartKey())
        + ",\"skip\":" + p.skip()
        + "}";
  }
}
