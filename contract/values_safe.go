package contract

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file holds the load-time checks that keep contract values safe
// where they reach code and figures (issue 13 items 6 and 7): characters a
// shell or curl's URL globbing reads in api.base_url, header names HTTP
// reserves for itself, and durations whose products would overflow.

// baseURLUnsafe are characters that a shell (unquoted) or curl's URL
// globbing reads as syntax. Each has a percent-encoded spelling that means
// the same in a URL, so refusing them costs nothing: `[1-5]` in a path made
// the curl snippet send five requests per attempt.
const baseURLUnsafe = "[]*?$;&!()"

// unsafeBaseURLChar returns the offset and the character of the first
// shell- or glob-significant character in a base URL, or -1. Brackets
// around an IPv6 literal host (http://[::1]:8080) are the URL's own syntax
// and allowed.
func unsafeBaseURLChar(s string) (int, byte) {
	open, close := -1, -1
	if i := strings.Index(s, "://"); i >= 0 && strings.HasPrefix(s[i+3:], "[") {
		if j := strings.IndexByte(s[i+3:], ']'); j > 0 {
			if u, err := url.Parse(s); err == nil && strings.Contains(u.Hostname(), ":") {
				open, close = i+3, i+3+j
			}
		}
	}
	for k := 0; k < len(s); k++ {
		if k != open && k != close && strings.IndexByte(baseURLUnsafe, s[k]) >= 0 {
			return k, s[k]
		}
	}
	return -1, 0
}

// checkBaseURLChars reports a shell- or glob-significant character in
// api.base_url at its own column when the value is written on one line.
func (d *decoder) checkBaseURLChars(v *yaml.Node, s string) {
	i, ch := unsafeBaseURLChar(s)
	if i < 0 {
		return
	}
	n := d.resolve(v)
	at := n
	if n != nil && n.Kind == yaml.ScalarNode && (n.Style == 0 || n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle) {
		col := n.Column + len([]rune(s[:i]))
		if n.Style != 0 {
			col++ // the opening quote
		}
		at = &yaml.Node{Line: n.Line, Column: col}
	}
	d.errorf(at, "api.base_url", fmt.Sprintf("write %q as %%%02X", ch, ch),
		"api.base_url: %q has %q at character %d, which a shell or curl's URL globbing reads as syntax; percent-encode it", s, string(ch), i+1)
}

// reservedHeaders are the request header names that HTTP, a proxy or the
// client library owns: framing (Content-Length, Transfer-Encoding, TE,
// Trailer), routing (Host), connection management (Connection,
// Keep-Alive, Upgrade, Expect, and every Proxy-*), content description
// and credentials (Content-Type, Authorization, Cookie). A client cannot
// send an idempotency key in one of them without breaking the request;
// most HTTP libraries drop or overwrite them. (RFC 9110 §7.6.1 and
// RFC 9112 §9.6 for the hop-by-hop names.)
var reservedHeaders = []string{
	"Authorization", "Connection", "Content-Encoding", "Content-Length", "Content-Type", "Cookie", "Date", "Expect",
	"Host", "Keep-Alive", "Max-Forwards", "Origin", "Set-Cookie", "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Via",
}

// reservedHeader reports whether name is a header the key cannot live in.
func reservedHeader(name string) bool {
	if len(name) >= 6 && strings.EqualFold(name[:6], "Proxy-") {
		return true
	}
	for _, h := range reservedHeaders {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// MaxFigure bounds every duration the contract writes (ParseDuration
// refuses longer ones) and the ones its retry policy implies: the attempt
// timeout (p99 × factor) and the worst case of the whole loop (every
// attempt's timeout plus every wait).
// Ten years is far past any sensible policy, and a figure under it stays
// far from time.Duration's 292-year limit through the products the docs
// and the chart compute (a 36500d max_elapsed printed as -63503d).
const MaxFigure = 10 * 365 * 24 * time.Hour

// checkFigures refuses, at the field that causes it, any retry figure past
// MaxFigure. The products are computed in float64, which cannot overflow
// at these magnitudes.
func (d *decoder) checkFigures(root *yaml.Node, c *Contract) {
	r := c.Retry
	over := func(v float64) bool { return v > float64(MaxFigure) || math.IsNaN(v) || math.IsInf(v, 0) }
	fix := "keep retry figures under 3650d (10 years)"
	if r.AttemptTimeout.P99.D > 0 && r.AttemptTimeout.Factor > 0 {
		if v := float64(r.AttemptTimeout.P99.D) * r.AttemptTimeout.Factor; over(v) {
			d.errorf(nodeAt(root, "retry.attempt_timeout.factor"), "retry.attempt_timeout.factor", fix,
				"retry.attempt_timeout: p99 %s × factor %g is %s, longer than the maximum of 3650d (10 years)", r.AttemptTimeout.P99, r.AttemptTimeout.Factor, HumanDuration(time.Duration(math.Min(v, float64(math.MaxInt64)))))
			return
		}
	}
	// The worst case of the loop, as render/schedule computes it.
	timeout := float64(r.AttemptTimeout.P99.D) * r.AttemptTimeout.Factor
	if !r.AttemptTimeout.Bare.IsZero() {
		timeout = float64(r.AttemptTimeout.Bare.D)
	}
	mult := r.Backoff.Multiplier
	if mult <= 0 {
		mult = 1
	}
	total := timeout
	for a := 2; a <= max(r.MaxAttempts, 1); a++ {
		env := float64(r.Backoff.Base.D) * math.Pow(mult, float64(a-2))
		if r.Backoff.Cap.D > 0 {
			env = math.Min(env, float64(r.Backoff.Cap.D))
		}
		total += env + timeout
	}
	if over(total) {
		d.errorf(nodeAt(root, "retry.max_attempts"), "retry.max_attempts", fix,
			"retry: the worst case of %d attempts (every timeout plus every wait) is longer than the maximum of 3650d (10 years)", r.MaxAttempts)
	}
}

// nodeAt finds the value at a dotted path of mapping keys, or the nearest
// ancestor written, for a message's position.
func nodeAt(root *yaml.Node, path string) *yaml.Node {
	n := unalias(root)
	for _, k := range strings.Split(path, ".") {
		next := unalias(mapValue(n, k))
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
