package alerting

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// RunbookURL is where each alert's explanation lives (docs/alerts.md).
const RunbookURL = "https://github.com/retryspec/retryspec/blob/main/docs/alerts.md"

// Alert names, the anchors of their sections in docs/alerts.md.
const (
	AlertDuplicateEffects = "IdempotencyDuplicateSideEffects"
	AlertInFlight         = "IdempotencyInFlightConflictsAboveBaseline"
	AlertTakeovers        = "IdempotencyTakeoversAboveBaseline"
	AlertStoreFailures    = "IdempotencyStoreFailures"
	AlertAsyncCommit      = "IdempotencyStoreCommitsNotDurable"
)

type ruleFile struct {
	Groups []group `yaml:"groups"`
}

type group struct {
	Name  string `yaml:"name"`
	Rules []rule `yaml:"rules"`
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Rules returns the Prometheus alerting-rule file for the contract's API,
// on the metric names above. The duplicate-effect alert has no threshold:
// inside the contract's scope and window a duplicate effect is a bug, so
// any one pages. The other two compare the last hour with the same hour a
// week before, since no published figure says what their normal rate is.
func Rules(c *contract.Contract) ([]byte, error) {
	api := templateText(c.API.Name)
	lock := "the lock timeout"
	if c.Idempotency.InFlight != nil && !c.Idempotency.InFlight.LockTimeout.IsZero() {
		lock = "lock_timeout " + c.Idempotency.InFlight.LockTimeout.Text
	}
	baseline := func(sel string) string {
		now := fmt.Sprintf("sum by (%s) (rate(%s[1h]))", LabelOperation, sel)
		week := fmt.Sprintf("sum by (%s) (rate(%s[1h] offset 1w))", LabelOperation, sel)
		// 2x last week's rate, and at least one an hour, so a quiet
		// endpoint's first event does not page.
		return fmt.Sprintf("%s > 2 * %s and %s > 1/3600", now, week, now)
	}
	f := ruleFile{Groups: []group{{
		Name: "retryspec-idempotency",
		Rules: []rule{
			{
				Alert:  AlertDuplicateEffects,
				Expr:   fmt.Sprintf("sum by (%s) (increase(%s[10m])) > 0", LabelOperation, DuplicateEffects),
				Labels: map[string]string{"severity": "page"},
				Annotations: map[string]string{
					"summary":     fmt.Sprintf("%s: a handler ran twice for one idempotency key on {{ $labels.%s }}", api, LabelOperation),
					"description": "A worker lost its key to a takeover while it was still running, so a side effect may have happened twice. The target is zero; any value is a regression of the claim or the lock timeout.",
					"runbook_url": RunbookURL + "#duplicate-side-effects",
				},
			},
			{
				Alert:  AlertInFlight,
				Expr:   baseline(fmt.Sprintf(`%s{%s="%s"}`, Conflicts, LabelKind, KindInFlight)),
				For:    "15m",
				Labels: map[string]string{"severity": "ticket"},
				Annotations: map[string]string{
					"summary":     fmt.Sprintf("%s: in-flight conflicts on {{ $labels.%s }} are above twice last week's rate", api, LabelOperation),
					"description": "Clients retry while the first attempt still runs: the handler got slower, or a client retries too fast.",
					"runbook_url": RunbookURL + "#in-flight-conflicts",
				},
			},
			{
				Alert:  AlertTakeovers,
				Expr:   baseline(Takeovers),
				For:    "15m",
				Labels: map[string]string{"severity": "ticket"},
				Annotations: map[string]string{
					"summary":     fmt.Sprintf("%s: abandoned keys taken over on {{ $labels.%s }} are above twice last week's rate", api, LabelOperation),
					"description": fmt.Sprintf("Requests stop mid-way (crashes, deploys, timeouts) and are resumed after %s.", lock),
					"runbook_url": RunbookURL + "#takeovers",
				},
			},
			{
				// Every store failure is a refused request (503) or a
				// last transaction that did not commit; a few in five
				// minutes is an outage of the store, not noise.
				Alert:  AlertStoreFailures,
				Expr:   fmt.Sprintf("sum by (%s, %s) (increase(%s[5m])) > 0", LabelOperation, LabelKind, StoreFailures),
				For:    "5m",
				Labels: map[string]string{"severity": "page"},
				Annotations: map[string]string{
					"summary":     fmt.Sprintf("%s: idempotency store failures ({{ $labels.%s }}) on {{ $labels.%s }}", api, LabelKind, LabelOperation),
					"description": "Requests are refused with 503 because a statement of the idempotency store failed, or a handler's last transaction did not commit. Keys are left for the retry; none is served without its claim.",
					"runbook_url": RunbookURL + "#store-failures",
				},
			},
			{
				Alert:  AlertAsyncCommit,
				Expr:   fmt.Sprintf("sum (%s) > 0", AsyncCommitStarts),
				Labels: map[string]string{"severity": "ticket"},
				Annotations: map[string]string{
					"summary":     fmt.Sprintf("%s: the idempotency store acknowledges commits before they are flushed", api),
					"description": "A service opted in to asynchronous commits (async_commit=accept in its store URL). A database crash can lose acknowledged recovery points, and retries then repeat external effects.",
					"runbook_url": RunbookURL + "#store-commits-not-durable",
				},
			},
		},
	}}}
	out, err := yaml.Marshal(f)
	if err != nil {
		return nil, err
	}
	header := "# Prometheus alerting rules for the idempotency middleware's metrics, written by `retryspec build`.\n" +
		"# What each alert means and what to do: " + RunbookURL + "\n"
	return append([]byte(header), out...), nil
}

// templateText keeps s literal in an annotation, which Prometheus expands
// as a Go template: "{{" and "}}" become template actions printing them.
func templateText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			b.WriteString(`{{"{{"}}`)
			i++
		case strings.HasPrefix(s[i:], "}}"):
			b.WriteString(`{{"}}"}}`)
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
