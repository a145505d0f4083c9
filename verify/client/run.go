package client

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/suite"
	"github.com/retryspec/retryspec/verify"
)

// The variables a program under test reads.
const (
	EnvBaseURL   = snippets.BaseURLEnv
	EnvOperation = "RETRYSPEC_OPERATION"
	EnvScenario  = "RETRYSPEC_SCENARIO"
)

// DefaultRuns is how many times the backoff scenario runs when
// Options.Runs is 0: enough waits to judge the jitter.
const DefaultRuns = 3

// DefaultMargin is how long past the contract's max_elapsed a program may
// run before it is taken for hung and killed: room for a cold runtime (a
// JVM, an npm wrapper) to start and exit on a busy machine.
const DefaultMargin = 30 * time.Second

// Options configure one run.
type Options struct {
	Contract *contract.Contract
	// Operation is "METHOD /path", a keyed endpoint of the contract; ""
	// picks the endpoint the snippets call.
	Operation string
	// Only restricts the run to these gate IDs (nil: all).
	Only []string
	// Runs of the backoff scenario (0: DefaultRuns).
	Runs int
	// Command is the program and its arguments.
	Command []string
	// Env is the program's environment before the RETRYSPEC_ variables
	// (the CLI passes os.Environ()); Dir its working folder ("" = ours).
	Env []string
	Dir string
	// Margin past max_elapsed before a run is killed (0: DefaultMargin).
	Margin time.Duration
	// Progress, when set, is called as each run ends.
	Progress func(Trial)
}

// Trial is one run of the program through one scenario.
type Trial struct {
	Scenario suite.Scenario
	// Index is the run's number among Of runs of its scenario.
	Index, Of int
	Attempts  []faultserver.Request
	ExitCode  int
	// Killed is set when the program was still running at max_elapsed
	// plus the margin: it was killed with every process it started.
	Killed bool
	// Output is the last lines the program printed (stdout and stderr).
	Output  string
	Started time.Time
	Elapsed time.Duration
}

// plan is what a run or a dry run works from.
type plan struct {
	o         Options
	c         *contract.Contract
	p         snippets.Policy
	op        contract.Endpoint
	pathRE    *regexp.Regexp
	gates     []Gate
	scenarios []suite.Scenario
}

// InputError is a contract or an option verify client cannot work with:
// exit 2.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// judges refuses a contract with a client gap: its gates would pass a
// client that ignores what the gap names.
func judges(c *contract.Contract) error {
	if gaps := c.ClientGaps(); len(gaps) > 0 {
		return inputErrorf("verify client cannot judge this contract yet: it does not handle %s, so its verdicts would not be the contract's (issue 32)", strings.Join(gaps, ", "))
	}
	return nil
}

func newPlan(o Options) (*plan, error) {
	c := o.Contract
	// The snippets' policy takes a GraphQL contract (they send its
	// mutation), which no run or dry run of this judge reads yet.
	if c.Idempotency.InGraphQL() {
		if err := judges(c); err != nil {
			return nil, err
		}
	}
	p, err := snippets.NewPolicy(c)
	if err != nil {
		return nil, &InputError{Msg: c.File + ": " + err.Error()}
	}
	// NewPolicy refused a contract without a keyed endpoint.
	op, _ := c.FirstRequiredKeyEndpoint()
	if o.Operation != "" {
		i := slices.IndexFunc(c.Endpoints, func(e contract.Endpoint) bool { return sameOperation(e.Operation, o.Operation) })
		if i < 0 {
			return nil, inputErrorf("--operation %q is not an endpoint of %s; keyed endpoints: %s", o.Operation, c.File, strings.Join(keyedOperations(c), ", "))
		}
		op = c.Endpoints[i]
		if !op.Keyed() {
			return nil, inputErrorf("--operation %q has key: none in %s: verify client proves retries under a key; pick one of %s", o.Operation, c.File, strings.Join(keyedOperations(c), ", "))
		}
	}
	p.Method, p.Operation, p.Path = op.Method, op.Operation, op.Path
	// The operation's own bound (Square's differ by endpoint), not the
	// bound of the endpoint the snippets call.
	p.MaxKeyLength = c.MaxKeyLengthFor(op)
	for _, id := range o.Only {
		if !slices.Contains(IDs(), id) {
			return nil, inputErrorf("unknown client gate %q; gates: %s", id, strings.Join(IDs(), ", "))
		}
	}
	if o.Runs <= 0 {
		o.Runs = DefaultRuns
	}
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	pl := &plan{o: o, c: c, p: p, op: op, pathRE: pathPattern(op.Path)}
	for _, g := range Gates {
		if o.Only == nil || slices.Contains(o.Only, g.ID()) {
			pl.gates = append(pl.gates, g)
		}
	}
	all, _ := suite.Scenarios(p)
	for _, sc := range all {
		if slices.ContainsFunc(pl.gates, func(g Gate) bool { return g.reads(sc.Kind) }) {
			pl.scenarios = append(pl.scenarios, sc)
		}
	}
	return pl, nil
}

