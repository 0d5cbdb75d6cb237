package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.Order;
import org.junit.jupiter.api.Test;

class EntityTagsTest {
  @Test
  void aPageTagNamesBuildOrderSizeAndPage() {
    var r = new PageService.PageRequest("g", 7, 20, Order.DESC, null);
    String tag = EntityTags.page("p", "20261123T171500Z-ab12", r);
    assertThat(tag, equalTo("\"p.20261123T171500Z-ab12.desc.20.7\""));
    assertThat(EntityTags.matches(tag, tag), is(true));
    assertThat(EntityTags.matches("W/" + tag, tag), is(true));
    assertThat(EntityTags.matches("\"x\", " + tag, tag), is(true));
    assertThat(EntityTags.matches("*", tag), is(true));
    assertThat(EntityTags.matches("\"p.20261123T171500Z-ab12.desc.20.8\"", tag), is(false));
    assertThat(EntityTags.page("p", "odd \"id\"", r).matches("\"p\\.[0-9a-f]{24}\\.desc\\.20\\.7\""), is(true));
  }
}
