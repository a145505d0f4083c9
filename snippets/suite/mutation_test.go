package suite

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets/run"
)

// mutatingRunner edits the rendered source before it runs: a broken client
// in a real runtime, to show the checks catch what they claim to.
type mutatingRunner struct {
	run.Runner
	old, new string
	applied  bool
}

func (m *mutatingRunner) Prepare(ctx context.Context, p run.Program) (run.Prepared, error) {
	src := string(p.Source)
	m.applied = strings.Contains(src, m.old)
	p.Source = []byte(strings.Replace(src, m.old, m.new, 1))
	return m.Runner.Prepare(ctx, p)
}

// TestChecksCatchBrokenClients runs deliberately broken variants of the
// Python snippet; each must fail the scenario that guards its rule.
func TestChecksCatchBrokenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	testenv.LookPath(t, "python3")
	if exec.Command("python3", "-c", "from tenacity import stop_before_delay").Run() != nil {
		testenv.Missing(t, "python package tenacity>=8.3 (run .ci/install-snippets)")
	}
	tests := []struct {
		name      string
		old, new  string
		scenarios []string
		want      string
	}{
		{"fresh key per attempt", "KEY_HEADER: header_value(key)", "KEY_HEADER: header_value(str(uuid.uuid4()))",
			[]string{"recover-after-503"}, "one key per logical request"},
		{"retries a 400", "    return AttemptFailed(error)\n", "    return AttemptFailed(error, retryable=True)\n",
			[]string{"no-retry-400"}, "requests, want 1"},
		{"500 retried without limit", `state["cautious"] > 1`, `state["cautious"] > 5`,
			[]string{"500-retried-once-only"}, "requests, want 2"},
		{"Retry-After ignored", "            return err.retry_after\n", "            pass\n",
			[]string{"429-retry-after"}, "want Retry-After"},
		{"no elapsed bound", " | stop_before_delay(MAX_ELAPSED)", "",
			[]string{"stop-at-max-elapsed"}, "past max_elapsed"},
		{"silent retries", "            file=sys.stderr,\n", "            file=open(os.devnull, \"w\"),\n",
			[]string{"recover-after-503"}, "retry log lines"},
		{"another body", `post_with_retries({"amount": 1000, "currency": "usd"}, key)`, `post_with_retries({"amount": 1000}, key)`,
			[]string{"recover-after-503"}, "not the contract's example request"},
		{"no jitter", "backoff = wait_random_exponential(multiplier=BASE, max=CAP, exp_base=MULTIPLIER)", "backoff = lambda retry_state: BASE / 2",
			[]string{"recover-after-503", "give-up-at-max-attempts", "500-retried-once-only", "in-flight-conflict-retried"}, "jitter is not random"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &mutatingRunner{Runner: run.Exec{}, old: tt.old, new: tt.new}
			rep, err := Run(context.Background(), loadExample(t), Options{
				Languages: []string{"python"}, Runner: m, Scenarios: tt.scenarios,
			})
			if err != nil {
				t.Fatal(err)
			}
			if !m.applied {
				t.Fatalf("mutation %q does not apply to the rendered snippet", tt.old)
			}
			var all []string
			for _, o := range rep.Outcomes {
				all = append(all, o.Problems...)
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("the broken client was not caught: want a problem containing %q, got %q", tt.want, all)
			}
		})
	}
}
