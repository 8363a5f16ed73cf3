/**
 * The database: JPA on the {@code jdbc/dockyard} data source, and the schema's Flyway migrations run
 * before JPA is used ({@link dev.dockyard.persistence.SchemaMigrations}). The repositories here are
 * adapters of ports the domain defines: {@link dev.dockyard.persistence.JpaRuntimeRepository} of
 * {@code runtime.RuntimeRepository}, {@link dev.dockyard.persistence.JpaPoolRepository} of
 * {@code pool.PoolRepository}, {@link dev.dockyard.persistence.JpaAuditEntries} of
 * {@code audit.AuditEntries}, {@link dev.dockyard.persistence.JpaLeaseStore} of
 * {@code cluster.LeaseStore}, {@link dev.dockyard.persistence.JpaCredentialStore} of
 * {@code credentials.CredentialStore}, {@link dev.dockyard.persistence.JpaAccountStore} of
 * {@code tenancy.AccountStore}, {@link dev.dockyard.persistence.JpaWorkspaceStore} of
 * {@code workspace.WorkspaceStore}, {@link dev.dockyard.persistence.JpaIdempotentAnswers} of
 * {@code idempotency.IdempotentAnswers}, so the domain imports nothing from here and the unit
 * tests put in-memory fakes in their place. Only this package uses the {@code EntityManager}.
 */
package dev.dockyard.persistence;
