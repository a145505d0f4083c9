// Package field is verify's field suite: idempotency libraries written by
// others, each wrapped by a small app that counts its effects, with the
// verdict every gate must reach. The verdicts were established by reading
// each library and by hand tests (handtest.py; README.md keeps the
// evidence), never by running verify. This test runs `retryspec verify`
// on each app and holds verify to them.
package field

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify"
)

// The results verify reports for a gate.
const (
	pass = verify.Passed
	fail = verify.Failed
	skip = verify.Skipped
)

// verdict is the truth about one gate on one library: what verify must
// report, and why (the evidence in one line; README.md has the rest).
type verdict struct {
	result verify.Outcome
	why    string
}

// library is one field library: its app's runtime, the installed files
// that prove the pinned versions are there, and the verdict of every gate.
type library struct {
	dir      string // folder of the app, its contract and its plan
	runtime  string // program the app runs on
	installs []pin
	verdicts map[string]verdict
}

// pin is an installed file under deps; for an npm package.json, the
// version it must state (a Python dist-info folder names its own).
type pin struct {
	path, version string
}

// deps is where .ci/install-verifyfield installs the libraries.
const deps = "verify/field/.deps"

var libraries = []library{
	{
		dir:     "django-idempotency-key",
		runtime: "python3",
		installs: []pin{
			{path: "python/django_idempotency_key-1.3.0.dist-info"},
			{path: "python/django-5.2.19.dist-info"},
		},
		verdicts: map[string]verdict{
			verify.GateMissingKey:    {pass, "process_view rejects a keyless POST with 400 {\"error\": \"Bad Request (400)\"}, no code (the contract's code: none)"},
			verify.GateKeyTooLong:    {skip, "the library sets no key length limit, so the contract states 8192, which verify cannot test (a 257-character key ran and made an effect by hand)"},
			verify.GateConcurrency:   {fail, "the lock covers only the lookup; the view runs unclaimed and the response is stored after it: 16 requests made 5 effects by hand"},
			verify.GateReplay:        {fail, "a repeat gets the stored body with status 409 (CONFLICT_STATUS_CODE), not the original 201"},
			verify.GateMismatch:      {skip, "the body is part of the stored key, so there is no fingerprint to mismatch: the contract says fingerprint: none"},
			verify.GateScope:         {pass, "the stored key hashes the Authorization header: the second caller got its own outcome and effect (1 and 1 by hand)"},
			verify.GateRestartReplay: {fail, "MemoryKeyStorage is a dict in the process: after a restart the repeat ran again (2 effects by hand)"},
			verify.GateCrashRecovery: {fail, "nothing is stored before the view answers: killed at the bank call, the retry after a restart ran the view again (2 effects by hand)"},
			verify.GateFailedAttempt: {pass, "process_response stores only 2xx (STORE_ON_STATUSES): the app's 502 after a failed bank call was not stored, the retry ran the view and got 201 (net 1 effect by hand)"},
			verify.GateKeyForm:       {skip, "header_value: plain: the raw header is hashed as sent (a quoted key was another key by hand, 201 and its own effect)"},
			verify.GateAfterWindow:   {skip, "MemoryKeyStorage never expires a key and has no setting for it, so the window is the contract's 24h, past what verify waits (the repeat 31 s later was still the 409 replay by hand)"},
			verify.GateTooOld:        {skip, "nothing in idempotency_key reads a time the client first sent the request, so the contract states no first_sent and the gate sends nothing"},
			verify.GateResultHeader:  {skip, "the middleware sets no header reporting whether a request was accepted or rejected, so the contract states no result_header"},
		},
	},
	{
		dir:     "drf-idempotency",
		runtime: "python3",
		installs: []pin{
			{path: "python/drf_idempotency-1.0.0.dist-info"},
			{path: "python/django-5.2.19.dist-info"},
			{path: "python/djangorestframework-3.16.1.dist-info"},
		},
		verdicts: map[string]verdict{
			verify.GateMissingKey:    {pass, "REQUIRE_KEY: 400 {\"detail\": \"This request requires an Idempotency-Key header.\"}, no code"},
			verify.GateKeyTooLong:    {pass, "validate_key refuses more than MAX_KEY_LENGTH 255 with 400 before any claim (0 effects by hand)"},
			verify.GateConcurrency:   {pass, "get_or_create on the unique key column lets one request in; the rest got 409 or the replay (1 effect by hand)"},
			verify.GateReplay:        {pass, "the stored status, headers and body bytes come back, with Idempotent-Replayed: true (false on the first run)"},
			verify.GateMismatch:      {pass, "a different sha256 of method, path and body gets 422 before the view runs (1 effect by hand)"},
			verify.GateScope:         {pass, "scope: global: the record is unique on the key alone; the second caller got the replay and made no effect"},
			verify.GateRestartReplay: {pass, "the DatabaseBackend keeps the completed record in SQLite: the repeat after a restart was the replay (1 effect by hand)"},
			verify.GateCrashRecovery: {fail, "a killed request's in-progress record is reclaimed after LOCK_TTL_SECONDS and the view runs again from the start (409, then 201 and 2 effects by hand)"},
			verify.GateFailedAttempt: {pass, "_finalize deletes the record on a 5xx (backend.fail): the app's 502 after a failed bank call was not stored, the retry ran the view and got 201 (net 1 effect by hand)"},
			verify.GateKeyForm:       {skip, "header_value: plain: validate_key takes the raw header (a quoted key got 400 by hand: its quotes are outside [A-Za-z0-9._~:-])"},
			verify.GateAfterWindow:   {pass, "TTL_SECONDS 30: _handle_existing deletes the expired completed record and claims the key anew; 31 s later the repeat got a new 201, Idempotent-Replayed: false, a second effect by hand"},
			verify.GateTooOld:        {skip, "nothing in drf_idempotency reads a first-sent time, so the contract states no first_sent and the gate sends nothing"},
			verify.GateResultHeader:  {skip, "REPLAY_HEADER_NAME (Idempotent-Replayed) marks a replay only, which the contract states as replay_header; no header reports accepted or rejected, so the contract states no result_header"},
		},
	},
	{
		dir:     "nestjs",
		runtime: "node",
		installs: []pin{
			{"node/node_modules/@node-idempotency/nestjs/package.json", "1.0.4"},
			{"node/node_modules/@node-idempotency/core/package.json", "1.0.7"},
			{"node/node_modules/@nestjs/core/package.json", "10.4.9"},
		},
		verdicts: map[string]verdict{
			verify.GateMissingKey:    {pass, "enforceIdempotency: 400 {\"statusCode\":400,\"message\":\"Idempotency-Key is missing\"}, no code"},
			verify.GateKeyTooLong:    {pass, "validateRequest refuses more than keyMaxLength 256 with 400 before setIfNotExists (0 effects by hand)"},
			verify.GateConcurrency:   {pass, "setIfNotExists on a Map is atomic on Node's one thread: 1 effect, one 409 and 15 replays by hand"},
			verify.GateReplay:        {pass, "the stored status and body come back with Idempotent-Replayed: true, byte-identical by hand"},
			verify.GateMismatch:      {pass, "a different body hash gets 422 \"Idempotency-Key is already used\" (1 effect by hand)"},
			verify.GateScope:         {pass, "scope: global: the cache key has no caller; the second caller got the replay and made no effect"},
			verify.GateRestartReplay: {fail, "the memory adapter is a Map in the process: after a restart the repeat ran again (2 effects by hand)"},
			verify.GateCrashRecovery: {fail, "the in-progress entry dies with the process and the handler reruns on retry (2 effects by hand)"},
			verify.GateFailedAttempt: {pass, "stored_failures: replay: handleNewRequest's catchError stores the app's 502 BadGatewayException; the retry got the same 502 and body, Idempotent-Replayed: true, no bank call (0 effects by hand)"},
			verify.GateKeyForm:       {skip, "header_value: plain: the raw header goes into the cache key (a quoted key was another key by hand, 201 and its own effect)"},
			verify.GateAfterWindow:   {pass, "cacheTTLMS 30 s: MemoryStorageAdapter.get drops the expired entry and onRequest runs the request as new; 31 s later the repeat got a new 201 and a second effect by hand"},
			verify.GateTooOld:        {skip, "nothing in @node-idempotency reads a first-sent time, so the contract states no first_sent and the gate sends nothing"},
			verify.GateResultHeader:  {skip, "Idempotent-Replayed marks a replay only, which the contract states as replay_header; no header reports accepted or rejected, so the contract states no result_header"},
		},
	},
}

