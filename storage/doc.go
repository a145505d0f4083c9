// Package storage turns a contract into the SQL a server needs to keep it:
// the key table's DDL and the named statements (Claim, Lookup, Takeover,
// Checkpoint, Complete, Release, Expire, Reap, Stale) for PostgreSQL, MySQL
// or MariaDB, and SQLite. Each dialect is a row of named capabilities
// (dialect.go); a dialect whose row has them also gets ClaimLookup,
// ClaimLookupBatch, ClaimBatch, CheckpointOrAbort and CompleteOrAbort,
// which save round trips (one statement per replay, concurrent claims in
// one statement, a handler's writes and the completion in one pipeline):
// today PostgreSQL. Generation is pure: contract in, text out. The
// idempotency package's stores run exactly these statements, named by
// their StatementName constants, so there is one source of SQL;
// `retryspec storage` prints it for teams that run their own.
//
// It imports only the contract model; it opens no database.
package storage
