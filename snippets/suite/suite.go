package suite

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

// Slack is how much later than its logged wait a retry may reach the
// server, and how far past max_elapsed a program may end: process
// scheduling on a busy shared machine, connection set-up. It is generous
// because the bounds it guards catch unit mistakes (seconds for
// milliseconds), while the waits themselves are checked exactly against the
// jitter envelope and from below against the server's clock.
const Slack = 5 * time.Second

// RunTimeout ends a snippet run that hangs: well past the test contract's
// overall deadline.
const RunTimeout = TestMaxElapsed + 20*time.Second

// Options configures a suite run.
type Options struct {
	// Languages to prove; all when empty.
	Languages []string
	Runner    run.Runner
	// Vars fills the placeholders of the languages' commands ({jars}, ...).
	Vars map[string]string
	// Progress receives one line per language and scenario as it ends.
	Progress io.Writer
	// LookPath finds a runtime; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Parallel is how many scenarios of one language run at once (default 3).
	Parallel int
	// Scenarios, when set, limits the run to the scenarios of these names.
	Scenarios []string
	// MaxProcs bounds the snippet processes running at once across all
	// languages (default 8), so the suite does not starve itself of CPU.
	MaxProcs int
	// Host is the loopback address the fault server listens on:
	// "127.0.0.1" (the default) or "::1", for base URLs like
	// http://[::1]:PORT.
	Host string
}

// Outcome is one language through one scenario (or its build).
type Outcome struct {
	Language string
	Scenario string
	Problems []string
	Elapsed  time.Duration

	order int // the scenario's place in the list, for a stable report
}

// Passed reports whether the outcome has no problem.
func (o Outcome) Passed() bool { return len(o.Problems) == 0 }

// Report is the whole run.
type Report struct {
	Outcomes []Outcome
	// LanguageTime is each language's wall time, build included.
	LanguageTime map[string]time.Duration
	Omitted      []string
	Elapsed      time.Duration
}

