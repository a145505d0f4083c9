package idempotency_test

import (
	"expvar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
)

func TestCountersExport(t *testing.T) {
	c := idempotency.NewCounters()
	c.Count(alerting.Conflicts, "POST /v1/transfers", alerting.KindInFlight)
	c.Count(alerting.Conflicts, "POST /v1/transfers", alerting.KindInFlight)
	c.Count(alerting.Replays, "POST /v1/transfers", "")
	w := httptest.NewRecorder()
	c.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	text := w.Body.String()
	for _, want := range []string{
		`retryspec_idempotency_conflicts_total{operation="POST /v1/transfers",kind="in_flight"} 2`,
		`retryspec_idempotency_replays_total{operation="POST /v1/transfers"} 1`,
		"# TYPE " + alerting.DuplicateEffects + " counter", // exported before its first count
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	c.Publish("idempotency_test")
	if v := expvar.Get("idempotency_test"); v == nil || !strings.Contains(v.String(), `kind=\"in_flight\"}":2`) {
		t.Errorf("expvar: %v", v)
	}
}
