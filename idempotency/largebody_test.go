package idempotency_test

import (
	"bytes"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
)

// largeHandler answers 201 with size bytes, declaring their length, in
// 64 KiB writes.
func largeHandler(f *fixture, size int) http.Handler {
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.handler.runs.Add(1)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(http.StatusCreated)
		for left := size; left > 0; left -= len(chunk) {
			_, _ = w.Write(chunk[:min(left, len(chunk))])
		}
	})
}

// TestResponseAboveTheLimit: a response above the default
// MaxResponseBytes is sent whole, and the key is completed with its status
// and headers only, so the retry replays that summary and the handler runs
// once. Before the limit, the body went to the store as it was (MariaDB
// refuses one above max_allowed_packet: a 503 and a rerun on the retry).
func TestResponseAboveTheLimit(t *testing.T) {
	size := idempotency.DefaultMaxResponseBytes + 1
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", largeHandler(f, size)); err != nil {
				t.Fatal(err)
			}
			first := f.do("big", "acct_a", body)
			if first.Code != 201 || first.Body.Len() != size || first.Header().Get(idempotency.BodyNotStoredHeader) != strconv.Itoa(size) {
				t.Fatalf("first: %d, %d bytes, %v", first.Code, first.Body.Len(), first.Header())
			}
			again := f.do("big", "acct_a", body)
			if again.Code != 201 || again.Body.Len() != 0 || again.Header().Get(idempotency.BodyNotStoredHeader) != strconv.Itoa(size) ||
				again.Header().Get("Idempotent-Replayed") == "" || f.handler.runs.Load() != 1 {
				t.Fatalf("retry: %d, %d bytes, %v after %d runs", again.Code, again.Body.Len(), again.Header(), f.handler.runs.Load())
			}
			if n := f.metrics.Get(alerting.BodiesNotStored, "", ""); n != 1 {
				t.Errorf("bodies not stored counted: %d", n)
			}
		})
	}
}

// discard is a ResponseWriter keeping nothing, so the test counts the
// middleware's memory, not its own.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

// TestLargeResponseMemory: a response of 32 MiB costs the middleware at
// most twice its size in allocations (a buffer of its declared length, no
// copy for the store); before, the buffer doubled its way up and the
// stored copy came on top (about three times).
func TestLargeResponseMemory(t *testing.T) {
	const size = 32 << 20
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	var err error
	if f.h, err = f.mw.Handle("POST /v1/transfers", largeHandler(f, size)); err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
	r.Header.Set("Idempotency-Key", "mem")
	r.Header.Set("X-Account", "acct_a")
	w := &discard{h: http.Header{}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f.h.ServeHTTP(w, r)
	runtime.ReadMemStats(&after)
	if w.n != size {
		t.Fatalf("sent %d bytes, want %d", w.n, size)
	}
	// The bound is twice the body plus a fixed allowance for the request's
	// bookkeeping (headers, the claim, the record), which the race
	// detector's builds make a few kilobytes larger; a third copy of the
	// body, as before, is 32 MiB over it.
	const bookkeeping = 256 << 10
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*size+bookkeeping {
		t.Errorf("a %d-byte response allocated %d bytes (%.1fx)", size, alloc, float64(alloc)/size)
	}
}
