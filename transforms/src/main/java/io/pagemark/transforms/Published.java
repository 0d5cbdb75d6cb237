package io.pagemark.transforms;

import java.io.Serializable;

/**
 * What a sink published: emitted once per sink and build, after readers can see the build.
 *
 * @param sink the sink's {@link IndexSink#describe()}
 * @param buildId the build
 * @param groups groups the build holds
 * @param entries entries the build holds
 * @param summary one line for the end of a command's output
 */
public record Published(String sink, String buildId, long groups, long entries, String summary)
    implements Serializable {
  private static final long serialVersionUID = 1L;
}
