package verify

import (
	"fmt"

	"github.com/retryspec/retryspec/contract/rules"
)

// Gate IDs. The table below gives their run order.
const (
	GateMissingKey    = "verify/missing-key"
	GateKeyTooLong    = "verify/key-too-long"
	GateKeyForm       = "verify/key-form"
	GateConcurrency   = "verify/concurrency"
	GateReplay        = "verify/replay"
	GateMismatch      = "verify/mismatch"
	GateScope         = "verify/scope"
	GateFailedAttempt = "verify/failed-attempt"
	GateRestartReplay = "verify/restart-replay"
	GateCrashRecovery = "verify/crash-recovery"
	GateAfterWindow   = "verify/after-window"
	GateTooOld        = "verify/too-old"
	GateResultHeader  = "verify/result-header"
	// RuleEffectsUnobserved is the closing warning of a run that counted no effect.
	RuleEffectsUnobserved = "verify/effects-unobserved"
)

// Gate is one row of the gate table: everything about a gate but its
// prose, which is the rule catalog's entry under the same ID (the site's
// rule pages, SARIF's rule metadata and `retryspec explain` read it there).
type Gate struct {
	ID string
	// Path is the contract value the gate checks: a finding with no more
	// precise place points there.
	Path string
	// Help is the gate's line in `retryspec verify --help`: what it proves.
	Help string
	// skip says why the gate cannot judge an operation, from the
	// contract, the plan and the options alone, or ""; nil never skips.
	// The run and the dry run both ask it, so they skip the same gates.
	skip func(*runner, Operation) string
	// run judges one operation skip let through: a skip reason (for what
	// only the run can tell), or a failure, or neither for a pass.
	run func(*runner, Operation) (skip string, f *failure)
	// dry lists the requests run would send, as curl commands and
	// comments.
	dry func(dryOp) []string
}

// Doc is the gate's documentation: the catalog's rule under its ID.
func (g Gate) Doc() rules.Rule {
	r, ok := rules.ByID(g.ID)
	if !ok {
		panic(fmt.Sprintf("verify: gate %s has no entry in the rule catalog (contract/rules/rules_verify.go)", g.ID))
	}
	return r
}

// Gates is every gate, in run order.
var Gates = []Gate{
	{ID: GateMissingKey, Path: "idempotency.conflicts.missing_key",
		Help: "a key: required endpoint refuses a keyless request with missing_key",
		skip: (*runner).skipMissingKey, run: (*runner).gateMissingKey, dry: dryMissingKey},
	{ID: GateKeyTooLong, Path: "idempotency.max_key_length",
		Help: "a key of max_key_length + 1 characters gets invalid_key and makes no effect",
		skip: (*runner).skipKeyTooLong, run: (*runner).gateKeyTooLong, dry: dryKeyTooLong},
	{ID: GateKeyForm, Path: "idempotency.header_value",
		Help: "with header_value: sf-string, a key without its quotes gets invalid_key and makes no effect",
		skip: (*runner).skipKeyForm, run: (*runner).gateKeyForm, dry: dryKeyForm},
	{ID: GateConcurrency, Path: "idempotency.claim.mechanism",
		Help: "N identical requests with one key, released at one instant on warm connections, make exactly one effect",
		run:  (*runner).gateConcurrency, dry: dryConcurrency},
	{ID: GateReplay, Path: "idempotency.stored_response",
		Help: "a repeat gets the original bytes, the replay header and no effect",
		run:  (*runner).gateReplay, dry: dryReplay},
	{ID: GateMismatch, Path: "idempotency.conflicts.payload_mismatch",
		Help: "the same key with another body gets payload_mismatch and makes no effect",
		skip: (*runner).skipMismatch, run: (*runner).gateMismatch, dry: dryMismatch},
	{ID: GateScope, Path: "idempotency.scope",
		Help: "the same key from other_principal behaves as scope says",
		skip: (*runner).skipScope, run: (*runner).gateScope, dry: dryScope},
	{ID: GateTooOld, Path: "idempotency.conflicts.too_old",
		Help: "with first_sent, a request first sent longer ago than its window gets too_old and makes no effect",
		skip: (*runner).skipTooOld, run: (*runner).gateTooOld, dry: dryTooOld},
	{ID: GateResultHeader, Path: "idempotency.result_header",
		Help: "with result_header, a first request and its replay say accepted, a refused one says rejected",
		skip: (*runner).skipResultHeader, run: (*runner).gateResultHeader, dry: dryResultHeader},
	{ID: GateFailedAttempt, Path: "idempotency.stored_failures",
		Help: "a retry after a failed attempt gets what stored_failures promises: the stored failure, or one new run",
		skip: (*runner).skipFailedAttempt, run: (*runner).gateFailedAttempt, dry: dryFailedAttempt},
	{ID: GateRestartReplay, Path: "idempotency.stored_response",
		Help: "a completed key is still replayed after the server is killed and restarted",
		skip: (*runner).restartSkip, run: (*runner).gateRestartReplay, dry: dryRestartReplay},
	{ID: GateCrashRecovery, Path: "idempotency.recovery",
		Help: "killed at each external call and restarted, the retry completes with one effect and each external call once",
		skip: (*runner).skipCrash, run: (*runner).gateCrash, dry: dryCrashRecovery},
	{ID: GateAfterWindow, Path: "idempotency.after_window",
		Help: "a key reused after replay_window is refused or run anew, as after_window says",
		skip: (*runner).skipAfterWindow, run: (*runner).gateAfterWindow, dry: dryAfterWindow},
}

// skipReason is why the gate cannot judge op, or "".
func (g Gate) skipReason(r *runner, op Operation) string {
	if g.skip == nil {
		return ""
	}
	return g.skip(r, op)
}

// IDs lists every gate ID, in run order.
func IDs() []string {
	out := make([]string, len(Gates))
	for i, g := range Gates {
		out[i] = g.ID
	}
	return out
}

// GateByID finds a gate.
func GateByID(id string) (Gate, bool) {
	for _, g := range Gates {
		if g.ID == id {
			return g, true
		}
	}
	return Gate{}, false
}

// Outcome is a gate's verdict on one operation.
type Outcome string

// The outcomes, as every output format spells them.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
)
