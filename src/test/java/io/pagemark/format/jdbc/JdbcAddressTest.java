package io.pagemark.format.jdbc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class JdbcAddressTest {
  @Test
  void theSchemaIsTheUrlsCurrentSchemaElsePagemark() {
    assertThat(JdbcAddress.parse("jdbc:postgresql://h:5432/db").schema(), is("pagemark"));
    assertThat(JdbcAddress.parse("jdbc:postgresql://h/db?user=u&currentSchema=my%20idx").schema(), is("my idx"));
    assertThat(JdbcAddress.parse("jdbc:postgresql://h/db").withSchema("other").layout().schema(), is("other"));
  }

  @Test
  void passwordsNeverShow() {
    String url = "jdbc:postgresql://u:secret@h:5432/db?user=u&password=secret&currentSchema=s";
    JdbcAddress a = JdbcAddress.parse(url).withCredentials("v", "hunter2");
    assertThat(a.toString(), not(containsString("secret")));
    assertThat(a.toString(), not(containsString("hunter2")));
    assertThat(a.toString(), containsString("password=***"));
    assertThat(a.properties().getProperty("password"), is("hunter2"));
  }

  @Test
  void anythingButAPostgresUrlIsRefusedWithTheFormToGive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JdbcAddress.parse("jdbc:mysql://h/db?password=secret"));
    assertThat(e.getMessage(), containsString("jdbc:postgresql://HOST[:PORT]/DATABASE"));
    assertThat(e.getMessage(), not(containsString("secret")));
    assertThrows(IllegalArgumentException.class, () -> JdbcAddress.parse("jdbc:postgresql://h/db?currentSchema="));
  }
}
