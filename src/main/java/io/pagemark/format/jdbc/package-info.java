/**
 * PostgreSQL as an index store: one table of entries per build, keyed by (group, rank), so that the record at any
 * rank is one index seek. The layout is specified in {@code docs/postgresql.md} and implemented by
 * {@link io.pagemark.format.jdbc.JdbcLayout} (names and DDL), {@link io.pagemark.format.jdbc.JdbcRecords} (how a
 * record becomes a row) and {@link io.pagemark.format.jdbc.JdbcAddress} (the {@code jdbc:postgresql:} URL); they need
 * only {@code java.sql}. The driver and the connection pool are optional dependencies of this module.
 */
package io.pagemark.format.jdbc;
