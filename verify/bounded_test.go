package verify

import (
	"cmp"
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"time"
)

// TestReplayComparesWholeBody: a replay that differs only past the first
// MiB is not byte-identical.
func TestReplayComparesWholeBody(t *testing.T) {
	_, srv := newFakeAPI(t, "tail-differs")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, ""), Only: []string{GateReplay}})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Gates[0]; g.Result != Failed || !strings.Contains(g.Reason, "byte-identical") {
		t.Fatalf("replay gate = %+v", g)
	}
}

// headerFlood accepts connections and answers each with a status line
// followed by headers that never end.
func headerFlood(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
					return
				}
				line := []byte("X-Flood: " + strings.Repeat("a", 1000) + "\r\n")
				for {
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestHeaderFloodIsBounded: both ways verify reads a response (the HTTP
// client and the concurrency gate's raw connections) give up after
// maxHeader bytes of headers instead of reading them for ever.
func TestHeaderFloodIsBounded(t *testing.T) {
	addr := headerFlood(t)
	r := &runner{ctx: context.Background(), plan: &Plan{RequestTimeout: 30 * time.Second}}
	r.client = newClient(r.plan)
	if resp := r.do(Request{Method: "GET", URL: "http://" + addr + "/"}); resp.Err == nil || !strings.Contains(resp.Err.Error(), "exceeded") {
		t.Errorf("client: err = %v, want the header limit", resp.Err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cn := newConn(c)
	raw, _ := Request{Method: "GET", URL: "http://" + addr + "/"}.wire()
	if resp := cn.roundTrip(context.Background(), raw, 30*time.Second, nil); !errors.Is(resp.Err, errHeaderTooLarge) {
		t.Errorf("raw connection: err = %v, want errHeaderTooLarge", resp.Err)
	}
}

// TestRunTimeoutBoundsTheRun: a run whose --timeout has passed reports its
// gates as not finished (never passed, never a crashed handler) and ends
// with ErrRunTimeout; an interrupted run says it was interrupted.
func TestRunTimeoutBoundsTheRun(t *testing.T) {
	_, srv := newFakeAPI(t, "")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		want    error
	}{
		{"timeout", context.Background(), time.Nanosecond, ErrRunTimeout},
		{"interrupted", cancelled, 0, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(tc.ctx, Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, ""), Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(res.Aborted, tc.want) {
				t.Fatalf("aborted = %v, want %v", res.Aborted, tc.want)
			}
			for _, g := range res.Gates {
				if g.Result == Passed || strings.Contains(g.Reason, "crashed") {
					t.Errorf("%s: %s %s", g.Gate, g.Result, g.Reason)
				}
			}
			if len(res.Findings) != 0 {
				t.Errorf("findings from an unfinished run: %+v", res.Findings)
			}
		})
	}
}

// TestCrashBudget: the crash gate says what the contract implies instead
// of waiting: takeover none never recovers; a lock_timeout longer than the
// run's time left cannot be waited out.
func TestCrashBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	for _, tc := range []struct {
		name   string
		mutate func(*contract.InFlight)
		want   string
	}{
		{"sound", func(*contract.InFlight) {}, ""},
		{"takeover none", func(in *contract.InFlight) { in.Takeover = contract.TakeoverNone }, "takeover: none"},
		{"a day's lock", func(in *contract.InFlight) { in.LockTimeout = contract.Duration{D: 24 * time.Hour, Text: "24h"} }, "lock_timeout is 24h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := payouts(t)
			in := *c.Idempotency.InFlight
			tc.mutate(&in)
			c.Idempotency.InFlight = &in
			if !canKillGroups {
				t.Skip("no process groups: the crash gate skips before it reads the contract")
			}
			// A plan whose server verify starts, so only the contract and
			// the time left can skip the gate: its static skip, then its budget.
			r := &runner{c: c, ctx: ctx, plan: &Plan{Server: &Server{}}}
			got := cmp.Or(r.skipCrash(Operation{}), r.crashBudget())
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("the crash gate's skip = %q, want %q", got, tc.want)
			}
		})
	}
}
