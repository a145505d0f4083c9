package verify

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/internal/testenv"
)

// The contract variant matrix (issue 26, item 13): the reference payouts
// server (examples/payouts/server) runs under each variant of the contract
// a team may choose, and every gate of verify holds against it. The full
// cross product of the seven fields is 3*2*2*3*3*2*4 = 864 runs (less the
// pairs the loader refuses) of about half a minute each (the crash gate
// waits out lock_timeout once per kill point), so the matrix is a pairwise
// covering design: every pair of values of any two fields that a contract
// may hold together runs in at least one row, in 12 rows, the least any
// design can do with a field of four values beside fields of three.
// TestVariantMatrixCovers checks that property; a field added to the
// matrix must keep it.
//
// in_flight.response: pass-through is left out: the contract lint refuses
// it (state/pass-through) and so does idempotency.New.

// variantField is one contract field the matrix varies, with its values;
// the first value is the example contract's own.
type variantField struct {
	name   string
	values []string
}

var variantFields = []variantField{
	{"in_flight.response", names(contract.InFlightConflict, contract.InFlightBlock, contract.InFlightAccepted)},
	{"scope", names(contract.ScopeAccount, contract.ScopeGlobal)},
	{"stored_failures", names(contract.FailuresReplay, contract.FailuresReattempt)},
	{"error_body", []string{"default", "nested", "problem+json"}},
	{"fingerprint", names(contract.FingerprintSHA256Body, contract.FingerprintCanonicalJSON, contract.FingerprintNone)},
	{"after_window", names(contract.AfterWindowNewRequest, contract.AfterWindowError)},
	// unset: stored_failures alone decides, as in the example contract.
	{"stored_outcomes", append([]string{unset}, names(contract.Stored2xx, contract.Stored2xxTo4xx, contract.Stored2xxTo5xx)...)},
}

// unset is the matrix value of a field the contract leaves out.
const unset = "unset"

