/**
 * Servers that make an index readable from any language: {@code io.pagemark.server.http} ({@code pagemark serve}: a
 * JSON API and a crawlable web page) and {@code io.pagemark.server.resp} ({@code pagemark resp}: the Redis protocol).
 * Both open any store through {@link io.pagemark.lookup.Indexes}.
 */
package io.pagemark.server;
