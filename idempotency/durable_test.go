package idempotency_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// TestDurableByDefault: stores.Open refuses a server that acknowledges
// commits before flushing them (.ci/with-databases runs PostgreSQL with
// synchronous_commit and fsync off and MariaDB with
// innodb_flush_log_at_trx_commit = 0) unless the URL opts in by name; an
// opted-in store reports its setting and the middleware counts it. SQLite
// (synchronous FULL) opens without opting in.
func TestDurableByDefault(t *testing.T) {
	want := map[string]string{"postgres": "synchronous_commit = off", "mysql": "innodb_flush_log_at_trx_commit = 0"}
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			ctx := context.Background()
			optedIn := dbtest.Fresh(t, name, os.Getenv)
			u, err := url.Parse(optedIn)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Del(stores.AcceptAsyncCommit)
			u.RawQuery = q.Encode()
			plain := u.String()
			s, err := stores.Open(ctx, plain, c, true)
			if name == "sqlite" {
				if err != nil || s.AsyncCommit() != "" {
					t.Fatalf("sqlite: %v, async %q", err, s.AsyncCommit())
				}
				s.DB().Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), stores.AcceptAsyncCommit+"=accept") {
				t.Fatalf("opened a store without durable commits: %v", err)
			}
			if s, err = stores.Open(ctx, optedIn, c, true); err != nil {
				t.Fatalf("opted in: %v", err)
			}
			defer s.DB().Close()
			if !strings.Contains(s.AsyncCommit(), want[name]) {
				t.Errorf("setting reported: %q", s.AsyncCommit())
			}
			counters := idempotency.NewCounters()
			if _, err := idempotency.New(c, s, idempotency.Options{Metrics: counters, Account: func(*http.Request) (string, bool) { return "a", true }}); err != nil {
				t.Fatal(err)
			}
			if n := counters.Get(alerting.AsyncCommitStarts, "", ""); n != 1 {
				t.Errorf("async-commit starts counted: %d", n)
			}
		})
	}
	if _, err := stores.Open(context.Background(), "sqlite:x.db?"+stores.AcceptAsyncCommit+"=yes", payoutsContract(t), true); err == nil || !strings.Contains(err.Error(), "the only value is accept") {
		t.Errorf("bad opt-in value: %v", err)
	}
}
