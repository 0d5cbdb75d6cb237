/**
 * S3 (or any S3-compatible store) as the home of a file index: the same layout as on disk ({@code CURRENT},
 * {@code builds/ID/build.json}, {@code manifest.jsonl}, {@code groups/aa/bb/H.pmi}, {@code deadletter/}) under a
 * bucket's prefix. {@link io.pagemark.format.s3.S3Location} names an index ({@code s3://BUCKET/PREFIX}) and makes its
 * client; {@link io.pagemark.format.s3.S3IndexStore} reads, lists, publishes and removes its objects, for the reader
 * ({@code io.pagemark.lookup.s3}), {@code pagemark gc} and the commit. Only these classes need the AWS SDK's
 * {@code s3} artifact, an optional dependency of this module. The layout is described in {@code docs/s3.md}.
 */
package io.pagemark.format.s3;
