package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one DynamoDB Local for the test JVM ({@code @ExtendWith(DynamoDbLocalExtension.class)}, then a parameter
 * {@code DynamoDbLocal local}), checked before each test and restarted when it died, on the same port when it can.
 * A restarted DynamoDB Local is empty: tables made before are gone. Logs: {@code target/services/dynamodb-local-N.log}.
 */
public final class DynamoDbLocalExtension extends ServiceExtension<DynamoDbLocal> {
  private static final SharedService<DynamoDbLocal> SHARED = SharedService.of("dynamodb-local", DynamoDbLocal::start);

  public DynamoDbLocalExtension() {
    super(DynamoDbLocal.class, SHARED);
  }

  /** The JVM's DynamoDB Local, started or restarted as needed: for helpers that are not handed it. */
  public static DynamoDbLocal get() throws IOException {
    return SHARED.get();
  }
}
