package verify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds the waits below only so that a regression fails the
// test instead of hanging it: the run under test waits an hour otherwise.
const hangGuard = 2 * time.Minute

// TestInterruptedDialEndsTheRun: a run interrupted while the concurrency
// gate opens its connections returns at once, interrupted, instead of
// waiting out request_timeout (an hour here). The server is a loopback
// listener that accepts and never answers: over https the TLS handshake
// of the dial hangs, over http the warm-up request on the new connection
// does. The test waits for the connection to arrive, then cancels.
func TestInterruptedDialEndsTheRun(t *testing.T) {
	for _, scheme := range []string{"https", "http"} {
		t.Run(scheme, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			accepted := make(chan net.Conn, 64)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						close(accepted)
						return
					}
					accepted <- c
				}
			}()
			t.Cleanup(func() {
				ln.Close()
				for c := range accepted {
					c.Close()
				}
			})
			p, err := ParsePlan("plan.yaml", []byte(fmt.Sprintf(`base_url: %s://%s
concurrency: 2
operations:
  "POST /v1/transfers":
    body: {"amount": 1000, "currency": "usd", "destination": "acct_1"}
`, scheme, ln.Addr())), payouts(t), env(nil))
			if err != nil {
				t.Fatal(err)
			}
			p.RequestTimeout = time.Hour
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type ran struct {
				res *Result
				err error
			}
			done := make(chan ran, 1)
			go func() {
				res, err := Run(ctx, Options{Contract: payouts(t), Plan: p, Only: []string{GateConcurrency}})
				done <- ran{res, err}
			}()
			select {
			case <-accepted:
			case <-time.After(hangGuard):
				t.Fatal("the concurrency gate never connected")
			}
			cancel()
			var got ran
			select {
			case got = <-done:
			case <-time.After(hangGuard):
				t.Fatalf("the run did not end %s after it was interrupted: it waits out its connection (dial, handshake or warm-up)", hangGuard)
			}
			if got.err != nil {
				t.Fatal(got.err)
			}
			if !errors.Is(got.res.Aborted, ErrInterrupted) {
				t.Errorf("aborted = %v, want %v", got.res.Aborted, ErrInterrupted)
			}
			if g := got.res.Gates; len(g) != 1 || g[0].Result != Skipped || !strings.HasPrefix(g[0].Reason, "not finished: ") {
				t.Errorf("gates = %+v, want the concurrency gate not finished", g)
			}
		})
	}
}
