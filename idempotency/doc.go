// Package idempotency keeps a retryspec contract's idempotency promise for
// net/http handlers: the atomic claim on a unique constraint, the three key
// states (absent, in flight, complete), fingerprint checks, verbatim replay,
// fencing tokens on every write after the claim, recovery points with stable
// downstream keys for multi-step handlers, a completer, a reaper and
// metrics. Every status, error code, header and window comes from the
// contract, including where the key travels (a header or a JSON body
// member), a window measured from the client's first-sent time, and the
// header reporting each answer's result; New refuses a contract with
// errors.
//
// A service's store is package stores' SQLStore, opened from a URL
// (stores.Open) on PostgreSQL, MySQL/MariaDB or SQLite, which runs the SQL
// that package storage generates (`retryspec storage`); NewMemoryStore's
// is for unit tests only. A custom store implements keystore.Store. Metric
// names live in package alerting, which `retryspec build` also reads for
// the alerting rules.
//
// It must not import the CLI, the renderers, package storage or any
// database driver: the SQL store and the drivers are in package stores,
// and the two meet only in package keystore, which imports neither.
package idempotency
