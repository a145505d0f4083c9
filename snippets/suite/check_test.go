package suite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

func testPolicy() snippets.Policy {
	return snippets.Policy{
		Method: "POST", Path: "/v1/transfers", Header: "Idempotency-Key",
		Statuses: []int{429, 503}, Cautious: []int{500}, RetryAfterStatuses: []int{429, 503},
		Jitter: "full", Base: 50 * time.Millisecond, Cap: 400 * time.Millisecond, Multiplier: 2,
		MaxAttempts: 3, MaxElapsed: TestMaxElapsed, AttemptTimeout: TestAttemptTimeout,
	}
}

// history builds what the server would record for a client that waited
// waits[i] after answer i, sending key for each request.
func history(t0 time.Time, script faultserver.Script, keys []string, waits []time.Duration) []faultserver.Request {
	var reqs []faultserver.Request
	at := t0
	for i, k := range keys {
		step := script[min(i, len(script)-1)]
		r := faultserver.Request{Arrived: at, Answered: at.Add(5 * time.Millisecond), Method: "POST", Path: "/v1/transfers", Key: k, RawKey: k, Body: []byte(`{"a":1}`), ContentType: "application/json", Step: step}
		reqs = append(reqs, r)
		if i < len(waits) {
			at = r.Answered.Add(waits[i])
		}
	}
	return reqs
}

func logLines(waits ...int) []byte {
	var b strings.Builder
	for i, w := range waits {
		fmt.Fprintf(&b, snippets.RetryLogFormat+"\n", i+1, "HTTP 503", w)
	}
	return []byte(b.String())
}

func TestCheck(t *testing.T) {
	p := testPolicy()
	t0 := time.Now()
	fail503 := faultserver.Script{{Status: 503}}
	recover := Scenario{Name: "recover", Script: faultserver.Script{{Status: 503}, {Status: 503}, {Status: 201}}, Requests: 3, Success: true}
	giveUp := Scenario{Name: "give-up", Script: fail503, Requests: 3}
	ms := time.Millisecond
	tests := []struct {
		name  string
		sc    Scenario
		res   run.Result
		reqs  []faultserver.Request
		wants []string // substrings of the expected problems; none means pass
	}{
		{"good recovery", recover, run.Result{Stderr: logLines(30, 70)},
			history(t0, recover.Script, []string{"k", "k", "k"}, []time.Duration{30 * ms, 70 * ms}), nil},
		{"new key per attempt", recover, run.Result{Stderr: logLines(30, 70)},
			history(t0, recover.Script, []string{"k1", "k2", "k3"}, []time.Duration{30 * ms, 70 * ms}), []string{"one key per logical request"}},
		{"no key", recover, run.Result{Stderr: logLines(30, 70)},
			history(t0, recover.Script, []string{"", "", ""}, []time.Duration{30 * ms, 70 * ms}), []string{"carries no Idempotency-Key"}},
		{"exit code on success", recover, run.Result{ExitCode: 1, Stderr: logLines(30, 70)},
			history(t0, recover.Script, []string{"k", "k", "k"}, []time.Duration{30 * ms, 70 * ms}), []string{"want 0"}},
		{"exit 0 on give-up", giveUp, run.Result{Stderr: logLines(30, 70)},
			history(t0, fail503, []string{"k", "k", "k"}, []time.Duration{30 * ms, 70 * ms}), []string{"want non-zero"}},
		{"too many requests", giveUp, run.Result{ExitCode: 1, Stderr: logLines(30, 70, 20)},
			history(t0, fail503, []string{"k", "k", "k", "k"}, []time.Duration{30 * ms, 70 * ms, 20 * ms}), []string{"4 requests, want 3"}},
		{"silent retry", giveUp, run.Result{ExitCode: 1, Stderr: logLines(30)},
			history(t0, fail503, []string{"k", "k", "k"}, []time.Duration{30 * ms, 70 * ms}), []string{"1 retry log lines, want 2"}},
		{"wait outside envelope", giveUp, run.Result{ExitCode: 1, Stderr: logLines(80, 70)},
			history(t0, fail503, []string{"k", "k", "k"}, []time.Duration{80 * ms, 70 * ms}), []string{"outside the full jitter envelope [0s, 50ms]"}},
		{"logged wait not slept", giveUp, run.Result{ExitCode: 1, Stderr: logLines(40, 90)},
			history(t0, fail503, []string{"k", "k", "k"}, []time.Duration{1 * ms, 90 * ms}), []string{"sooner than the logged wait"}},
		{"slept far longer than logged", giveUp, run.Result{ExitCode: 1, Stderr: logLines(40, 90)},
			history(t0, fail503, []string{"k", "k", "k"}, []time.Duration{40 * time.Second, 90 * ms}), []string{"far beyond the logged wait"}},
		{"timed out", giveUp, run.Result{TimedOut: true}, nil, []string{"did not finish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := check(p, tt.sc, tt.res, tt.reqs)
			if len(tt.wants) == 0 {
				if len(problems) > 0 {
					t.Errorf("problems = %q, want none", problems)
				}
				return
			}
			all := strings.Join(problems, "\n")
			for _, w := range tt.wants {
				if !strings.Contains(all, w) {
					t.Errorf("problems = %q, want one containing %q", problems, w)
				}
			}
		})
	}
}

