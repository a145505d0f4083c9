// Command snippet calls the API with the contract's retry policy.
//
// Run: go run snippet.go [idempotency-key]
// Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).
//
// Standard library only: the well-known Go backoff packages randomize the
// interval by a factor instead of the contract's jitter formula and have no
// hook to wait out a server's Retry-After, so the loop is written out.
//
// The policy: an allowlist of statuses, never a blanket catch; a cautious
// status (a 500 may be a bug that fails the same way again) retried at most
// once; Retry-After honoured; full jitter (base 1000 ms, cap 30000 ms,
// multiplier 2.0); at most 3 attempts within one overall deadline of
// 120000 ms, each attempt's timeout cut to what is left of it.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	baseURL = "https://your-shop.myshopify.com"
	method  = "POST"
	path    = "/admin/api/2026-04/graphql.json"
	// The request is a GraphQL mutation (inventorySetQuantities); the key travels as
	// this variable of its document, the same document on every attempt.
	keyVariable = "idempotencyKey"
	// A 200 with an error entry here is a failed mutation: never retried,
	// unless the entry is the in-flight conflict (JSON pointer /data/inventorySetQuantities/userErrors/0).
	entryAt = []string{"data", "inventorySetQuantities", "userErrors", "0"}

	retryStatuses      = map[int]bool{429: true, 502: true, 503: true, 504: true} // retried normally
	retryStatusClasses = map[int]bool{}                                           // e.g. 5 for 5XX
	cautiousStatuses   = map[int]bool{500: true}                                  // retried at most once
	retryAfterStatuses = map[int]bool{429: true, 503: true}                       // wait as long as Retry-After says
	// The same key is still being processed: wait, then retry with the same key.
	inFlightStatus = 200
	inFlightCode   = "IDEMPOTENCY_CONCURRENT_REQUEST"
	retryTimeout   = true
	retryReset     = true
	retryRefused   = true
)

const (
	base           = 1000 * time.Millisecond
	maxWait        = 30000 * time.Millisecond // the backoff cap
	multiplier     = 2.0
	maxAttempts    = 3                         // including the first
	maxElapsed     = 120000 * time.Millisecond // one overall deadline for the whole loop
	attemptTimeout = 10000 * time.Millisecond  // per attempt, never past the deadline
)

// attemptError is one failed attempt; retryable says whether the policy
// allows another.
type attemptError struct {
	msg        string
	retryable  bool
	cautious   bool
	retryAfter time.Duration // -1: no Retry-After
}

func (e *attemptError) Error() string { return e.msg }

// withKey is body with the key as the document's keyVariable variable: a
// copy, so the caller's map is left as it was.
func withKey(body map[string]any, key string) map[string]any {
	out := make(map[string]any, len(body)+1)
	for name, v := range body {
		out[name] = v
	}
	out["variables"] = map[string]any{keyVariable: key}
	return out
}

// hasEntry reports whether the answer carries an error entry at entryAt.
func hasEntry(body []byte) bool {
	var node any
	if json.Unmarshal(body, &node) != nil {
		return false
	}
	for _, token := range entryAt {
		switch n := node.(type) {
		case map[string]any:
			node = n[token]
		case []any:
			if token != "0" || len(n) == 0 {
				return false
			}
			node = n[0]
		default:
			return false
		}
	}
	return node != nil
}

// errorCodeAt is where this API's error bodies carry their code (JSON pointer /data/inventorySetQuantities/userErrors/0/code).
var errorCodeAt = []string{"data", "inventorySetQuantities", "userErrors", "0", "code"}

// hasCode reports whether the JSON error body carries code at errorCodeAt.
func hasCode(body []byte, code string) bool {
	var node any
	if json.Unmarshal(body, &node) != nil {
		return false
	}
	for _, token := range errorCodeAt {
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[token]
			if !ok {
				return false
			}
			node = next
		case []any:
			if token != "0" || len(n) == 0 {
				return false
			}
			node = n[0]
		default:
			return false
		}
	}
	s, ok := node.(string)
	return ok && s == code
}

func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(at))
	}
	return -1
}

// inFlight reports whether the answer says the first request with this key
// is still running.
func inFlight(status int, body []byte) bool {
	return inFlightStatus != 0 && status == inFlightStatus && hasCode(body, inFlightCode)
}

