package idempotency_test

import (
	"fmt"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
)

// TestNotCarriedOutIsNeverReplayed: a handler's 408, 425, 429 or 503 says
// the request was not carried out; under either stored_failures policy the
// key is released and the retry runs the handler, where a 4xx it did carry
// out (400) is replayed.
func TestNotCarriedOutIsNeverReplayed(t *testing.T) {
	for _, policy := range []string{"replay", "reattempt"} {
		for _, tt := range []struct {
			status, runs int
		}{{408, 2}, {425, 2}, {429, 2}, {503, 2}, {400, 1}} {
			t.Run(fmt.Sprintf("%s/%d", policy, tt.status), func(t *testing.T) {
				c := payoutsContract(t, "stored_failures: replay", "stored_failures: "+policy)
				f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
				f.handler.status = tt.status
				if w := f.do("k", "acct_a", body); w.Code != tt.status {
					t.Fatalf("first attempt answered %d, want the handler's %d", w.Code, tt.status)
				}
				f.handler.status = 0
				w := f.do("k", "acct_a", body)
				if runs := int(f.handler.runs.Load()); runs != tt.runs {
					t.Errorf("the handler ran %d times, want %d (retry answered %d)", runs, tt.runs, w.Code)
				}
				if tt.runs == 2 && w.Code != 201 {
					t.Errorf("the retry got %d, want the handler's 201", w.Code)
				}
			})
		}
	}
}
