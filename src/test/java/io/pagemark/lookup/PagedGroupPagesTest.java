package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link GroupPages} over a store that holds page starts of one page size only. */
class PagedGroupPagesTest {
  /** 45 entries, pages of 10; answers a start key naming the position asked for, and records what was asked. */
  static final class Starts implements PagedGroup {
    final List<String> asked = new ArrayList<>();

    @Override
    public KeyValue group() {
      return KeyValue.ofString("g");
    }

    @Override
    public String groupAttribute() {
      return "PK2";
    }

    @Override
    public List<KeyAttribute> attributes() {
      return List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY));
    }

    @Override
    public String buildId() {
      return "b";
    }

    @Override
    public long count() {
      return 45;
    }

    @Override
    public int pageSize() {
      return 10;
    }

    @Override
    public Start startAt(long position, Order order) {
      asked.add(position + " " + order);
      return new Start(Map.of("SK", KeyValue.ofString("at" + position)), 3);
    }

    @Override
    public List<GroupPages.Entry> entries(long position, int n, Order order) {
      asked.add("entries " + position + " " + n + " " + order);
      return List.of(new GroupPages.Entry(Map.of("SK", KeyValue.ofString("at" + position)), 44 - position));
    }

    @Override
    public long positionOf(List<KeyValue> keys, Order order) {
      asked.add("positionOf " + keys + " " + order);
      return 7;
    }

    @Override
    public void close() {}
  }

  @Test
  void entriesAndPositionsComeFromTheStoreWithinTheGroup() throws Exception {
    Starts starts = new Starts();
    try (GroupPages pages = new GroupPages(starts)) {
      assertThat(pages.entries(40, 10, Order.DESC).get(0).rank(), is(4L));
      assertThat(pages.entries(45, 1, Order.ASC), is(List.of()));
      assertThat(pages.positionOf(List.of(KeyValue.ofString("x")), Order.ASC), is(7L));
      assertThat("keys of another shape name no entry", pages.positionOf(List.of(), Order.ASC), is(-1L));
      assertThat(starts.asked, is(List.of("entries 40 10 DESC", "positionOf [{\"S\":\"x\"}] ASC")));
      assertThrows(IllegalArgumentException.class, () -> pages.entries(-1, 1, Order.ASC));
    }
  }

  @Test
  void pageStartsComeFromTheStoreForItsPageSize() throws Exception {
    Starts starts = new Starts();
    try (GroupPages pages = new GroupPages(starts)) {
      assertThat(pages.pages(10), is(5L));
      PageStart p = pages.pageStart(5, 10, Order.DESC);
      assertThat(p.exclusiveStartKey().get("SK"), is(KeyValue.ofString("at40")));
      assertThat(p.skip(), is(3L));
      assertThat(p.pages(), is(5L));
      assertThat(starts.asked, is(List.of("40 DESC")));
      assertThat(pages.expectedAt(0, Order.ASC), nullValue());
      assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(6, 10, Order.ASC));
    }
  }

  @Test
  void anotherPageSizeUnionsAndKeysAtRanksAreRefusedSayingWhy() throws Exception {
    try (GroupPages pages = new GroupPages(new Starts())) {
      IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
          () -> pages.pageStart(1, 20, Order.ASC));
      assertThat(size.getMessage(), containsString("this index holds the starts of pages of 10 only, not of 20"));
      UnsupportedOperationException key = assertThrows(UnsupportedOperationException.class, () -> pages.keyAt(3));
      assertThat(key.getMessage(), containsString("use a file, Redis or PostgreSQL index"));
      assertThrows(UnsupportedOperationException.class, () -> pages.startAt(3, 10, Order.ASC));
    }
  }
}