// Counts returns how many outcomes passed and failed.
func (r Report) Counts() (passed, failed int) {
	for _, o := range r.Outcomes {
		if o.Passed() {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// Run proves each language's rendered snippet of TestContract(c) against a
// fresh fault server. Languages run in parallel; a language's scenarios run
// one after another so their timings stay readable.
func Run(ctx context.Context, c *contract.Contract, opts Options) (Report, error) {
	start := time.Now()
	if opts.Parallel == 0 {
		opts.Parallel = 3
	}
	if opts.MaxProcs == 0 {
		opts.MaxProcs = 8
	}
	procs := make(chan struct{}, opts.MaxProcs)
	tc := TestContract(c)
	p, err := snippets.NewPolicy(tc)
	if err != nil {
		return Report{}, err
	}
	langs := opts.Languages
	if len(langs) == 0 {
		langs = snippets.LanguageNames()
	}
	for _, l := range langs {
		if _, ok := snippets.LanguageNamed(l); !ok {
			return Report{}, fmt.Errorf("unknown snippet language %q (one of %s)", l, strings.Join(snippets.LanguageNames(), ", "))
		}
	}
	host := opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	srv, err := faultserver.StartAt(keyPlace(p, tc), host)
	if err != nil {
		return Report{}, fmt.Errorf("starting the fault server: %w", err)
	}
	defer srv.Close()
	scenarios, omitted := Scenarios(p)
	if len(opts.Scenarios) > 0 {
		var keep []Scenario
		for _, sc := range scenarios {
			if slices.Contains(opts.Scenarios, sc.Name) {
				keep = append(keep, sc)
			}
		}
		scenarios = keep
	}

	rep := Report{LanguageTime: map[string]time.Duration{}, Omitted: omitted}
	var mu sync.Mutex
	emit := func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		rep.Outcomes = append(rep.Outcomes, o)
		if opts.Progress != nil {
			status := "ok  "
			if !o.Passed() {
				status = "FAIL"
			}
			fmt.Fprintf(opts.Progress, "%s %-10s %-28s %6.2fs\n", status, o.Language, o.Scenario, o.Elapsed.Seconds())
			for _, pr := range o.Problems {
				fmt.Fprintf(opts.Progress, "     %s\n", indent(pr))
			}
		}
	}
	var wg sync.WaitGroup
	for _, name := range langs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			proveLanguage(ctx, tc, p, name, scenarios, srv, opts, procs, emit)
			mu.Lock()
			rep.LanguageTime[name] = time.Since(t0)
			mu.Unlock()
		}()
	}
	wg.Wait()
	rank := map[string]int{}
	for i, l := range langs {
		rank[l] = i
	}
	sort.SliceStable(rep.Outcomes, func(i, j int) bool {
		a, b := rep.Outcomes[i], rep.Outcomes[j]
		if a.Language != b.Language {
			return rank[a.Language] < rank[b.Language]
		}
		return a.order < b.order
	})
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// MissingNeed checks the language's needs in order and returns the line
// for the first one missing, or "".
func MissingNeed(ctx context.Context, lang snippets.Language, opts Options, look func(string) (string, error)) string {
	expand := func(s string) string {
		for k, v := range opts.Vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	cache := opts.Vars["cache"]
	for _, n := range lang.Needs() {
		switch {
		case n.Program != "":
			if _, err := look(expand(n.Program)); err != nil {
				return n.Message(cache)
			}
		case n.Files != "":
			matches, _ := filepath.Glob(expand(n.Files))
			if !slices.ContainsFunc(matches, func(m string) bool { return strings.Contains(filepath.Base(m), n.Match) }) {
				return n.Message(cache)
			}
		case n.Probe != nil:
			prog, err := opts.Runner.Prepare(ctx, run.Program{FileName: n.Probe.FileName, Source: []byte(n.Probe.Source),
				Run: n.Probe.Run, Vars: opts.Vars, Timeout: probeTimeout})
			if err != nil {
				return n.Message(cache)
			}
			res, err := prog.Run(ctx, nil)
			prog.Close()
			if err != nil || res.TimedOut || res.ExitCode != 0 {
				return n.Message(cache)
			}
		}
	}
	return ""
}

// probeTimeout ends a probe that hangs; an import takes well under a second.
const probeTimeout = 60 * time.Second

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n     ") }

func proveLanguage(ctx context.Context, tc *contract.Contract, p snippets.Policy, name string, scenarios []Scenario, srv *faultserver.Server, opts Options, procs chan struct{}, emit func(Outcome)) {
	lang, _ := snippets.LanguageNamed(name)
	t0 := time.Now()
	fail := func(what string, format string, args ...any) {
		emit(Outcome{Language: name, Scenario: what, Problems: []string{fmt.Sprintf(format, args...)}, Elapsed: time.Since(t0)})
	}
	look := opts.LookPath
	if look == nil {
		look = exec.LookPath
	}
	// What the snippet needs, checked first and reported once: one line
	// naming the missing piece and how to install it, not a failure per
	// scenario.
	if msg := MissingNeed(ctx, lang, opts, look); msg != "" {
		fail("runtime", "%s", msg)
		return
	}
	for _, prog := range run.Programs(lang.Runtime, lang.Build, lang.Run, opts.Vars) {
		if _, err := look(prog); err != nil {
			fail("runtime", "%s is not installed", prog)
			return
		}
	}
	src, err := snippets.Render(tc, name)
	if err != nil {
		fail("render", "%v", err)
		return
	}
	procs <- struct{}{}
	prog, err := opts.Runner.Prepare(ctx, run.Program{
		FileName: lang.FileName, Source: src, Build: lang.Build, Run: lang.Run,
		Vars: opts.Vars, Timeout: RunTimeout,
	})
	<-procs
	if err != nil {
		fail("build", "%v", err)
		return
	}
	defer prog.Close()
	// Scenarios run three at a time: most of a run is waiting (backoff,
	// Retry-After, a hung attempt), so a second run overlaps it cheaply.
	var (
		firstWaits []int
		wmu        sync.Mutex
		wg         sync.WaitGroup
		sem        = make(chan struct{}, max(1, opts.Parallel))
	)
	for i, sc := range scenarios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			procs <- struct{}{}
			t1 := time.Now()
			sess := srv.NewSession(sc.Script)
			res, err := prog.Run(ctx, map[string]string{snippets.BaseURLEnv: sess.BaseURL()})
			<-procs
			o := Outcome{Language: name, Scenario: sc.Name, Elapsed: time.Since(t1), order: i}
			if err != nil {
				o.Problems = []string{err.Error()}
			} else {
				var waits []int
				o.Problems, waits = check(p, sc, res, sess.Requests())
				if len(waits) > 0 && sc.Script[0].RetryAfter == "" {
					wmu.Lock()
					firstWaits = append(firstWaits, waits[0])
					wmu.Unlock()
				}
			}
			emit(o)
		}()
	}
	wg.Wait()
	// Jitter is real: the first wait differs between runs. Three samples
	// keep the chance that honest jitter repeats itself negligible.
	if p.Jitter != "none" && len(firstWaits) >= 3 {
		o := Outcome{Language: name, Scenario: "jitter-differs-between-runs", Elapsed: time.Since(t0), order: len(scenarios)}
		if allEqual(firstWaits) {
			o.Problems = []string{fmt.Sprintf("every run waited %d ms before its first retry: the jitter is not random", firstWaits[0])}
		}
		emit(o)
	}
}

