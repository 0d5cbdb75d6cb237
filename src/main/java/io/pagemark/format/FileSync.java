package io.pagemark.format;

/**
 * Who makes a written group file durable. A build writes thousands of files and publishes them all at once, so it
 * leaves each file in the page cache ({@link #BY_CALLER}) and syncs the whole build at once before it publishes
 * ({@link IndexLayout#syncPartialBuild}): one fsync per file in a row costs a disk round trip each, about
 * 0.3 ms here and several milliseconds on many laptops. A commit that rewrites a few files syncs each as it finishes
 * it ({@link #ON_FINISH}).
 */
public enum FileSync {
  /** The writer fsyncs the file before it returns its header. */
  ON_FINISH,
  /** The writer leaves the file in the page cache; the caller syncs it before anything refers to it. */
  BY_CALLER
}
