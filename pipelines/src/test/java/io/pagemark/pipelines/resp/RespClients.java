package io.pagemark.pipelines.resp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the RESP integration tests share: {@code redis-cli} fed commands on its standard input (Debian's redis-tools;
 * installed with redis-server by {@code bin/ensure-redis} when missing, never skipped), and members parsed back into
 * exclusive start keys.
 */
public final class RespClients {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RespClients() {}

  /** Runs {@code redis-cli} against a port with these commands on stdin; returns its output lines. */
  static List<String> redisCli(int port, List<List<byte[]>> commands) throws IOException, InterruptedException {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    for (List<byte[]> c : commands) {
      for (int i = 0; i < c.size(); i++) {
        if (i > 0) {
          in.write(' ');
        }
        in.writeBytes(quote(c.get(i)));
      }
      in.write('\n');
    }
    Path input = Files.createTempFile("redis-cli", ".txt");
    try {
      Files.write(input, in.toByteArray());
      Process p = new ProcessBuilder(redisCli(), "-h", "127.0.0.1", "-p", Integer.toString(port))
          .redirectInput(input.toFile()).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("redis-cli failed: " + new String(out, StandardCharsets.UTF_8));
      }
      String text = new String(out, StandardCharsets.UTF_8);
      List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
      if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
        lines.remove(lines.size() - 1);
      }
      return lines;
    } finally {
      Files.deleteIfExists(input);
    }
  }

  static List<byte[]> args(String... words) {
    List<byte[]> a = new ArrayList<>();
    for (String w : words) {
      a.add(w.getBytes(StandardCharsets.UTF_8));
    }
    return a;
  }

  /** An argument as redis-cli reads it from a line: double quotes, every byte outside printable ASCII as \xHH. */
  static byte[] quote(byte[] arg) {
    StringBuilder b = new StringBuilder("\"");
    for (byte x : arg) {
      int c = x & 0xFF;
      if (c == '"' || c == '\\') {
        b.append('\\').append((char) c);
      } else if (c >= 0x20 && c < 0x7f) {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02x", c));
      }
    }
    return b.append('"').toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** redis-cli from PATH, after bin/ensure-redis when it is missing. */
  static synchronized String redisCli() throws IOException, InterruptedException {
    String found = onPath("redis-cli");
    if (found == null) {
      Path script = Path.of(System.getProperty("pagemark.repo", ".")).resolve("bin").resolve("ensure-redis");
      Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException("redis-cli is missing and " + script + " could not install Redis: " + out);
      }
      found = onPath("redis-cli");
    }
    if (found == null) {
      throw new IOException("redis-cli is not on PATH (Debian package redis-tools); install it");
    }
    return found;
  }

  private static String onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(d, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return Files.isExecutable(Path.of("/usr/bin", name)) ? "/usr/bin/" + name : null;
  }

  /** A member (an exclusive start key in DynamoDB JSON) as the lookup library's key map. */
  public static Map<String, KeyValue> startKey(String member) throws IOException {
    JsonNode root = JSON.readTree(member);
    Map<String, KeyValue> key = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String type = e.getValue().fieldNames().next();
      key.put(e.getKey(), KeyValue.parse(KeyType.fromDynamoName(type), e.getValue().get(type).asText()));
    }
    return key;
  }
}
