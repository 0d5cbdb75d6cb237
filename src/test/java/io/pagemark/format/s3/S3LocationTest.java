package io.pagemark.format.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code s3://} specs: what they name, what they refuse, and how the CLI's --s3Endpoint joins them. */
class S3LocationTest {
  @Test
  void aSpecNamesBucketPrefixEndpointAndRegion() {
    S3Location l = S3Location.parse("s3://my-bucket/indexes/comments/?endpoint=http%3A%2F%2F127.0.0.1%3A9000"
        + "&region=eu-west-1");
    assertThat(l.bucket(), equalTo("my-bucket"));
    assertThat(l.prefix(), equalTo("indexes/comments"));
    assertThat(l.endpoint(), equalTo("http://127.0.0.1:9000"));
    assertThat(l.region(), equalTo("eu-west-1"));
    assertThat(l.key("CURRENT"), equalTo("indexes/comments/CURRENT"));
    assertThat(l.uri("CURRENT"), equalTo("s3://my-bucket/indexes/comments/CURRENT"));
    assertThat(S3Location.parse(l.spec()), equalTo(l));
    S3Location root = S3Location.parse("s3://my-bucket");
    assertThat(root.prefix(), equalTo(""));
    assertThat(root.key("CURRENT"), equalTo("CURRENT"));
    assertThat(root.endpoint(), nullValue());
    assertThat(root.region(), equalTo("us-east-1"));
  }

  @Test
  void malformedSpecsSayWhatIsWrong() {
    assertThat(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://Bad_Bucket/x"))
        .getMessage(), containsString("is not an S3 bucket name"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://b-1/x?colour=red"))
        .getMessage(), containsString("takes ?endpoint=URL and &region=R, not \"colour\""));
    assertThat(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://b-1/x?endpoint=nope"))
        .getMessage(), containsString("S3 endpoint \"nope\" must be a URL"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://b-1//x")).getMessage(),
        containsString("empty path segments"));
  }

  @Test
  void theCliEndpointJoinsOnlyS3SpecsWithoutOne() {
    assertThat(S3Location.withEndpoint("s3://b-1/p", "http://127.0.0.1:9000"),
        equalTo("s3://b-1/p?endpoint=http%3A%2F%2F127.0.0.1%3A9000"));
    assertThat(S3Location.withEndpoint("s3://b-1/p?endpoint=http://x:1", "http://127.0.0.1:9000"),
        equalTo("s3://b-1/p?endpoint=http://x:1"));
    assertThat(S3Location.withEndpoint("/data/index", "http://127.0.0.1:9000"), equalTo("/data/index"));
    assertThat(S3Location.withEndpoint("s3://b-1/p", null), equalTo("s3://b-1/p"));
    assertThat(S3Location.accepts("redis://h"), is(false));
  }
}