func names[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// refusedPairs are the values the contract loader refuses together:
// stored_failures: replay returns a server error again, so stored_outcomes
// must store 5xx; reattempt runs it again, so it must not. The matrix has
// no row with them and owes no run for them.
var refusedPairs = map[[2]string]bool{
	{"stored_failures=replay", "stored_outcomes=2xx"}:        true,
	{"stored_failures=replay", "stored_outcomes=2xx-4xx"}:    true,
	{"stored_failures=reattempt", "stored_outcomes=2xx-5xx"}: true,
}

// variantRows are the matrix: each row picks a value index per field, in
// variantFields' order. Row 0 is the example contract as written.
var variantRows = [][]int{
	{0, 0, 0, 0, 0, 0, 0},
	{2, 0, 0, 0, 2, 0, 3},
	{1, 1, 1, 1, 2, 1, 0},
	{0, 0, 1, 2, 2, 1, 1},
	{0, 1, 1, 0, 2, 1, 2},
	{1, 0, 1, 2, 1, 0, 2},
	{0, 1, 0, 1, 1, 1, 3},
	{2, 1, 1, 1, 0, 1, 2},
	{1, 1, 1, 0, 1, 0, 1},
	{2, 0, 1, 1, 0, 0, 1},
	{2, 0, 0, 2, 1, 0, 0},
	{1, 1, 0, 2, 0, 1, 3},
}

// acceptedRow is the row the reference server's flaws run under besides
// the default one (which TestReferenceServer covers): in_flight.response:
// accepted, with every field a flaw breaks left on (account scope, a
// fingerprint, stored_failures: replay alone), so each flaw's gate still
// has something to catch.
const acceptedRow = 10

type variant map[string]string

func rowVariant(row []int) variant {
	v := variant{}
	for i, f := range variantFields {
		v[f.name] = f.values[row[i]]
	}
	return v
}

func (v variant) String() string {
	var parts []string
	for _, f := range variantFields {
		parts = append(parts, f.name+"="+v[f.name])
	}
	return strings.Join(parts, ",")
}

// name is a short subtest name: the values that differ from row 0.
func (v variant) name() string {
	var parts []string
	for _, f := range variantFields {
		if x := v[f.name]; x != f.values[0] {
			parts = append(parts, strings.NewReplacer("+", "", ".", "-").Replace(f.name+"="+x))
		}
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ",")
}

// TestVariantMatrixCovers: every pair of values of two fields that a
// contract may hold together appears in at least one row, no row holds a
// refused pair, and row 0 is the example contract's own values.
func TestVariantMatrixCovers(t *testing.T) {
	if missing := uncoveredPairs(variantRows); len(missing) > 0 {
		t.Fatalf("the variant matrix leaves %d pairs untested: %s", len(missing), strings.Join(missing, "; "))
	}
	for _, row := range variantRows {
		if p, bad := refusedPair(row); bad {
			t.Errorf("row %v holds %s with %s, which the loader refuses", row, p[0], p[1])
		}
	}
	for i, x := range variantRows[0] {
		if x != 0 {
			t.Errorf("row 0 is not the example contract: %s is %s", variantFields[i].name, variantFields[i].values[x])
		}
	}
	// Every row is a contract the middleware takes: it loads, and check
	// finds no error it does not waive.
	// Each loaded contract holds the row's values.
	loaded := map[string]func(contract.Idempotency) string{
		"in_flight.response": func(id contract.Idempotency) string { return string(id.InFlight.Response) },
		"scope":              func(id contract.Idempotency) string { return string(id.Scope) },
		"stored_failures":    func(id contract.Idempotency) string { return string(id.StoredFailures) },
		"fingerprint":        func(id contract.Idempotency) string { return string(id.Fingerprint) },
		"after_window":       func(id contract.Idempotency) string { return string(id.AfterWindow) },
		"stored_outcomes":    func(id contract.Idempotency) string { return cmp.Or(string(id.StoredOutcomes), unset) },
	}
	for _, row := range variantRows {
		v := rowVariant(row)
		c, _ := variantContract(t, v)
		for field, get := range loaded {
			if got := get(c.Idempotency); got != v[field] {
				t.Errorf("%s: the loaded contract has %s %s", v, field, got)
			}
		}
		for _, f := range rules.Run(c) {
			if f.Severity == findings.Error && !f.Waived {
				t.Errorf("%s: %s: %s", v, f.Rule, f.Message)
			}
		}
	}
	// The check itself can fail: drop a row and a pair goes missing.
	if len(uncoveredPairs(variantRows[1:])) == 0 {
		t.Error("uncoveredPairs found every pair without row 0: it checks nothing")
	}
}

// refusedPair finds a pair of the row's values the loader refuses together.
func refusedPair(row []int) ([2]string, bool) {
	for i := range variantFields {
		for j := i + 1; j < len(variantFields); j++ {
			p := [2]string{variantFields[i].name + "=" + variantFields[i].values[row[i]], variantFields[j].name + "=" + variantFields[j].values[row[j]]}
			if refusedPairs[p] {
				return p, true
			}
		}
	}
	return [2]string{}, false
}

func uncoveredPairs(rows [][]int) []string {
	var missing []string
	for i := range variantFields {
		for j := i + 1; j < len(variantFields); j++ {
			for a := range variantFields[i].values {
				for b := range variantFields[j].values {
					if refusedPairs[[2]string{variantFields[i].name + "=" + variantFields[i].values[a], variantFields[j].name + "=" + variantFields[j].values[b]}] {
						continue
					}
					found := false
					for _, r := range rows {
						if r[i] == a && r[j] == b {
							found = true
							break
						}
					}
					if !found {
						missing = append(missing, fmt.Sprintf("%s=%s with %s=%s", variantFields[i].name, variantFields[i].values[a], variantFields[j].name, variantFields[j].values[b]))
					}
				}
			}
		}
	}
	return missing
}

// variantContract writes the short-lock payouts contract (shortLockContract)
// changed to v, and loads it.
func variantContract(t testing.TB, v variant) (*contract.Contract, string) {
	t.Helper()
	_, base := shortLockContract(t)
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	set := func(from, to string) {
		t.Helper()
		if !strings.Contains(src, from) {
			t.Fatalf("examples/payouts/retryspec.yaml no longer says %q", from)
		}
		src = strings.Replace(src, from, to, 1)
	}
	set("    response: conflict ", "    response: "+v["in_flight.response"]+" ")
	set("  scope: account ", "  scope: "+v["scope"]+" ")
	set("  stored_failures: replay ", "  stored_failures: "+v["stored_failures"]+" ")
	set("  fingerprint: sha256-body ", "  fingerprint: "+v["fingerprint"]+" ")
	set("  after_window: new-request ", "  after_window: "+v["after_window"]+" ")
	if o := v["stored_outcomes"]; o != unset {
		set("  stored_response: verbatim ", "  stored_outcomes: "+o+"\n  stored_response: verbatim ")
	}
	switch v["error_body"] {
	case "nested":
		set("  base_url: https://api.lumapay.example\n", "  base_url: https://api.lumapay.example\n  error_body: {code_at: /error/code, message_at: /error/message}\n")
	case "problem+json":
		set("  base_url: https://api.lumapay.example\n", "  base_url: https://api.lumapay.example\n  error_body: {format: problem+json}\n")
	}
	// check reports these choices as errors, and idempotency.New refuses
	// a contract with errors unless it waives each rule by name, as a team
	// that makes the choice on purpose does.
	var waive []string
	for field, rule := range map[string]string{"after_window=error": "window/expiry-errors", "scope=global": "key/global-scope", "fingerprint=none": "key/no-fingerprint"} {
		name, value, _ := strings.Cut(field, "=")
		if v[name] == value {
			waive = append(waive, "    - rule: "+rule+"\n      because: \"the variant matrix runs the server under "+name+": "+value+" too\"\n")
		}
	}
	if len(waive) > 0 {
		// The short-lock contract already waives its test window; the
		// variant's waivers join that list.
		slices.Sort(waive)
		if !strings.Contains(src, "\nlint:\n  waive:\n") {
			t.Fatal("the short-lock contract no longer ends with a lint: waive: list")
		}
		src += strings.Join(waive, "")
	}
	file := filepath.Join(t.TempDir(), "retryspec.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := contract.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return c, file
}

// expectedSkips are the gates a variant's own terms leave nothing to judge.
func expectedSkips(v variant) map[string]bool {
	skips := map[string]bool{}
	if v["fingerprint"] == string(contract.FingerprintNone) {
		skips[GateMismatch] = true
	}
	// The matrix keeps header_value: plain, where no key is in the wrong
	// form, and sets no first_sent or result_header (issue 32's gates run
	// in TestReferenceServerIssue32).
	skips[GateKeyForm], skips[GateTooOld], skips[GateResultHeader] = true, true, true
	return skips
}

// TestVariantMatrix runs verify against the reference server under every
// row of the matrix, on SQLite, PostgreSQL and MariaDB (the latter two
// under .ci/with-databases: skipped loudly without them, failed on CI),
// and requires every gate to pass or to be skipped only where the variant
// itself says there is nothing to judge. On SQLite each --flaw also runs
// under the accepted row and must be caught by its gate, and by no other.
//
// The work is counted, not timed: 12 sound runs per store and a run per flaw,
// each one verify run (about 160 requests, 8 server starts); the test logs
// the requests each run sent. A run spends most of its time asleep (the
// crash gate waits out lock_timeout at each kill point) and little CPU, so
// matrixRunsAtOnce of them run side by side, whatever -parallel says.
func TestVariantMatrix(t *testing.T) {
	bin := referenceServer(t)
	type job struct {
		name, store, flaw, gate string
		v                       variant
	}
	var jobs []job
	for _, store := range dbtest.Names {
		if env := dbtest.Env[store]; env != "" && os.Getenv(env) == "" {
			t.Run(store, func(t *testing.T) {
				t.Logf("set %s, or run the tests under .ci/with-databases, to run the matrix on %s", env, store)
				testenv.Missing(t, store)
			})
			continue
		}
		for _, row := range variantRows {
			v := rowVariant(row)
			jobs = append(jobs, job{name: store + "/" + v.name(), store: store, v: v})
		}
	}
	// The flaws are the middleware's, not the store's: once is enough.
	v := rowVariant(variantRows[acceptedRow])
	for _, flaw := range slices.Sorted(maps.Keys(referenceFlaws)) {
		if flaw != "" {
			jobs = append(jobs, job{name: "sqlite/" + v.name() + "/" + flaw, store: "sqlite", flaw: flaw, gate: referenceFlaws[flaw], v: v})
		}
	}
	var requests, runs atomic.Int64
	var wg sync.WaitGroup
	slots := make(chan struct{}, matrixRunsAtOnce)
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			t.Run(j.name, func(t *testing.T) {
				requests.Add(int64(runVariant(t, bin, j.store, j.v, j.flaw, j.gate)))
				runs.Add(1)
			})
		}()
	}
	wg.Wait()
	t.Logf("%d verify runs sent %d requests in all", runs.Load(), requests.Load())
}