func TestMain(m *testing.M) {
	// The plans' server commands are relative to the repository root, as
	// the README runs them.
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// TestFieldLibraries runs verify on each library's app and compares every
// gate's result with the established verdict.
func TestFieldLibraries(t *testing.T) {
	for _, lib := range libraries {
		t.Run(lib.dir, func(t *testing.T) {
			t.Parallel()
			lib.check(t)
			gates, code := runVerify(t, lib.dir)
			wantCode := 0
			for _, v := range lib.verdicts {
				if v.result == fail {
					wantCode = cli.ExitFindings
				}
			}
			if code != wantCode {
				t.Errorf("retryspec verify exited %d, want %d", code, wantCode)
			}
			seen := map[string]bool{}
			for _, g := range gates {
				seen[g.Gate] = true
				want, ok := lib.verdicts[g.Gate]
				switch {
				case !ok:
					t.Errorf("%s: verify reported %s (%s), and the suite has no established verdict for this gate: read the library, hand-test it and add one to README.md and to this table", g.Gate, g.Result, g.Reason)
				case g.Result != want.result:
					t.Errorf("%s: verify said %s, the truth is %s (%s)\n    verify's reason: %s", g.Gate, g.Result, want.result, want.why, g.Reason)
				default:
					t.Logf("%s: %s as established (%s)", g.Gate, g.Result, g.Reason)
				}
			}
			for gate := range lib.verdicts {
				if !seen[gate] {
					t.Errorf("%s: verify reported no result for this gate", gate)
				}
			}
		})
	}
}

// check fails on CI and skips elsewhere when the runtime or the pinned
// library is not installed.
func (lib library) check(t *testing.T) {
	t.Helper()
	testenv.LookPath(t, lib.runtime)
	for _, p := range lib.installs {
		file := filepath.Join(deps, p.path)
		got := ""
		data, err := os.ReadFile(file)
		if p.version != "" && err == nil {
			var pkg struct{ Version string }
			_ = json.Unmarshal(data, &pkg)
			got = pkg.Version
		}
		if _, err := os.Stat(file); err != nil || got != p.version {
			testenv.Missing(t, lib.dir+"'s pinned library ("+file+" "+p.version+"; run bash .ci/install-verifyfield)")
		}
	}
}

// runVerify runs `retryspec verify --format json` on the library's
// contract and plan, with the app's state in a fresh folder, and returns
// the gates it reported and its exit code.
func runVerify(t *testing.T, dir string) ([]verify.GateResult, int) {
	t.Helper()
	state := t.TempDir()
	var out, errOut bytes.Buffer
	sys := &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string {
		if k == "FIELD_STATE" {
			return state
		}
		return os.Getenv(k)
	}}
	code := cli.Main([]string{"verify", "-c", filepath.Join("verify", "field", dir, "retryspec.yaml"), "--format", "json"}, sys)
	if code != 0 && code != cli.ExitFindings {
		t.Fatalf("retryspec verify exited %d:\n%s\n%s", code, errOut.String(), out.String())
	}
	var report struct {
		Gates   []verify.GateResult `json:"gates"`
		Aborted string              `json:"aborted"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("verify's JSON: %v\n%s", err, out.String())
	}
	if report.Aborted != "" {
		t.Fatalf("verify aborted: %s", report.Aborted)
	}
	slices.SortFunc(report.Gates, func(a, b verify.GateResult) int { return strings.Compare(a.Gate, b.Gate) })
	return report.Gates, code
}
