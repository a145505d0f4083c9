package idempotency

import (
	"expvar"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"

	"github.com/retryspec/retryspec/idempotency/alerting"
)

// Metrics receives the middleware's counters. name is one of the
// alerting package's metric names; operation is the contract's
// "METHOD /path"; kind is a conflict kind for alerting.Conflicts, else "".
// Any metrics stack adapts to it in a few lines; Counters is one.
type Metrics interface {
	Count(name, operation, kind string)
}

type nopMetrics struct{}

func (nopMetrics) Count(string, string, string) {}

// Counters is a Metrics kept in memory, exported as Prometheus text
// (ServeHTTP) and, after Publish, through expvar.
type Counters struct {
	mu sync.Mutex
	n  map[series]int64
}

type series struct{ name, operation, kind string }

// NewCounters returns empty counters.
func NewCounters() *Counters { return &Counters{n: map[series]int64{}} }

// Count adds one.
func (c *Counters) Count(name, operation, kind string) {
	c.mu.Lock()
	c.n[series{name, operation, kind}]++
	c.mu.Unlock()
}

// Get returns a counter's value; kind "" sums every kind.
func (c *Counters) Get(name, operation, kind string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for s, v := range c.n {
		if s.name == name && (operation == "" || s.operation == operation) && (kind == "" || s.kind == kind) {
			n += v
		}
	}
	return n
}

// Publish exports the counters under expvar name (visible at /debug/vars).
func (c *Counters) Publish(name string) {
	expvar.Publish(name, expvar.Func(func() any {
		c.mu.Lock()
		defer c.mu.Unlock()
		out := map[string]int64{}
		for s, v := range c.n {
			out[s.label()] = v
		}
		return out
	}))
}

func (s series) label() string {
	l := fmt.Sprintf("%s{%s=%q", s.name, alerting.LabelOperation, s.operation)
	if s.kind != "" {
		l += fmt.Sprintf(",%s=%q", alerting.LabelKind, s.kind)
	}
	return l + "}"
}

// ServeHTTP writes the counters in the Prometheus text exposition format,
// every metric with its HELP and TYPE even before its first count.
func (c *Counters) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	c.writeText(w)
}

// writeText writes the Prometheus text format.
func (c *Counters) writeText(w io.Writer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range alerting.Metrics {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", m.Name, m.Help, m.Name)
		var lines []string
		for s, v := range c.n {
			if s.name == m.Name {
				lines = append(lines, fmt.Sprintf("%s %d", s.label(), v))
			}
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
}
