package stores_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/storage"
)

// benchStores are the stores the benchmarks measure (MariaDB is covered
// by the tests; the issue asks for SQLite and PostgreSQL figures).
var benchStores = []storage.Dialect{storage.SQLite, storage.Postgres}

func benchStore(b *testing.B, name storage.Dialect) *stores.SQLStore {
	b.Helper()
	c := payoutsContract(b)
	// stores.Open logs its commit settings at start; on stderr that line
	// would split a result line of `go test -bench` that bench/server reads.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	s, err := stores.Open(context.Background(), dbtest.Fresh(b, string(name), os.Getenv), c, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.DB().Close() })
	if _, err := s.DB().Exec(`CREATE TABLE bench_effects (id VARCHAR(64) PRIMARY KEY, account_id VARCHAR(64) NOT NULL, amount BIGINT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	return s
}

// effectHandler does one INSERT of its own. Under the middleware it writes
// its response first and commits the insert with the stored response
// (Step.FinishWrites: one pipeline on PostgreSQL, one transaction on
// SQLite), as the contract's same_transaction asks. Bare, it runs the
// insert on the same client: pgx's pool on PostgreSQL, like the
// middleware's statements, database/sql on SQLite. With sqlTx the
// middleware's handler uses Step.Finish and its *sql.Tx instead (BEGIN,
// the insert, Complete, COMMIT: four round trips after the claim).
func effectHandler(s *stores.SQLStore, sqlTx bool) http.Handler {
	insert := storage.Rebind(s.Schema().Dialect, "INSERT INTO bench_effects (id, account_id, amount) VALUES (?, ?, ?)")
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		id := fmt.Sprintf("tr_%d_%d", time.Now().UnixNano(), n.Add(1))
		body := []byte(`{"id":"` + id + `","object":"transfer","amount":1000}`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
		args := []any{id, "acct_a", 1000}
		if step := idempotency.FromContext(ctx); step != nil {
			var err error
			if sqlTx {
				err = step.Finish(ctx, func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, insert, args...)
					return err
				})
			} else {
				err = step.FinishWrites(ctx, idempotency.Write{SQL: insert, Args: args})
			}
			if err != nil {
				panic(err)
			}
			return
		}
		if err := stores.Exec(ctx, s, insert, args); err != nil {
			panic(err)
		}
	})
}

// drive sends b.N requests from `clients` goroutines and reports requests
// per second and the p50 and p99 latency. In process (overHTTP false) each
// request is a ServeHTTP call on a recorder: the middleware's cost with
// nothing around it. Over HTTP the handler sits behind a net/http server
// on 127.0.0.1 and each client keeps one connection of its own, which is
// what a service's callers see: the server's work per request is in both
// the bare and the middleware figures.
//
// The HTTP clients are light, as a load generator's are (wrk, h2load):
// each writes its request with Request.Write and reads the reply with
// http.ReadResponse on its own connection. net/http's Transport would hand
// every request to two goroutines of its own; on this 2-core machine that
// cost more CPU than the server's whole work for a replay (half the
// process's samples in a profile of BenchmarkReplayHTTP), and a benchmark
// of the server should not spend the server's cores on its client.
func drive(b *testing.B, clients int, h http.Handler, key func(i int64) string, overHTTP bool) {
	b.Helper()
	// newSender returns one client's send, which makes request i and
	// returns its status, its body when that is not 201 (only a failure
	// needs reading), and how long the request took: in process the
	// ServeHTTP call, over HTTP from sending to the last byte read.
	newSender := func() (send func(i int64) (int, string, time.Duration), done func()) {
		return func(i int64) (int, string, time.Duration) {
			r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
			r.Header.Set("Idempotency-Key", key(i))
			r.Header.Set("X-Account", "acct_a")
			w := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(w, r)
			took := time.Since(t0)
			if w.Code != http.StatusCreated {
				return w.Code, w.Body.String(), took
			}
			return w.Code, "", took
		}, func() {}
	}
	if overHTTP {
		srv := httptest.NewServer(h) // listens on 127.0.0.1 only
		defer srv.Close()
		addr := srv.Listener.Addr().String()
		newSender = func() (func(i int64) (int, string, time.Duration), func()) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			out := bufio.NewWriter(conn)
			in := bufio.NewReader(conn)
			return func(i int64) (int, string, time.Duration) {
				r, err := http.NewRequest("POST", "http://"+addr+"/v1/transfers", strings.NewReader(body))
				if err != nil {
					return 0, err.Error(), 0
				}
				r.Header.Set("Idempotency-Key", key(i))
				r.Header.Set("X-Account", "acct_a")
				t0 := time.Now()
				if err := r.Write(out); err != nil {
					return 0, err.Error(), 0
				}
				if err := out.Flush(); err != nil {
					return 0, err.Error(), 0
				}
				resp, err := http.ReadResponse(in, r)
				if err != nil {
					return 0, err.Error(), 0
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				took := time.Since(t0)
				if err != nil {
					return 0, err.Error(), 0
				}
				if resp.StatusCode != http.StatusCreated {
					return resp.StatusCode, string(got), took
				}
				return resp.StatusCode, "", took
			}, func() { conn.Close() }
		}
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	senders := make([]func(int64) (int, string, time.Duration), clients)
	for c := range clients {
		send, done := newSender()
		defer done()
		senders[c] = send
	}
	b.ResetTimer()
	start := time.Now()
	for _, send := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				code, got, took := send(i)
				lat[i] = took
				if code != http.StatusCreated {
					b.Errorf("request %d: %d %s", i, code, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

func wrap(b *testing.B, s *stores.SQLStore, h http.Handler, replayCache ...int) http.Handler {
	b.Helper()
	mw, err := idempotency.New(payoutsContract(b), s, idempotency.Options{
		Account:     func(r *http.Request) (string, bool) { return r.Header.Get("X-Account"), true },
		ReplayCache: append(replayCache, 0)[0], // 0: the default cache
	})
	if err != nil {
		b.Fatal(err)
	}
	wrapped, err := mw.Handle("POST /v1/transfers", h)
	if err != nil {
		b.Fatal(err)
	}
	return wrapped
}

// BenchmarkClaimPath: first attempts of a handler doing one INSERT, bare and
// under the middleware (claim + completion with the handler's insert), at
// 1, 16 and 64 concurrent clients.
func BenchmarkClaimPath(b *testing.B) { claimPath(b, false) }

// BenchmarkClaimPathHTTP: the same first attempts with the handler behind a
// net/http server on loopback, each client on its own kept-alive
// connection: what the middleware adds to a request as its caller sees it.
func BenchmarkClaimPathHTTP(b *testing.B) { claimPath(b, true) }

func claimPath(b *testing.B, overHTTP bool) {
	for _, name := range benchStores {
		modes := []string{"bare", "middleware"}
		if name == storage.Postgres {
			modes = append(modes, "middleware-sqltx") // SQLite's FinishWrites is that transaction already
		}
		for _, mode := range modes {
			for _, clients := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/clients=%d", name, mode, clients), func(b *testing.B) {
					s := benchStore(b, name)
					h := effectHandler(s, mode == "middleware-sqltx")
					if mode != "bare" {
						h = wrap(b, s, h)
					}
					run := fmt.Sprintf("%d-%d", time.Now().UnixNano(), clients)
					claims0, writes0 := s.Stats().ClaimTrips, s.Stats().WriteTrips
					drive(b, clients, h, func(i int64) string { return fmt.Sprintf("k-%s-%d", run, i) }, overHTTP)
					// How many requests shared each round trip of the claim
					// and write batchers (PostgreSQL; FinishWrites only).
					if st := s.Stats(); st.ClaimTrips > claims0 && st.WriteTrips > writes0 {
						b.ReportMetric(float64(b.N)/float64(st.ClaimTrips-claims0), "claims/trip")
						b.ReportMetric(float64(b.N)/float64(st.WriteTrips-writes0), "writes/trip")
					}
				})
			}
		}
	}
}

// BenchmarkReplay: retries of completed keys, served without running the
// handler, at 16 clients: from the store (Options.ReplayCache -1), and
// with the default replay cache ("cache"), where only each key's first
// replay reads the store.
func BenchmarkReplay(b *testing.B) { replay(b, false) }

// BenchmarkReplayHTTP: the same retries with the handler behind a net/http
// server on loopback, as BenchmarkClaimPathHTTP.
func BenchmarkReplayHTTP(b *testing.B) { replay(b, true) }

func replay(b *testing.B, overHTTP bool) {
	const keys = 256
	for _, name := range benchStores {
		for _, mode := range []string{"", "cache/"} {
			b.Run(string(name)+"/"+mode+"clients=16", func(b *testing.B) {
				s := benchStore(b, name)
				cache := -1 // every replay reads the store
				if mode != "" {
					cache = 0 // the default cache
				}
				h := wrap(b, s, effectHandler(s, false), cache)
				for i := range keys {
					r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
					r.Header.Set("Idempotency-Key", fmt.Sprintf("replay-%d", i))
					r.Header.Set("X-Account", "acct_a")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusCreated {
						b.Fatalf("seeding: %d %s", w.Code, w.Body)
					}
				}
				claims0 := s.Stats().ClaimTrips
				drive(b, 16, h, func(i int64) string { return fmt.Sprintf("replay-%d", i%keys) }, overHTTP)
				if claims := s.Stats().ClaimTrips; claims > claims0 {
					b.ReportMetric(float64(b.N)/float64(claims-claims0), "claims/trip")
				}
			})
		}
	}
}

// BenchmarkClaimKeys: the claim's latency with 10^3 to 10^6 keys already
// stored; flat when the unique index, not a scan, decides. 10^5 and 10^6
// only with RETRYSPEC_BENCH_KEYS=full (bench/server sets it): filling them
// takes minutes.
func BenchmarkClaimKeys(b *testing.B) {
	sizes := []int{1_000, 10_000}
	if os.Getenv("RETRYSPEC_BENCH_KEYS") == "full" {
		sizes = append(sizes, 100_000, 1_000_000)
	}
	for _, name := range benchStores {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/keys=%d", name, n), func(b *testing.B) {
				s := benchStore(b, name)
				fill(b, s, n)
				ctx := context.Background()
				lat := make([]time.Duration, b.N)
				claim := keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: strings.Repeat("f", 64), RequestBody: []byte(body), RecoveryPoint: "started"}
				now := time.Now()
				b.ResetTimer()
				for i := range b.N {
					t0 := time.Now()
					won, err := s.Claim(ctx, keystore.Key{Account: "acct_bench", Key: fmt.Sprintf("new-%d", i)}, claim, now)
					lat[i] = time.Since(t0)
					if err != nil || !won {
						b.Fatalf("claim: %v %v", won, err)
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
			})
		}
	}
}

// fill stores n completed keys with one statement.
func fill(b *testing.B, s *stores.SQLStore, n int) {
	b.Helper()
	var q string
	cols := "account_id, idempotency_key, operation, fingerprint, request_body, fence, locked_at, recovery_point, downstream_keys, response_status, response_headers, response_body, created_at"
	switch s.Schema().Dialect {
	case storage.Postgres:
		q = fmt.Sprintf(`INSERT INTO idempotency_keys (%s)
SELECT 'acct_' || (g %% 1000), 'key-' || g, 'POST /v1/transfers', md5(g::text), '\x7b7d'::bytea, 1, NULL, 'finished', '{}', 201, '{}', '\x7b7d'::bytea, 0
FROM generate_series(1, %d) g`, cols, n)
	default:
		q = fmt.Sprintf(`WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < %d)
INSERT INTO idempotency_keys (%s)
SELECT 'acct_' || (x %% 1000), 'key-' || x, 'POST /v1/transfers', hex(randomblob(32)), x'7b7d', 1, NULL, 'finished', '{}', 201, '{}', x'7b7d', 0 FROM g`, n, cols)
	}
	if _, err := s.DB().Exec(q); err != nil {
		b.Fatal(err)
	}
}