func TestCheckRetryAfter(t *testing.T) {
	p := testPolicy()
	sc := Scenario{Name: "429", Script: faultserver.Script{{Status: 429, RetryAfter: "1"}, {Status: 201}}, Requests: 2, Success: true}
	reqs := history(time.Now(), sc.Script, []string{"k", "k"}, []time.Duration{time.Second})
	if problems, _ := check(p, sc, run.Result{Stderr: logLines(1000)}, reqs); len(problems) > 0 {
		t.Errorf("honoured Retry-After: problems %q", problems)
	}
	reqs = history(time.Now(), sc.Script, []string{"k", "k"}, []time.Duration{30 * time.Millisecond})
	problems, _ := check(p, sc, run.Result{Stderr: logLines(30)}, reqs)
	if !strings.Contains(strings.Join(problems, "\n"), "want Retry-After 1s") {
		t.Errorf("ignored Retry-After: problems %q", problems)
	}
}

func TestEnvelope(t *testing.T) {
	p := testPolicy()
	ms := time.Millisecond
	tests := []struct {
		jitter string
		n      int
		prev   time.Duration
		lo, hi time.Duration
	}{
		{"full", 1, 0, 0, 50 * ms},
		{"full", 3, 0, 0, 200 * ms},
		{"full", 5, 0, 0, 400 * ms}, // capped
		{"equal", 2, 0, 50 * ms, 100 * ms},
		{"none", 2, 0, 100 * ms, 100 * ms},
		{"decorrelated", 1, 50 * ms, 50 * ms, 150 * ms},
		{"decorrelated", 2, 200 * ms, 50 * ms, 400 * ms},
	}
	for _, tt := range tests {
		p.Jitter = tt.jitter
		lo, hi := Envelope(p, tt.n, tt.prev)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("envelope(%s, %d, %s) = [%s, %s], want [%s, %s]", tt.jitter, tt.n, tt.prev, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestRunWithFake checks the suite's wiring without runtimes: it prepares
// the exact rendered bytes of the test contract, points each run at its own
// fault-server session, and fails a snippet that never calls the server.
func TestRunWithFake(t *testing.T) {
	c := loadExample(t)
	fake := &run.Fake{Respond: func(p run.Program, env map[string]string) (run.Result, error) {
		return run.Result{ExitCode: 0}, nil
	}}
	rep, err := Run(context.Background(), c, Options{
		Languages: []string{"python"}, Runner: fake, LookPath: func(string) (string, error) { return "/bin/true", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := snippets.Render(TestContract(c), "python")
	// The first program prepared is the tenacity probe, run once.
	if len(fake.Prepared) != 2 || fake.Prepared[0].FileName != "probe.py" || string(fake.Prepared[1].Source) != string(want) {
		t.Fatalf("prepared %d programs; want the library probe, then the rendered test-contract snippet", len(fake.Prepared))
	}
	seen := map[string]bool{}
	for _, env := range fake.Runs[1:] {
		u := env[snippets.BaseURLEnv]
		if !strings.HasPrefix(u, "http://127.0.0.1:") || seen[u] {
			t.Errorf("run base URL %q: want a fresh loopback session per run", u)
		}
		seen[u] = true
	}
	passed, failed := rep.Counts()
	if passed != 0 || failed != len(rep.Outcomes) || failed == 0 {
		t.Errorf("a snippet that never calls the server: %d passed, %d failed; want every scenario failed", passed, failed)
	}
}

func TestMissingRuntimeFails(t *testing.T) {
	c := loadExample(t)
	rep, err := Run(context.Background(), c, Options{
		Languages: []string{"ruby"}, Runner: &run.Fake{},
		LookPath: func(string) (string, error) { return "", fmt.Errorf("not found") },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, failed := rep.Counts(); failed != 1 || rep.Outcomes[0].Problems[0] != "install Ruby (ruby-lang.org, or your package manager's ruby)" {
		t.Errorf("outcomes %+v, want one failure naming the missing runtime", rep.Outcomes)
	}
}

// TestMissingLibrary: a runtime without the library is one line saying
// what to install, and no scenario runs.
func TestMissingLibrary(t *testing.T) {
	c := loadExample(t)
	fake := &run.Fake{Respond: func(p run.Program, env map[string]string) (run.Result, error) {
		if p.FileName == "probe.py" {
			return run.Result{ExitCode: 1, Stderr: []byte("ModuleNotFoundError: No module named 'tenacity'")}, nil
		}
		return run.Result{}, nil
	}}
	rep, err := Run(context.Background(), c, Options{
		Languages: []string{"python"}, Runner: fake, LookPath: func(string) (string, error) { return "/bin/true", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 1 || len(rep.Outcomes[0].Problems) != 1 || rep.Outcomes[0].Problems[0] != "install tenacity>=8.3 (pip install 'tenacity>=8.3')" {
		t.Fatalf("outcomes %+v, want one line naming tenacity", rep.Outcomes)
	}
	if len(fake.Prepared) != 1 {
		t.Errorf("%d programs prepared; want only the probe", len(fake.Prepared))
	}
}

// TestMissingJars: Java's libraries are files in the cache; the message
// names the cache folder given.
func TestMissingJars(t *testing.T) {
	c := loadExample(t)
	dir := t.TempDir()
	rep, err := Run(context.Background(), c, Options{
		Languages: []string{"java"}, Runner: &run.Fake{},
		Vars:     map[string]string{"jars": filepath.Join(dir, "jars", "*"), "cache": dir},
		LookPath: func(string) (string, error) { return "/bin/true", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 1 || !strings.HasPrefix(rep.Outcomes[0].Problems[0], "install Resilience4j 2.3.0 (mvn dependency:copy") ||
		!strings.Contains(rep.Outcomes[0].Problems[0], "-DoutputDirectory="+dir+"/jars") {
		t.Fatalf("outcomes %+v, want one line naming Resilience4j and the cache folder", rep.Outcomes)
	}
}
