// Package faultserver is an HTTP server on loopback that misbehaves on cue,
// the way production does: 5xx bursts, 429 with Retry-After, idempotency
// conflicts, slow answers, hung and reset connections. Each scripted session
// lives under its own URL prefix, so many snippets can run against one
// server at once, and every request is recorded for server-side checks
// (count, key, timing).
package faultserver
