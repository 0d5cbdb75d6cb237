package io.pagemark.testing;

import java.io.IOException;

/**
 * The JVM's shared DynamoDB Local, as {@link DynamoDbLocalExtension} hands it out (checked, and restarted when
 * it died).
 *
 * @deprecated declare {@code @ExtendWith(DynamoDbLocalExtension.class)} and a parameter of type
 *     {@link DynamoDbLocal} instead; this delegate only keeps tests written before the extensions compiling until they
 *     move.
 */
@Deprecated(forRemoval = true)
public final class SharedDynamoDbLocal {
  private SharedDynamoDbLocal() {}

  public static DynamoDbLocal get() throws IOException {
    return DynamoDbLocalExtension.get();
  }
}
