package io.pagemark.pipelines.union;

import static io.pagemark.pipelines.BackfillIT.cli;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.CursorRefusedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageOutOfRangeException;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPage;
import io.pagemark.lookup.UnionPageStart;
import io.pagemark.pipelines.BackfillIT.Result;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Pages of unions of groups against DynamoDB Local: on the backfill test table plus ratings-like groups (2 to 5
 * groups, skewed sizes, ties inside and across groups, an empty group, a group of one item, hostile group keys), every
 * page of every union in both orders equals the merge of the groups' own DynamoDB walks by the union's rule, and
 * takes one Query per group with items on it; a walk by signed cursors returns the same pages, and a cursor forged,
 * altered, or moved to other groups is refused, in the library and the command line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class UnionPagesIT {
  static final String TABLE = UnionTable.TABLE;
  static final ObjectMapper JSON = new ObjectMapper();
  static final byte[] SECRET = "union cursors of UnionPagesIT".getBytes(StandardCharsets.UTF_8);
  UnionTable table;
  DynamoDbLocal local;
  DynamoDbClient client;

  static final List<List<String>> UNIONS = List.of(
      List.of(RatingsGroups.rating(3), RatingsGroups.rating(5)),
      List.of(RatingsGroups.rating(1), RatingsGroups.rating(2), RatingsGroups.rating(3), RatingsGroups.rating(4),
          RatingsGroups.rating(5)),
      List.of(RatingsGroups.rating(1), RatingsGroups.rating(4), "ties"),
      List.of("utf", "ties"),
      List.of("\u00e9", "e\u0301", "A", "a"),
      List.of("../x", "/etc/passwd", "nul\u0000byte", "big"));

  @BeforeAll
  void createTable() throws Exception {
    table = UnionTable.get();
    local = table.local;
    client = table.client;
  }

  String build(String gsi) {
    return table.files(gsi);
  }

  static List<KeyValue> keys(List<String> groups) {
    List<KeyValue> keys = new ArrayList<>();
    groups.forEach(g -> keys.add(KeyValue.ofString(g)));
    return keys;
  }

  @ParameterizedTest(name = "{0}: pages of {3}")
  @CsvSource({"byString,SK,S,7", "byNumber,NUM,N,5", "byBinary,BIN,B,4"})
  void everyPageOfEveryUnionInBothOrdersIsTheMergeOfTheGroupsWalks(
      String gsi, String sortAttribute, String sortType, int pageSize) throws Exception {
    try (Index index = Indexes.open(build(gsi))) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, gsi, index);
      PageReader<Map<String, AttributeValue>> byCursor = PageReader.of(client, TABLE, gsi, index);
      UnionCursor cursors = UnionCursor.withSecret(SECRET);
      long pagesRead = 0;
      long requests = 0;
      for (List<String> union : UNIONS) {
        for (Order order : Order.values()) {
          List<Map<String, AttributeValue>> merged = RatingsGroups.merged(
              client, TABLE, gsi, sortAttribute, KeyType.valueOf(sortType), union, order == Order.ASC);
          long pages = (merged.size() + pageSize - 1) / pageSize;
          String cursor = null;
          for (int n = 1; n <= pages; n++) {
            UnionPage<Map<String, AttributeValue>> page = reader.read(keys(union), n, pageSize, order);
            List<Map<String, AttributeValue>> want =
                merged.subList((n - 1) * pageSize, Math.min(merged.size(), n * pageSize));
            String what = gsi + " union " + union + " page " + n + " " + order;
            if (n > 1) {
              // the walk by cursor: each page from the cursor the page before handed out, in the groups' other order
              List<KeyValue> reversed = new ArrayList<>(keys(union));
              java.util.Collections.reverse(reversed);
              assertThat(what + " by cursor", byCursor.read(reversed, cursor, cursors).items(), equalTo(want));
            }
            cursor = cursors.next(page.start());
            assertThat(what, cursor == null, is(n == pages));
            assertThat(what, PageWalk.keys(page.items()), equalTo(PageWalk.keys(want)));
            assertThat(what, page.items(), equalTo(want));
            assertThat(what, page.count(), is((long) merged.size()));
            assertThat(what, page.pages(), is(pages));
            assertThat(what, page.stale(), is(false));
            long groupsOnPage = page.start().starts().stream().filter(s -> s.take() > 0).count();
            if (!union.contains("big")) {
              assertThat(what, (long) page.requests(), is(groupsOnPage));
            }
            pagesRead++;
            requests += page.requests();
          }
          int last = (int) pages;
          assertThrows(PageOutOfRangeException.class, () -> reader.read(keys(union), last + 1, pageSize, order));
        }
      }
      assertThat(pagesRead, greaterThan(100L));
      assertThat(reader.metrics().pages(), is(pagesRead));
      assertThat(reader.metrics().queryRequests(), is(requests));
      assertThat(byCursor.metrics().pages(), is(pagesRead - UNIONS.size() * 2L));
    }
  }

  @Test
  void aForgedAlteredOrMovedCursorIsRefused() throws Exception {
    try (Index index = Indexes.open(build("byString"))) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, "byString", index);
      UnionCursor cursors = UnionCursor.withSecret(SECRET);
      List<KeyValue> union = keys(List.of(RatingsGroups.rating(5), RatingsGroups.rating(3)));
      String next = cursors.next(reader.read(union, 1, 5, Order.DESC).start());
      assertThat(reader.read(union, next, cursors).page(), is(2L));
      // a character in the middle: other bytes, so the signature no longer matches
      int middle = next.length() / 2;
      String altered =
          next.substring(0, middle) + (next.charAt(middle) == 'A' ? 'B' : 'A') + next.substring(middle + 1);
      assertThat(assertThrows(CursorRefusedException.class, () -> reader.read(union, altered, cursors)).getMessage(),
          containsString("signature"));
      // the last character: perhaps only bits base64 leaves unused, the same bytes in another text
      char last = next.charAt(next.length() - 1);
      String lastAltered = next.substring(0, next.length() - 1) + (last == 'A' ? 'B' : 'A');
      assertThrows(CursorRefusedException.class, () -> reader.read(union, lastAltered, cursors));
      String forged = UnionCursor.withSecret("another secret, 16 bytes or more".getBytes(StandardCharsets.UTF_8))
          .next(reader.read(union, 1, 5, Order.DESC).start());
      assertThrows(CursorRefusedException.class, () -> reader.read(union, forged, cursors));
      assertThat(assertThrows(CursorRefusedException.class,
          () -> reader.read(keys(List.of(RatingsGroups.rating(5), "ties")), next, cursors)).getMessage(),
          containsString("another set of groups"));
      assertThrows(CursorRefusedException.class, () -> reader.read(union, "not a cursor!", cursors));
    }
  }

  @Test
  void lookupAndPageTakeGroupMoreThanOnce() throws Exception {
    String index = "--index=" + build("byString");
    String[] groups = {"--group=" + RatingsGroups.rating(5), "--group=" + RatingsGroups.rating(3)};
    Result lookup = cli("lookup", index, groups[0], groups[1], "--page=2,5", "--pageSize=20", "--order=desc");
    assertThat(lookup.err(), lookup.code(), is(0));
    String[] lines = lookup.out().split("\n");
    assertThat(lines.length, is(2));
    JsonNode p2 = JSON.readTree(lines[0]);
    assertThat(p2.get("groups").toString(),
        equalTo("[\"" + RatingsGroups.rating(3) + "\",\"" + RatingsGroups.rating(5) + "\"]"));
    assertThat(p2.get("page").asLong(), is(2L));
    assertThat(p2.get("count").asLong(), is((long) RatingsGroups.SIZES[3] + RatingsGroups.SIZES[5]));
    assertThat(p2.get("pages").asLong(), is(7L));
    long take = 0;
    for (JsonNode s : p2.get("starts")) {
      take += s.get("take").asLong();
      assertThat(s.toString(), s.get("exclusiveStartKey").isObject(), is(true));
    }
    assertThat(take, is(20L));

    Result page = cli("page", "--table=" + TABLE, "--gsi=byString", index, "--dynamoEndpoint=" + local.endpoint(),
        groups[0], groups[1], "--page=2", "--pageSize=20", "--order=desc");
    assertThat(page.err(), page.code(), is(0));
    List<Map<String, AttributeValue>> merged = RatingsGroups.merged(client, TABLE, "byString", "SK", KeyType.S,
        List.of(RatingsGroups.rating(3), RatingsGroups.rating(5)), false);
    List<String> got = new ArrayList<>();
    for (JsonNode item : JSON.readTree(page.out()).get("items")) {
      got.add(item.get("PK").get("S").asText() + "|" + item.get("SK").get("S").asText());
    }
    assertThat(got, equalTo(PageWalk.keys(merged.subList(20, 40))));
    assertThat(page.err(), containsString("2 Query requests"));

    Result past = cli("lookup", index, groups[0], groups[1], "--page=8", "--pageSize=20");
    assertThat(past.code(), is(3));
    assertThat(past.out(), equalTo(""));
    assertThat(past.err(), containsString("page 8 is out of range"));
    Result twice = cli("lookup", index, groups[0], groups[0], "--page=1", "--pageSize=20");
    assertThat(twice.err(), twice.code(), is(2));
    Result fresh = cli("page", "--table=" + TABLE, "--gsi=byString", index, "--dynamoEndpoint=" + local.endpoint(),
        groups[0], groups[1], "--page=1", "--pageSize=20", "--freshPages=1");
    assertThat(fresh.err(), fresh.code(), is(2));
  }

  @Test
  void pageAndLookupHandOutCursorsAndReadThem() throws Exception {
    Path secret = Files.createTempFile("cursor-secret", "");
    Files.write(secret, "a secret of UnionPagesIT's CLI\n".getBytes(StandardCharsets.UTF_8));
    String[] common = {"--table=" + TABLE, "--gsi=byString", "--index=" + build("byString"),
        "--dynamoEndpoint=" + local.endpoint(), "--group=" + RatingsGroups.rating(5),
        "--group=" + RatingsGroups.rating(3), "--cursorSecretFile=" + secret};
    List<Map<String, AttributeValue>> merged = RatingsGroups.merged(client, TABLE, "byString", "SK", KeyType.S,
        List.of(RatingsGroups.rating(3), RatingsGroups.rating(5)), true);
    int size = 30;
    Result page = cli(args(common, "page", "--page=1", "--pageSize=" + size));
    for (int n = 1; ; n++) {
      assertThat(page.err(), page.code(), is(0));
      JsonNode json = JSON.readTree(page.out());
      List<String> got = new ArrayList<>();
      json.get("items").forEach(i -> got.add(i.get("PK").get("S").asText() + "|" + i.get("SK").get("S").asText()));
      assertThat("page " + n, got,
          equalTo(PageWalk.keys(merged.subList((n - 1) * size, Math.min(merged.size(), n * size)))));
      assertThat(json.get("page").asLong(), is((long) n));
      if (!json.has("next")) {
        assertThat(n, is((merged.size() + size - 1) / size));
        break;
      }
      assertThat(json.get("next").asText().length(), lessThan(40));
      page = cli(args(common, "page", "--cursor=" + json.get("next").asText()));
    }

    Result lookup = cli("lookup", common[2], common[4], common[5], common[6], "--page=1", "--pageSize=7",
        "--order=desc");
    String next = JSON.readTree(lookup.out()).get("next").asText();
    Result second = cli("lookup", common[2], common[4], common[5], common[6], "--cursor=" + next);
    assertThat(second.err(), second.code(), is(0));
    JsonNode p2 = JSON.readTree(second.out());
    assertThat(p2.get("page").asLong(), is(2L));
    assertThat(p2.get("order").asText(), is("desc"));
    assertThat(p2.get("pageSize").asLong(), is(7L));

    Result noSecret = cli("lookup", common[2], common[4], common[5], "--cursor=" + next);
    assertThat(noSecret.code(), is(2));
    assertThat(noSecret.err(), containsString("--cursor needs the secret that signed it"));
    String altered = (next.charAt(3) == 'A' ? "B" : "A");
    altered = next.substring(0, 3) + altered + next.substring(4);
    Result tampered = cli(args(common, "page", "--cursor=" + altered));
    assertThat(tampered.code(), is(2));
    assertThat(tampered.err(), containsString("--cursor is refused"));
    Result moved = cli("lookup", common[2], common[4], "--group=ties", common[6], "--cursor=" + next);
    assertThat(moved.code(), is(2));
    assertThat(moved.err(), containsString("another set of groups"));
    Result both = cli("lookup", common[2], common[4], common[5], common[6], "--cursor=" + next, "--page=3");
    assertThat(both.code(), is(2));
    assertThat(both.err(), containsString("without --page"));
  }

  static String[] args(String[] common, String command, String... more) {
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(List.of(common));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @Test
  void aPageStartNamesEachGroupsQueryAndTheUnionRefusesAGroupGivenTwice() throws Exception {
    try (Index index = Indexes.open(build("byString"))) {
      List<KeyValue> union = keys(List.of(RatingsGroups.rating(5), RatingsGroups.rating(2), RatingsGroups.rating(3)));
      try (var pages = index.union(union)) {
        assertThat(pages.count(), is((long) RatingsGroups.SIZES[3] + RatingsGroups.SIZES[5]));
        UnionPageStart start = pages.pageStart(4, 20, Order.DESC);
        assertThat(start.groups(), equalTo(keys(List.of(RatingsGroups.rating(2), RatingsGroups.rating(3),
            RatingsGroups.rating(5)))));
        assertThat(start.starts().get(0).take(), is(0L));
        assertThat(start.starts().get(1).take() + start.starts().get(2).take(),
            is(Math.min(20L, pages.count() - 60)));
        assertThat(start.buildId(), equalTo(index.buildId()));
      }
      IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
          () -> index.union(keys(List.of("ties", "utf", "ties"))));
      assertThat(twice.getMessage(), containsString("given twice"));
    }
  }
}
