package io.pagemark.format.jdbc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import java.util.List;
import org.junit.jupiter.api.Test;

class JdbcLayoutTest {
  static final List<KeyAttribute> NUMBER_SORT_KEY = List.of(
      new KeyAttribute("NUM", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));

  @Test
  void namesAreQuotedAndBuildIdsChecked() {
    JdbcLayout layout = new JdbcLayout("we\"ird");
    assertThat(layout.entries("b-1.x_2"), is("\"we\"\"ird\".\"entries_b-1.x_2\""));
    assertThrows(IllegalArgumentException.class, () -> layout.entries("x\"; DROP TABLE t; --"));
    assertThrows(IllegalArgumentException.class, () -> new JdbcLayout("s".repeat(64)));
    assertThrows(IllegalArgumentException.class, () -> new JdbcLayout("a\0b"));
  }

  @Test
  void numbersAreNumericAndEverythingElseBytea() {
    String ddl = new JdbcLayout("s").createBuild("b", NUMBER_SORT_KEY).get(0);
    assertThat(ddl, containsString("sort_key numeric NOT NULL, key_1 bytea NOT NULL"));
    assertThat(ddl, containsString("PRIMARY KEY (group_key, rank)"));
  }

  @Test
  void insertsBindEveryColumnAndReplaceARowAlreadyThere() {
    String sql = new JdbcLayout("s").insertEntry("b", 2);
    assertThat(sql.chars().filter(c -> c == '?').count(), is(8L));
    assertThat(sql, containsString("ON CONFLICT (group_key, rank) DO UPDATE SET sort_key = EXCLUDED.sort_key"));
  }
}