// matrixRunsAtOnce bounds the verify runs (and reference servers) alive at
// one time.
const matrixRunsAtOnce = 6

// runVariant runs every gate against the reference server under v (with
// flaw, when set) and checks the verdicts: want fails, every other gate
// passes or is one of v's expected skips. It returns the requests sent.
func runVariant(t *testing.T, bin, store string, v variant, flaw, want string) int {
	c, file := variantContract(t, v)
	cmd := []string{bin, "--addr", "{addr}", "--store", dbtest.Fresh(t, store, os.Getenv), "--contract", file, "--jobs-every", "0"}
	if flaw != "" {
		cmd = append(cmd, "--flaw", flaw)
	}
	res, err := Run(context.Background(), Options{Contract: c, Plan: referencePlan(t, c, cmd), Env: os.Environ()})
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	if res.Aborted != nil {
		t.Fatalf("%s: aborted: %v\n%s", v, res.Aborted, text(t, res))
	}
	skips := expectedSkips(v)
	n := 0
	seen := map[string]bool{}
	for _, g := range res.Gates {
		n += g.Requests
		seen[g.Gate] = true
		wantResult := Passed
		switch {
		case g.Gate == want:
			wantResult = Failed
		case skips[g.Gate]:
			wantResult = Skipped
		}
		if g.Result != wantResult {
			t.Errorf("%s: %s %s, want %s: %s", v, g.Gate, g.Result, wantResult, g.Reason)
		} else if g.Gate == GateConcurrency || g.Gate == GateCrashRecovery {
			t.Logf("%s %s: %s", g.Gate, g.Result, g.Reason)
		}
	}
	for _, g := range IDs() {
		if !seen[g] {
			t.Errorf("%s: gate %s did not run", v, g)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", text(t, res))
	}
	t.Logf("%s: %d requests", v, n)
	return n
}
