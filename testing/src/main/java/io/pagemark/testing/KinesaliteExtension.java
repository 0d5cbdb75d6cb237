package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one kinesalite for the test JVM ({@code @ExtendWith(KinesaliteExtension.class)}, then a parameter
 * {@code Kinesalite kinesalite}), installed with npm on first use, checked before each test and restarted (without
 * streams) when it died, on the same port when it can. Logs: {@code target/services/kinesalite-N.log}.
 */
public final class KinesaliteExtension extends ServiceExtension<Kinesalite> {
  private static final SharedService<Kinesalite> SHARED = SharedService.of("kinesalite", Kinesalite::start);

  public KinesaliteExtension() {
    super(Kinesalite.class, SHARED);
  }

  /** The JVM's kinesalite, started or restarted as needed: for helpers that are not handed it. */
  public static Kinesalite get() throws IOException {
    return SHARED.get();
  }
}
