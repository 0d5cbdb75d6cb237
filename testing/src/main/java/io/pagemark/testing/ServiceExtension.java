package io.pagemark.testing;

import java.io.IOException;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * What the JUnit 5 extensions of the local services share: a test, constructor or lifecycle method that declares a
 * parameter of the service's type gets the JVM's {@link SharedService}, started on first use; before each test the
 * service is checked and restarted if it died; when a test or a {@code @BeforeAll}/{@code @BeforeEach} method fails,
 * the service's state, restarts and log tail are printed to stderr, so that a CI log shows whether the service was
 * the cause. A service that cannot start fails the test (never skips it).
 */
public abstract class ServiceExtension<S extends LocalService>
    implements BeforeEachCallback, ParameterResolver, TestWatcher, LifecycleMethodExecutionExceptionHandler {
  private final Class<S> type;
  private final SharedService<S> shared;

  protected ServiceExtension(Class<S> type, SharedService<S> shared) {
    this.type = type;
    this.shared = shared;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    shared.get();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == type;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    try {
      return shared.get();
    } catch (IOException e) {
      throw new ParameterResolutionException(e.getMessage(), e);
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    print(context);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
    print(context);
    throw t;
  }

  @Override
  public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
    print(context);
    throw t;
  }

  private void print(ExtensionContext context) {
    String test = context.getTestClass().map(Class::getSimpleName).orElse("?")
        + context.getTestMethod().map(m -> "." + m.getName()).orElse("");
    System.err.println("== " + test + " failed; " + shared.report().replace("\n", "\n   "));
  }
}
