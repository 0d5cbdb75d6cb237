package io.pagemark.testing;

import java.io.IOException;

/**
 * The JVM's shared kinesalite, as {@link KinesaliteExtension} hands it out (checked, and restarted when it died).
 *
 * @deprecated declare {@code @ExtendWith(KinesaliteExtension.class)} and a parameter of type
 *     {@link Kinesalite} instead; this delegate only keeps tests written before the extensions compiling until they
 *     move.
 */
@Deprecated(forRemoval = true)
public final class SharedKinesalite {
  private SharedKinesalite() {}

  public static Kinesalite get() throws IOException {
    return KinesaliteExtension.get();
  }
}
