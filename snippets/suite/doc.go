// Package suite proves each rendered snippet against the fault server: it
// runs the exact bytes of snippets.Render, scenario by scenario, and checks
// from the server side what the contract demands (request count, one key on
// every attempt, waits inside the jitter envelope, a log line per retry).
package suite
