package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Items in DynamoDB's JSON, every attribute type, as the page command prints them. */
class ItemJsonTest {
  @Test
  void everyAttributeTypePrintsAsDynamoDbJson() throws Exception {
    Map<String, AttributeValue> item = Map.of(
        "s", AttributeValue.fromS("quote \" new\nline \u00e9"),
        "n", AttributeValue.fromN("-1.5E+3"),
        "b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {0, (byte) 255})),
        "ss", AttributeValue.fromSs(List.of("a", "b")),
        "ns", AttributeValue.fromNs(List.of("1", "2")),
        "bs", AttributeValue.fromBs(List.of(SdkBytes.fromByteArray(new byte[] {1}))),
        "m", AttributeValue.fromM(Map.of("z", AttributeValue.fromBool(true), "a", AttributeValue.fromNul(true))),
        "l", AttributeValue.fromL(List.of(AttributeValue.fromN("1"), AttributeValue.fromL(List.of()))));
    String json = DynamoJson.item(item);
    assertThat(json, equalTo("{\"b\":{\"B\":\"AP8=\"},\"bs\":{\"BS\":[\"AQ==\"]},"
        + "\"l\":{\"L\":[{\"N\":\"1\"},{\"L\":[]}]},\"m\":{\"M\":{\"a\":{\"NULL\":true},\"z\":{\"BOOL\":true}}},"
        + "\"n\":{\"N\":\"-1.5E+3\"},\"ns\":{\"NS\":[\"1\",\"2\"]},"
        + "\"s\":{\"S\":\"quote \\\" new\\nline \u00e9\"},\"ss\":{\"SS\":[\"a\",\"b\"]}}"));
    assertThat(new ObjectMapper().readTree(json).get("s").get("S").asText(), equalTo("quote \" new\nline \u00e9"));
  }
}
