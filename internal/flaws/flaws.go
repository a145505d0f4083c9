// Package flaws names the classic mistakes the idempotency middleware can
// switch in (idempotency.Options.Flaw), so that the reference server's
// --flaw can show `retryspec verify` catching each one (docs/server.md,
// "Prove it"; docs/verify.md). It is internal to the module: a service
// cannot name a flaw, and the middleware's public API does not list them.
// Each flaw's behaviour lives in idempotency/flaws.go, apart from the
// request path. It imports nothing.
package flaws

import (
	"fmt"
	"slices"
	"strings"
)

// Flaw is one classic mistake, named for the property it breaks; the zero
// Flaw is none.
type Flaw string

const (
	// CheckThenInsert reads the key and inserts it after, trusting the
	// read: two concurrent first attempts both run.
	CheckThenInsert Flaw = "check-then-insert"
	// NoInFlight counts a key in flight as absent: a concurrent retry runs
	// again.
	NoInFlight Flaw = "no-in-flight"
	// NoFingerprint replays a different body under the same key instead
	// of refusing it.
	NoFingerprint Flaw = "no-fingerprint"
	// ReplayNotVerbatim re-encodes the stored response instead of sending
	// its bytes.
	ReplayNotVerbatim Flaw = "replay-not-verbatim"
	// GlobalScope shares keys across accounts.
	GlobalScope Flaw = "global-scope"
	// MissingKeyAccepted runs a request without a key, with no idempotency
	// at all.
	MissingKeyAccepted Flaw = "missing-key-accepted"
	// FreshDownstreamKey sends a new key to the external calls on each
	// attempt.
	FreshDownstreamKey Flaw = "fresh-downstream-key"
)

// All are the flaws, in the order the docs list them.
var All = []Flaw{
	CheckThenInsert, NoInFlight, NoFingerprint, ReplayNotVerbatim,
	GlobalScope, MissingKeyAccepted, FreshDownstreamKey,
}

// Check refuses a Flaw that is none of All (one converted from a command
// line, say); the zero Flaw is no flaw.
func (f Flaw) Check() error {
	if f == "" || slices.Contains(All, f) {
		return nil
	}
	names := make([]string, len(All))
	for i, g := range All {
		names[i] = string(g)
	}
	return fmt.Errorf("idempotency: unknown flaw %q (one of %s)", string(f), strings.Join(names, ", "))
}
