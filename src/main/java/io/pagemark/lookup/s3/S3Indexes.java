package io.pagemark.lookup.s3;

import io.pagemark.format.s3.S3Reads;
import io.pagemark.lookup.Index;

/** What only an index kept in S3 can tell: how many GETs and bytes its lookups cost so far. */
public final class S3Indexes {
  private S3Indexes() {}

  /**
   * The reads of an index opened from an {@code s3://} spec.
   *
   * @throws IllegalArgumentException if {@code index} is not kept in S3
   */
  public static S3Reads reads(Index index) {
    if (index instanceof S3Index s) {
      return s.store().reads();
    }
    throw new IllegalArgumentException(index + " is not an index kept in S3");
  }
}
