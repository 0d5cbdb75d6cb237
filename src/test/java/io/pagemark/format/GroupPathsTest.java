package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import io.pagemark.key.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Group keys never become path names: every key maps to {@code groups/xx/yy/<64 hex>.pmi} inside the build. */
class GroupPathsTest {
  static final String SHAPE = "groups/([0-9a-f]{2})/([0-9a-f]{2})/(\\1\\2[0-9a-f]{60})\\.pmi";

  static final List<KeyValue> HOSTILE_KEYS = List.of(
      KeyValue.ofString("../x"),
      KeyValue.ofString("../../../../etc/passwd"),
      KeyValue.ofString("a/b"),
      KeyValue.ofString("a\\b"),
      KeyValue.ofString("."),
      KeyValue.ofString(".."),
      KeyValue.ofString("CON"),
      KeyValue.ofString("con"),
      KeyValue.ofString("NUL"),
      KeyValue.ofString("a\u0000b"),
      KeyValue.ofString("\u0000"),
      KeyValue.ofString("x".repeat(1000)),
      KeyValue.ofString("\u00e9"),
      KeyValue.ofString("e\u0301"),
      KeyValue.ofString("A"),
      KeyValue.ofString("a"),
      KeyValue.ofString("1"),
      KeyValue.ofString(" "),
      KeyValue.ofString("a:b*c?"),
      KeyValue.ofNumber("1"),
      KeyValue.ofNumber("-1"),
      KeyValue.ofNumber("10"),
      KeyValue.ofBinary("1".getBytes(StandardCharsets.UTF_8)),
      KeyValue.ofBinary(new byte[] {'.', '.', '/', 'x'}));

  @Test
  void everyKeyGetsItsOwnWellFormedPath() {
    Map<String, KeyValue> seen = new HashMap<>();
    Path build = Path.of("/index/builds/b1");
    for (KeyValue k : HOSTILE_KEYS) {
      String p = GroupPaths.relativePath(k);
      assertThat(k.toString(), p, matchesPattern(SHAPE));
      KeyValue clash = seen.put(p, k);
      assertThat(k + " shares a path with " + clash, clash == null, is(true));
      Path resolved = GroupPaths.resolve(build, k);
      assertThat(resolved, equalTo(build.resolve(p)));
      assertThat(resolved.normalize().startsWith(build), is(true));
      assertThat(resolved.getNameCount(), equalTo(build.getNameCount() + 4));
    }
  }

  @Test
  void equalNumbersShareAPathAndTypesDoNot() {
    String one = GroupPaths.relativePath(KeyValue.ofNumber("1"));
    for (String text : List.of("1.0", "10E-1", "0.1E1", "1.000")) {
      assertThat(text, GroupPaths.relativePath(KeyValue.ofNumber(text)), equalTo(one));
    }
    String s = GroupPaths.relativePath(KeyValue.ofString("1"));
    String b = GroupPaths.relativePath(KeyValue.ofBinary(new byte[] {'1'}));
    assertThat(s.equals(one) || b.equals(one) || s.equals(b), is(false));
  }

  /** Existing indexes are found by these names: the hash input (type code, canonical bytes) must never change. */
  @Test
  void pathsAreStable() {
    // sha256(0x01 || "SKU-1") and sha256(0x02 || C0 80 01 02 00), the canonical encoding of the number 1
    assertThat(GroupPaths.relativePath(KeyValue.ofString("SKU-1")),
        equalTo("groups/9c/94/9c94fc8f3a86f0d9a6d1be4f40fc3d0447ded13f3f3ff0e503fad8cff371846a.pmi"));
    assertThat(GroupPaths.relativePath(KeyValue.ofNumber("1.0")),
        equalTo("groups/f3/45/f3451428ad83c21dcec88fc913fb853a1790bc4b2bdd8deaefe7eeac0afaa812.pmi"));
  }
}
