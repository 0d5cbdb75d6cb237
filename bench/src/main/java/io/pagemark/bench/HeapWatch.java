package io.pagemark.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The most heap a JVM held right after a garbage collection since {@link #start()}: an upper bound of its live data
 * at its peak (a young collection leaves the old generation's garbage in place), never more than {@code -Xmx}. Read
 * from the collectors' notifications.
 */
final class HeapWatch {
  private static final AtomicLong PEAK_AFTER_GC = new AtomicLong();

  private HeapWatch() {}

  static void start() {
    Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) gc).addNotificationListener((n, handback) -> {
        if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
          return;
        }
        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo();
        long used = 0;
        for (var e : info.getMemoryUsageAfterGc().entrySet()) {
          if (heapPools.contains(e.getKey())) {
            MemoryUsage u = e.getValue();
            used += u.getUsed();
          }
        }
        PEAK_AFTER_GC.accumulateAndGet(used, Math::max);
      }, null, null);
    }
  }

  /** Bytes; 0 if no collection happened. */
  static long peakAfterGc() {
    return PEAK_AFTER_GC.get();
  }
}