func (g Gate) reads(k suite.Kind) bool { return g.Kinds == nil || slices.Contains(g.Kinds, k) }

// sameOperation compares "POST /v1/x" forms, the method case-blind.
func sameOperation(a, b string) bool {
	ma, pa, _ := strings.Cut(strings.TrimSpace(a), " ")
	mb, pb, _ := strings.Cut(strings.TrimSpace(b), " ")
	return strings.EqualFold(ma, mb) && strings.TrimSpace(pa) == strings.TrimSpace(pb)
}

func keyedOperations(c *contract.Contract) []string {
	var out []string
	for _, e := range c.KeyedEndpoints() {
		out = append(out, fmt.Sprintf("%q", e.Operation))
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

// pathPattern matches a contract path, each {param} standing for one
// non-empty segment.
func pathPattern(path string) *regexp.Regexp {
	parts := strings.Split(path, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			parts[i] = "[^/]+"
		} else {
			parts[i] = regexp.QuoteMeta(s)
		}
	}
	return regexp.MustCompile("^" + strings.Join(parts, "/") + "$")
}

// times is how many runs a scenario gets: the backoff scenario repeats.
func (pl *plan) times(sc suite.Scenario) int {
	if sc.Kind == suite.KindGiveUp {
		return pl.o.Runs
	}
	return 1
}

// bound is how long one run may last before it is taken for hung.
func (pl *plan) bound() time.Duration { return pl.p.MaxElapsed + pl.o.Margin }

// Run runs the program through every scenario the selected gates read, one
// run at a time (timings stay readable), and judges the gates. The error
// is an *InputError for a contract or options it cannot use, or a program
// that cannot be started at all.
func Run(ctx context.Context, o Options) (*verify.Result, error) {
	if len(o.Command) == 0 {
		return nil, inputErrorf("no program to run: give it after --, e.g. -- python3 client.py")
	}
	if err := judges(o.Contract); err != nil {
		return nil, err
	}
	pl, err := newPlan(o)
	if err != nil {
		return nil, err
	}
	prog := o.Command[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) && o.Dir != "" {
		prog = filepath.Join(o.Dir, prog)
	}
	if _, err := exec.LookPath(prog); err != nil {
		return nil, inputErrorf("the program %q cannot be run: %v", o.Command[0], err)
	}
	var runs []Trial
	for _, sc := range pl.scenarios {
		n := pl.times(sc)
		for i := 1; i <= n; i++ {
			r, err := pl.runOnce(ctx, sc, i, n)
			if err != nil {
				return nil, err
			}
			if o.Progress != nil {
				o.Progress(r)
			}
			runs = append(runs, r)
		}
	}
	return pl.result(runs), nil
}

func (pl *plan) runOnce(ctx context.Context, sc suite.Scenario, i, of int) (Trial, error) {
	srv, err := faultserver.StartAt(keyPlace(pl.c.Idempotency, pl.p), "127.0.0.1")
	if err != nil {
		return Trial{}, fmt.Errorf("starting the fault server: %w", err)
	}
	defer srv.Close()
	sess := srv.NewRootSession(sc.Script)
	env := withVars(pl.o.Env, map[string]string{
		EnvBaseURL: sess.BaseURL(), EnvOperation: pl.op.Operation, EnvScenario: sc.Name,
	})
	res, err := runProgram(ctx, pl.o.Command, env, pl.o.Dir, pl.bound())
	if err != nil {
		return Trial{}, &InputError{Msg: fmt.Sprintf("the program cannot be started: %v", err)}
	}
	if ctx.Err() != nil {
		return Trial{}, ctx.Err()
	}
	return Trial{Scenario: sc, Index: i, Of: of, Attempts: sess.Requests(), ExitCode: res.exitCode, Killed: res.killed,
		Output: res.output, Started: res.started, Elapsed: res.elapsed}, nil
}

// keyPlace is where the fault server reads what the contract asks a client
// to send: the key in its header, or in the key_field member of the JSON
// body (a member of the top-level object: the loader refuses a nested
// pointer), and the first-sent header beside it.
func keyPlace(id contract.Idempotency, p snippets.Policy) faultserver.KeyPlace {
	return faultserver.KeyPlace{Header: p.Header, Field: id.KeyMember(), FirstSent: p.FirstSentHeader}
}

// withVars is env with vars set, replacing any earlier value.
func withVars(env []string, vars map[string]string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := vars[k]
		return ok
	})
	for _, k := range []string{EnvBaseURL, EnvOperation, EnvScenario} {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// unusable says why a run cannot be judged by any gate: the program hung,
// never called the server, or called another operation. "" when it can.
func (pl *plan) unusable(r Trial) string {
	var what string
	switch {
	case r.Killed:
		what = fmt.Sprintf("the program was still running %s after it started (max_elapsed %s plus a margin of %s) and was killed with every process it started; the server saw %d %s",
			ms(r.Elapsed), pl.p.MaxElapsed, pl.o.Margin, len(r.Attempts), plural(len(r.Attempts), "attempt", "attempts"))
	case len(r.Attempts) == 0:
		what = fmt.Sprintf("the program never called the fault server (it exited %d): it must call %s once at $%s", r.ExitCode, pl.op.Operation, EnvBaseURL)
	default:
		for i, a := range r.Attempts {
			if !strings.EqualFold(a.Method, pl.op.Method) || !pl.pathRE.MatchString(a.Path) {
				what = fmt.Sprintf("attempt %d was %s %s, not %s: the program calls another operation (set --operation, or read $%s)", i+1, a.Method, a.Path, pl.op.Operation, EnvOperation)
				break
			}
		}
	}
	if what == "" {
		return ""
	}
	return r.describe(what)
}

// unusableFix is the fix of a run no gate could judge.
const unusableFix = "make the program point its client at $" + EnvBaseURL + ", call $" + EnvOperation + " once, and exit when the client succeeds or gives up; run it by hand with " + EnvBaseURL + " set to see what it does"

func orNothing(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(nothing)"
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// result judges every selected gate on its runs.
func (pl *plan) result(runs []Trial) *verify.Result {
	res := &verify.Result{BaseURL: "client " + shellJoin(pl.o.Command) + " (fault server on 127.0.0.1, a fresh port per run)"}
	unusable := 0
	for _, r := range runs {
		if pl.unusable(r) != "" {
			unusable++
		}
	}
	if unusable == len(runs) && len(runs) > 0 {
		res.Causes = append(res.Causes, fmt.Sprintf("%s: no run could be judged (the program hung, never called the fault server, or called another operation in every scenario); see the first gate's failure for its output", pl.op.Operation))
	}
	for _, g := range pl.gates {
		gr, f := pl.judgeGate(g, runs)
		res.Gates = append(res.Gates, gr)
		if f != nil {
			res.Findings = append(res.Findings, *f)
		}
	}
	return res
}

func (pl *plan) judgeGate(g Gate, all []Trial) (verify.GateResult, *verify.Finding) {
	gr := verify.GateResult{Gate: g.ID(), Operation: pl.op.Operation, Effects: "not counted (a client gate)"}
	var runs []Trial
	var bad []string
	for _, r := range all {
		if !g.reads(r.Scenario.Kind) {
			continue
		}
		gr.Requests += len(r.Attempts)
		gr.Seconds += r.Elapsed.Seconds()
		if u := pl.unusable(r); u != "" {
			bad = append(bad, u)
			continue
		}
		runs = append(runs, r)
	}
	var v verdict
	fix := g.Doc.Fix
	switch {
	case len(bad) > 0:
		v.Fail = strings.Join(bad, "\n")
		fix = unusableFix
	case g.applies != nil && !g.applies(pl.p):
		v.Skip = g.Needs
	case len(runs) == 0:
		v.Skip = "the contract yields none of this gate's scenarios: " + g.Needs
	default:
		v = g.judge(judge{p: pl.p, id: pl.c.Idempotency, runs: runs})
	}
	switch {
	case v.Fail != "":
		gr.Result, gr.Reason = "failed", v.Fail
		repro := "retryspec verify client -c " + snippets.ShellQuote(pl.c.File) + " --operation " + snippets.ShellQuote(pl.op.Operation) + " --only " + g.ID() + " -- " + shellJoin(pl.o.Command)
		gr.Reproduction = []string{repro}
		// A finding's message is one line in text output: the first line
		// of the failure; what the server saw follows as notes, then the
		// command that reruns the gate.
		summary, detail, _ := strings.Cut(v.Fail, "\n")
		path := pl.path(g)
		pos := pl.c.PosOf(path)
		return gr, &verify.Finding{Finding: findings.Finding{
			Rule: g.ID(), Severity: findings.Error, File: pl.c.File, Line: pos.Line, Column: pos.Column, Path: path,
			Message: pl.op.Operation + ": " + summary, Fix: fix,
		}, Reproduction: append(strings.Split(detail, "\n"), repro)}
	case v.Skip != "":
		gr.Result, gr.Reason = "skipped", v.Skip
	default:
		gr.Result, gr.Reason = "passed", v.Note
	}
	return gr, nil
}

// path is the contract value g checks in this contract.
func (pl *plan) path(g Gate) string {
	if g.pathFor != nil {
		return g.pathFor(pl.c.Idempotency)
	}
	return g.Path
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool { return !isPlain(r) }) {
			q[i] = snippets.ShellQuote(a)
		}
	}
	return strings.Join(q, " ")
}

func isPlain(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r)
}

// IsInputError reports whether err is bad input (exit 2).
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