func allEqual(xs []int) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// check compares one run with what the contract demands. It returns the
// problems found and the logged waits.
func check(p snippets.Policy, sc Scenario, res run.Result, reqs []faultserver.Request) (problems []string, waits []int) {
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	defer func() {
		if len(problems) > 0 {
			problems = append(problems, "stderr:\n"+strings.TrimSpace(string(tail(res.Stderr, 2000))))
		}
	}()
	if res.TimedOut {
		bad("the program did not finish within %s", RunTimeout)
		return problems, nil
	}
	if sc.Success && res.ExitCode != 0 {
		bad("exit code %d, want 0 (the last answer was a success)", res.ExitCode)
	}
	if !sc.Success && res.ExitCode == 0 {
		bad("exit code 0, want non-zero (the client must give up)")
	}
	if lo := cmp.Or(sc.MinRequests, sc.Requests); len(reqs) < lo || len(reqs) > sc.Requests {
		if lo == sc.Requests {
			bad("server saw %d requests, want %d", len(reqs), sc.Requests)
		} else {
			bad("server saw %d requests, want %d to %d", len(reqs), lo, sc.Requests)
		}
	}
	if len(reqs) == 0 {
		return problems, nil
	}
	key := reqs[0].Key
	if key == "" {
		bad("request 1 carries no %s", placeName(p))
	}
	if p.MaxKeyLength > 0 && len(key) > p.MaxKeyLength {
		bad("key %q is longer than max_key_length %d", key, p.MaxKeyLength)
	}
	if !json.Valid(reqs[0].Body) || !strings.HasPrefix(reqs[0].ContentType, "application/json") {
		bad("request 1 is not a JSON body (Content-Type %q, body %q)", reqs[0].ContentType, reqs[0].Body)
	} else if want := wantBody(p, key); !sameJSON(reqs[0].Body, []byte(want)) {
		// The language's literal of the example body, as its runtime
		// serialises it, is the contract's request: member for member
		// (with the key in it when it travels in the body).
		bad("request 1 sent %s, not the contract's example request %s", reqs[0].Body, want)
	}
	problems = append(problems, checkFirstSent(p, res.Started, reqs)...)
	if p.SFString && !strings.HasPrefix(reqs[0].RawKey, `"`) {
		bad("header value %q is not an sf-string (idempotency.header_value: sf-string)", reqs[0].RawKey)
	}
	for i, r := range reqs {
		if r.Key != key {
			bad("request %d carries key %q, request 1 carried %q: one key per logical request", i+1, r.Key, key)
		}
		if r.Method != p.Method || r.Path != p.Path {
			bad("request %d is %s %s, want %s %s", i+1, r.Method, r.Path, p.Method, p.Path)
		}
		if !bytes.Equal(r.Body, reqs[0].Body) {
			bad("request %d sent another body than request 1: a retry must repeat the request", i+1)
		}
	}

	// The effect happens once: at most one request is answered with the
	// mutation's (or the operation's) result; a client that sends the
	// request again after it would make the server act twice.
	if n := effects(reqs); n > 1 {
		bad("%d requests were answered with the result: the effect happened %d times, want once", n, n)
	}

	// One log line per retry, with the attempt number and the next wait.
	for line := range strings.Lines(string(res.Stderr)) {
		m := snippets.RetryLogLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[3])
		if n != len(waits)+1 {
			bad("retry log line %q: attempt %d, want %d", strings.TrimSpace(line), n, len(waits)+1)
		}
		waits = append(waits, w)
	}
	// A client never plans a wait that takes it past its overall deadline.
	total := 0
	for _, w := range waits {
		total += w
	}
	if planned := time.Duration(total) * time.Millisecond; planned >= p.MaxElapsed {
		bad("the logged waits add up to %s, past max_elapsed %s: the loop must stop before a wait that cannot fit", planned, p.MaxElapsed)
	}

	if want := len(reqs) - 1; len(waits) != want {
		bad("%d retry log lines, want %d (one per retry)", len(waits), want)
		return problems, waits
	}

	// Each wait inside its envelope, and real on the server's clock.
	prev := p.Base
	for i, w := range waits {
		step := reqs[i].Step
		wait := time.Duration(w) * time.Millisecond
		if step.RetryAfter != "" {
			ra, _ := strconv.Atoi(step.RetryAfter)
			if d := wait - time.Duration(ra)*time.Second; d < -time.Millisecond || d > 50*time.Millisecond {
				bad("retry %d waited %s, want Retry-After %ss", i+1, wait, step.RetryAfter)
			}
		} else {
			lo, hi := Envelope(p, i+1, prev)
			if wait < lo-time.Millisecond || wait > hi+time.Millisecond {
				bad("retry %d waited %s, outside the %s jitter envelope [%s, %s]", i+1, wait, p.Jitter, lo, hi)
			}
			prev = wait
		}
		end := reqs[i].Answered
		if end.IsZero() { // the client hung up (its attempt timeout)
			continue
		}
		gap := reqs[i+1].Arrived.Sub(end)
		if gap < wait-5*time.Millisecond {
			bad("retry %d reached the server %s after the previous answer, sooner than the logged wait %s", i+1, gap.Round(time.Millisecond), wait)
		}
		if gap > wait+Slack {
			bad("retry %d reached the server %s after the previous answer, far beyond the logged wait %s", i+1, gap.Round(time.Millisecond), wait)
		}
	}

	// A hung attempt is cut at the per-attempt timeout.
	for i, r := range reqs {
		if r.Step.Delay > 0 && i+1 < len(reqs) {
			gap := reqs[i+1].Arrived.Sub(r.Arrived)
			// The lower bound is loose: a client starts its attempt clock before
			// its first connection reaches the server (Node loads its HTTP
			// client lazily on the first fetch).
			if gap < p.AttemptTimeout/2 || gap > p.AttemptTimeout+p.Cap+Slack {
				bad("attempt %d hung; the retry came %s later, want the attempt timeout %s plus a wait", i+1, gap.Round(time.Millisecond), p.AttemptTimeout)
			}
			if !r.ClientGone {
				bad("attempt %d hung but the client did not hang up", i+1)
			}
		}
	}

	if sc.WithinElapsed {
		end := res.Started.Add(res.Elapsed)
		if over := end.Sub(reqs[0].Arrived); over > p.MaxElapsed+Slack {
			bad("the program ran %s after its first request, past max_elapsed %s", over.Round(time.Millisecond), p.MaxElapsed)
		}
	}
	return problems, waits
}