func classifyStatus(status int, h http.Header, body []byte) *attemptError {
	e := &attemptError{msg: fmt.Sprintf("HTTP %d", status), retryAfter: -1}
	switch {
	case inFlight(status, body):
		e.msg += " " + inFlightCode
		e.retryable = true
	case status/100 == 2:
		// Any other error entry (a payload mismatch included) fails the same way again.
		e.msg += " with an error entry"
	// Checked before the allowlist, so a 5XX class cannot lift its limit.
	case cautiousStatuses[status]:
		e.retryable, e.cautious = true, true
	case retryStatuses[status] || retryStatusClasses[status/100]:
		e.retryable = true
		if retryAfterStatuses[status] {
			e.retryAfter = parseRetryAfter(h.Get("Retry-After"))
		}
	}
	// Any other 4xx (a payload-mismatch conflict included) fails the same way again.
	return e
}

func classifyConnectionError(err error, hasKey bool) *attemptError {
	var kind string
	var allowed bool
	var nerr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		kind, allowed = "timeout", retryTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		kind, allowed = "connection refused", retryRefused
	default:
		kind, allowed = "connection error ("+err.Error()+")", retryReset
	}
	// A request that may have reached the server is repeated only under a key.
	return &attemptError{msg: kind, retryable: allowed && hasKey, retryAfter: -1}
}

func envelope(attempt int) time.Duration {
	return time.Duration(math.Min(float64(maxWait), float64(base)*math.Pow(multiplier, float64(attempt-1))))
}

// backoff is full jitter: random(0, min(cap, base * multiplier^(attempt-1))).
func backoff(attempt int, _ time.Duration) time.Duration {
	return time.Duration(mathrand.Int64N(int64(envelope(attempt)) + 1))
}

// newKey mints a random key (a UUID v4).
func newKey() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// postWithRetries POSTs body once per logical request: key is minted once
// (or is the caller's own id) and reused on every attempt, since a fresh
// key per attempt would defeat it. ctx carries the one overall deadline.
func postWithRetries(ctx context.Context, body map[string]any, key string) (int, []byte, error) {
	if key == "" {
		key = newKey()
	}
	// The key goes into the body once, so every attempt sends the same bytes.
	payload, err := json.Marshal(withKey(body, key))
	if err != nil {
		return 0, nil, err
	}
	url := baseURL
	if v := os.Getenv("RETRYSPEC_BASE_URL"); v != "" {
		url = v
	}
	url += path
	ctx, cancel := context.WithTimeout(ctx, maxElapsed)
	defer cancel()
	deadline, _ := ctx.Deadline()
	cautiousRetries := 0
	previous := base
	for attempt := 1; ; attempt++ {
		status, respBody, failure := sendOnce(ctx, url, payload, key)
		if failure == nil {
			return status, respBody, nil
		}
		if failure.cautious {
			cautiousRetries++
			if cautiousRetries > 1 {
				failure.retryable = false
			}
		}
		if !failure.retryable || attempt >= maxAttempts {
			return 0, nil, fmt.Errorf("giving up after attempt %d: %s", attempt, failure.msg)
		}
		wait := failure.retryAfter
		if wait < 0 {
			wait = backoff(attempt, previous)
			previous = wait
		}
		if time.Until(deadline) <= wait {
			return 0, nil, fmt.Errorf("giving up after attempt %d: %s (a %d ms wait would pass the deadline)", attempt, failure.msg, wait.Milliseconds())
		}
		fmt.Fprintf(os.Stderr, "attempt %d failed: %s; retrying in %d ms\n", attempt, failure.msg, wait.Round(time.Millisecond).Milliseconds())
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return 0, nil, fmt.Errorf("giving up after attempt %d: %v", attempt, ctx.Err())
		}
	}
}

// sendOnce makes one attempt under its own timeout, inside the overall deadline.
func sendOnce(ctx context.Context, url string, payload []byte, key string) (int, []byte, *attemptError) {
	if ctx.Err() != nil {
		return 0, nil, &attemptError{msg: "overall deadline passed", retryAfter: -1}
	}
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, &attemptError{msg: err.Error(), retryAfter: -1}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, classifyConnectionError(err, key != "")
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, classifyConnectionError(err, key != "")
	}
	// A 200 with an error entry is not the result: the in-flight conflict
	// is retried, any other entry fails.
	if resp.StatusCode/100 == 2 && !inFlight(resp.StatusCode, respBody) && !hasEntry(respBody) {
		return resp.StatusCode, respBody, nil
	}
	return 0, nil, classifyStatus(resp.StatusCode, resp.Header, respBody)
}

func main() {
	key := ""
	if len(os.Args) > 1 {
		key = os.Args[1]
	}
	status, body, err := postWithRetries(context.Background(), map[string]any{"query": "mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \"available\", reason: \"correction\", quantities: [{inventoryItemId: \"gid://shopify/InventoryItem/123\", locationId: \"gid://shopify/Location/456\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }"}, key)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("HTTP %d: %s\n", status, body)
}
