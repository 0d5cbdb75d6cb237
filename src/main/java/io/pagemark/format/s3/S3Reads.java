package io.pagemark.format.s3;

import java.util.concurrent.atomic.LongAdder;

/**
 * What an S3 index has read so far: GET requests and the bytes of their bodies. Safe to share between threads; read
 * it to see what lookups cost (the benchmark compares bytes per lookup with the record width).
 */
public final class S3Reads {
  private final LongAdder gets = new LongAdder();
  private final LongAdder bytes = new LongAdder();

  void record(long bodyBytes) {
    gets.increment();
    bytes.add(bodyBytes);
  }

  /** GET requests sent (ranged or whole). */
  public long gets() {
    return gets.sum();
  }

  /** Bytes of the bodies those GETs returned. */
  public long bytes() {
    return bytes.sum();
  }
}
