package client

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/suite"
)

// DryRun lists what a run would do and runs nothing: the operation, each
// scenario with its fault sequence and what holds, and each gate with what
// it judges.
func DryRun(o Options) ([]string, error) {
	pl, err := newPlan(o)
	if err != nil {
		return nil, err
	}
	out := []string{
		fmt.Sprintf("program: %s", orNothing(shellJoin(o.Command))),
		fmt.Sprintf("operation: %s (%s); each run gets a fresh fault server at %s=http://127.0.0.1:PORT, with %s and %s set", pl.op.Operation, EnvOperation, EnvBaseURL, EnvOperation, EnvScenario),
		fmt.Sprintf("a run still going after %s (max_elapsed %s plus %s) is killed with its process group", pl.bound(), pl.p.MaxElapsed, pl.o.Margin),
	}
	for _, sc := range pl.scenarios {
		var gates []string
		for _, g := range pl.gates {
			if g.reads(sc.Kind) && (g.applies == nil || g.applies(pl.p)) {
				gates = append(gates, g.ID())
			}
		}
		runs := ""
		if n := pl.times(sc); n > 1 {
			runs = fmt.Sprintf(", %d runs (--runs)", n)
		}
		out = append(out, "", fmt.Sprintf("scenario %s%s; judged by %s", sc.Name, runs, strings.Join(gates, ", ")))
		for i, st := range sc.Script {
			which := fmt.Sprintf("attempt %d", i+1)
			if i == len(sc.Script)-1 {
				which += " and later"
			}
			out = append(out, fmt.Sprintf("  %-22s %s", which+":", stepText(st)))
		}
		out = append(out, "  holds when: "+expectText(sc))
	}
	out = append(out, "", "gates:")
	for _, g := range pl.gates {
		what := g.DryRun
		switch {
		case g.applies != nil && !g.applies(pl.p):
			what = "skipped: " + g.Needs
		case !slices.ContainsFunc(pl.scenarios, func(sc suite.Scenario) bool { return g.reads(sc.Kind) }):
			what = "skipped: the contract yields none of its scenarios: " + g.Needs
		}
		out = append(out, fmt.Sprintf("  %-28s %s (%s)", g.ID(), what, pl.path(g)))
	}
	return out, nil
}

// stepText is one scripted answer.
func stepText(st faultserver.Step) string {
	var s string
	switch {
	case st.Reset:
		s = "reset the connection (TCP RST)"
	default:
		s = fmt.Sprint(st.Status)
		if st.RetryAfter != "" {
			s += ", Retry-After: " + st.RetryAfter
		}
		if st.Body != "" {
			s += " " + st.Body
		}
	}
	if st.Delay > 0 {
		s = fmt.Sprintf("hold the answer %s, then %s", st.Delay, s)
	}
	return s
}

// scriptText is a scenario's faults on one line.
func scriptText(script faultserver.Script) string {
	parts := make([]string, len(script))
	for i, st := range script {
		parts[i] = stepText(st)
		if i == len(script)-1 && len(script) > 1 {
			parts[i] = "then " + parts[i]
		}
	}
	if len(script) == 1 {
		return parts[0] + " on every attempt"
	}
	return strings.Join(parts, ", ")
}

func expectText(sc suite.Scenario) string {
	n := fmt.Sprint(sc.Requests)
	if sc.MinRequests > 0 && sc.MinRequests != sc.Requests {
		n = fmt.Sprintf("%d to %d", sc.MinRequests, sc.Requests)
	}
	exit := "a non-zero exit (the client gave up)"
	if sc.Success {
		exit = "exit 0"
	}
	return fmt.Sprintf("%s %s with one key, then %s", n, plural(sc.Requests, "attempt", "attempts"), exit)
}
