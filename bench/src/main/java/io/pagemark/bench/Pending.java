package io.pagemark.bench;

/**
 * A figure the issue asks for whose feature is not built yet: printed and written as pending with the extension
 * point that will measure it, never with a made-up value. A pending figure is not counted as missing by the
 * {@code --quick} check; once its benchmark exists it joins {@link Suite#benches} and this entry goes.
 *
 * @param name the figure
 * @param extensionPoint where its measurement goes
 * @param waitingFor the feature it needs
 */
public record Pending(String name, String extensionPoint, String waitingFor) {
  public String line() {
    return "pending: " + name + " (waiting for " + waitingFor + "; extension point: " + extensionPoint + ")";
  }
}