// checkFirstSent checks the first-sent header of a contract that has one
// (idempotency.first_sent): every attempt carries it, as an IMF-fixdate
// HTTP date (the form http.TimeFormat writes; RFC 9110 requires senders to
// use it), stamped around the first attempt rather than a fixed date, and
// the same on every attempt of the call, as the key.
func checkFirstSent(p snippets.Policy, started time.Time, reqs []faultserver.Request) (problems []string) {
	if p.FirstSentHeader == "" {
		return nil
	}
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	first := reqs[0].FirstSent
	for i, r := range reqs {
		switch {
		case r.FirstSent == "":
			bad("request %d carries no %s header (idempotency.first_sent)", i+1, p.FirstSentHeader)
		case r.FirstSent != first:
			bad("request %d carries %s %q, request 1 carried %q: the first-sent time is stamped once per logical request", i+1, p.FirstSentHeader, r.FirstSent, first)
		}
	}
	if first == "" {
		return problems
	}
	if why := faultserver.StampProblem(first, started, reqs[0].Arrived); why != "" {
		bad("request 1's %s %q %s", p.FirstSentHeader, first, why)
	}
	return problems
}

// Envelope is the range the contract's jitter formula allows for the wait
// after failed attempt n (1-based); prev is the previous wait, which
// decorrelated jitter grows from.
func Envelope(p snippets.Policy, n int, prev time.Duration) (lo, hi time.Duration) {
	top := time.Duration(math.Min(float64(p.Cap), float64(p.Base)*math.Pow(p.Multiplier, float64(n-1))))
	switch p.Jitter {
	case "none":
		return top, top
	case "equal":
		return top / 2, top
	case "decorrelated":
		return p.Base, min(p.Cap, 3*prev)
	default: // full
		return 0, top
	}
}

