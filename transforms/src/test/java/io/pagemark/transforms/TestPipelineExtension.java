package io.pagemark.transforms;

import java.lang.reflect.Method;
import org.apache.beam.sdk.testing.TestPipeline;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * Beam's {@link TestPipeline} in JUnit 5 tests: a test method that takes a {@code TestPipeline} parameter gets a new
 * one, and runs inside the pipeline's own JUnit 4 rule, so that Beam's checks apply as they do under JUnit 4: the
 * pipeline must be run, every {@code PAssert} must have run and passed, and no transform may be left unapplied
 * (abandoned node enforcement). A test that builds a pipeline only to see it refused calls
 * {@code pipeline.enableAbandonedNodeEnforcement(false)} first.
 */
public final class TestPipelineExtension implements ParameterResolver, InvocationInterceptor {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(TestPipelineExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestPipeline.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getStore(NAMESPACE).getOrComputeIfAbsent(
        TestPipeline.class, k -> TestPipeline.create(), TestPipeline.class);
  }

  @Override
  public void interceptTestMethod(
      Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
      throws Throwable {
    TestPipeline pipeline = context.getStore(NAMESPACE).get(TestPipeline.class, TestPipeline.class);
    if (pipeline == null) {
      invocation.proceed();
      return;
    }
    Statement test = new Statement() {
      @Override
      public void evaluate() throws Throwable {
        invocation.proceed();
      }
    };
    pipeline
        .apply(test, Description.createTestDescription(
            context.getRequiredTestClass(), context.getRequiredTestMethod().getName()))
        .evaluate();
  }
}
