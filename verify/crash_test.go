package verify

import (
	"net/http"
	"strings"
	"testing"
)

// TestCrashProviderKeys: crash.provider_keys decides what the crash gate's
// external-call check counts. A resumed request that calls the bank a
// second time with the downstream key it stored is one effect at a
// provider that deduplicates by Idempotency-Key (the default, and
// provider_keys: true), and two at a provider without keys
// (provider_keys: false), so the same run fails there. The stub is the
// real one on loopback; the two requests are what such a server sends it.
func TestCrashProviderKeys(t *testing.T) {
	for _, tc := range []struct {
		name, crash string
		fails       bool
	}{
		{"default: the provider deduplicates", "", false},
		{"provider_keys: true", "crash:\n  provider_keys: true\n", false},
		{"provider_keys: false", "crash:\n  provider_keys: false\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fakePlan(t, "http://127.0.0.1:1", tc.crash)
			st, err := startStub(p.Crash.Unkeyed)
			if err != nil {
				t.Fatal(err)
			}
			defer st.close()
			op := p.Operations[0]
			if strings.Join(op.Endpoint.ExternalCalls, ",") != "charge_bank,send_receipt" {
				t.Fatalf("the payouts example's %s calls %v; the test needs charge_bank and send_receipt", op.Name, op.Endpoint.ExternalCalls)
			}
			callStub(t, st, "charge_bank", "transfer-1-charge")
			callStub(t, st, "charge_bank", "transfer-1-charge") // resumed: the stored key again
			callStub(t, st, "send_receipt", "transfer-1-receipt")

			r := &runner{plan: p, c: payouts(t), stub: st}
			f := r.externalCallsOnce(op, killPoint{call: "charge_bank", phase: killAnswered})
			if !tc.fails {
				if f != nil {
					t.Fatalf("a repeat with the stored downstream key failed the check: %s", f.msg)
				}
				return
			}
			if f == nil {
				t.Fatal("two requests to a provider without idempotency keys passed the check")
			}
			for _, want := range []string{"charge_bank took effect 2 times (2 requests)", "no idempotency keys, so every request to it is an effect"} {
				if !strings.Contains(f.msg, want) {
					t.Errorf("message %q lacks %q", f.msg, want)
				}
			}
			if strings.Contains(f.msg, "send_receipt") {
				t.Errorf("send_receipt, requested once, is reported: %s", f.msg)
			}
			if f.path != "endpoints[0].external_calls" {
				t.Errorf("path = %s, want endpoints[0].external_calls", f.path)
			}
		})
	}
}

// callStub is one request of the server under test to an external call.
func callStub(t *testing.T, st *stub, call, key string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, st.URL()+"/"+call, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stub answered %s to %s", resp.Status, call)
	}
}