func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[len(b)-n:]
}

// sameJSON reports whether two JSON texts hold the same value: members in
// any order, numbers compared as numbers (-1500 and -1.5e3 are equal).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// keyPlace is where the fault server reads the key the snippets send.
func keyPlace(p snippets.Policy, c *contract.Contract) faultserver.KeyPlace {
	if p.GraphQL {
		g := c.Idempotency.GraphQL
		return faultserver.KeyPlace{GraphQL: &faultserver.GraphQLKey{Directive: g.Directive, Argument: g.Argument}}
	}
	if p.KeyInBody {
		return faultserver.KeyPlace{Field: p.KeyField, FirstSent: p.FirstSentHeader}
	}
	return faultserver.KeyPlace{Header: p.Header, FirstSent: p.FirstSentHeader}
}

func placeName(p snippets.Policy) string {
	if p.GraphQL {
		return "key in the mutation's $" + p.KeyVariable + " variable"
	}
	if p.KeyInBody {
		return "key in the body member " + p.KeyField
	}
	return p.Header + " header"
}

// wantBody is the request body the snippet must send with key: the
// example body, with the key as its member when the key travels there.
func wantBody(p snippets.Policy, key string) string {
	if p.GraphQL {
		return contract.GraphQLVariables(p.Body, p.KeyVariable, key).String()
	}
	if !p.KeyInBody {
		return p.Body.String()
	}
	id := contract.Idempotency{KeyIn: contract.KeyInBody, KeyField: []string{p.KeyField}}
	return id.WithKey(p.Body, key).String()
}

// effects counts the requests the server answered with the result.
func effects(reqs []faultserver.Request) (n int) {
	for _, r := range reqs {
		if r.Step.Effect && !r.ClientGone {
			n++
		}
	}
	return n
}
