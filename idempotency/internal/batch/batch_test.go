package batch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// call is one fake call: its key and how many batches sent it.
type call struct {
	id   string
	key  string
	sent int
}

// fakeSend records the batches it is given, in the order sent. While gate
// is open (not closed), a batch sent alone by a call that found a free
// slot blocks until the test closes it; entered says it started.
type fakeSend struct {
	mu      sync.Mutex
	batches [][]string
	gate    chan struct{}
	entered chan struct{}
}

func (f *fakeSend) send(batch []*call) {
	f.mu.Lock()
	ids := make([]string, len(batch))
	for i, c := range batch {
		ids[i] = c.id
		c.sent++ // the outcome, read by the caller once Do returns
	}
	first := len(f.batches) == 0 || f.gateOpen()
	f.batches = append(f.batches, ids)
	f.mu.Unlock()
	if first {
		f.entered <- struct{}{}
		<-f.gate
	}
}

// sentCalls counts the calls sent so far.
func (f *fakeSend) sentCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, b := range f.batches {
		n += len(b)
	}
	return n
}

// gateOpen reports whether the gate still holds batches (not yet closed).
func (f *fakeSend) gateOpen() bool {
	select {
	case <-f.gate:
		return false
	default:
		return true
	}
}

// yieldUntil gives the other goroutines the processor until cond holds,
// at most a generous number of times: it counts scheduling rounds, never
// time.
func yieldUntil(cond func() bool) bool {
	for range 100_000 {
		if cond() {
			return true
		}
		runtime.Gosched()
	}
	return cond()
}

// TestBatcher: calls that arrive while batches are in flight queue, and
// when a batch returns its first caller sends the next batch for the
// others: every call is sent exactly once (or, when its context ends while
// it waits, leaves the queue unsent with the context's error), batches
// keep the queue's order, and a Distinct batch never holds one key twice.
func TestBatcher(t *testing.T) {
	for _, tc := range []struct {
		name        string
		inFlight    int
		maxBatch    int
		distinct    bool
		busy        []string // keys of the calls that find a free slot; their sends block
		queue       []string // keys of the calls that queue, in this order
		cancel      []int    // indexes in queue of calls whose context ends while queued
		wantBatches [][]string
	}{{
		name: "quiet: sent alone at once", inFlight: 1, maxBatch: 64,
		busy:        []string{"a"},
		wantBatches: [][]string{{"b0"}},
	}, {
		name: "queued calls go together, in order", inFlight: 1, maxBatch: 64,
		busy: []string{"a"}, queue: []string{"b", "c", "d"},
		wantBatches: [][]string{{"b0"}, {"q0", "q1", "q2"}},
	}, {
		name: "a key twice waits for the next batch", inFlight: 1, maxBatch: 64, distinct: true,
		busy: []string{"a"}, queue: []string{"k1", "k2", "k1", "k3", "k1", "k2"},
		wantBatches: [][]string{{"b0"}, {"q0", "q1", "q3"}, {"q2", "q5"}, {"q4"}},
	}, {
		name: "without keys a key twice shares the batch", inFlight: 1, maxBatch: 64,
		busy: []string{"a"}, queue: []string{"k1", "k2", "k1", "k3", "k1"},
		wantBatches: [][]string{{"b0"}, {"q0", "q1", "q2", "q3", "q4"}},
	}, {
		name: "maxBatch bounds a batch", inFlight: 1, maxBatch: 2,
		busy: []string{"a"}, queue: []string{"b", "c", "d", "e", "f"},
		wantBatches: [][]string{{"b0"}, {"q0", "q1"}, {"q2", "q3"}, {"q4"}},
	}, {
		name: "maxBatch bounds a distinct batch", inFlight: 1, maxBatch: 2, distinct: true,
		busy: []string{"a"}, queue: []string{"k1", "k1", "k2", "k3"},
		wantBatches: [][]string{{"b0"}, {"q0", "q2"}, {"q1", "q3"}},
	}, {
		name: "a cancelled queued call leaves", inFlight: 1, maxBatch: 64,
		busy: []string{"a"}, queue: []string{"b", "c", "d"}, cancel: []int{1},
		wantBatches: [][]string{{"b0"}, {"q0", "q2"}},
	}, {
		name: "a cancelled first queued call leaves the lead to the next", inFlight: 1, maxBatch: 64, distinct: true,
		busy: []string{"a"}, queue: []string{"k1", "k1", "k2"}, cancel: []int{0},
		wantBatches: [][]string{{"b0"}, {"q1", "q2"}},
	}, {
		name: "every queued call cancelled", inFlight: 1, maxBatch: 64,
		busy: []string{"a"}, queue: []string{"b", "c"}, cancel: []int{0, 1},
		wantBatches: [][]string{{"b0"}},
	}, {
		name: "two in flight", inFlight: 2, maxBatch: 64, distinct: true,
		busy: []string{"a", "b"}, queue: []string{"k1", "k1", "k2"},
		// The two batches in flight return in either order; each hands
		// on one batch, so two more batches go.
		wantBatches: [][]string{{"b0"}, {"b1"}, {"q0", "q2"}, {"q1"}}, // sorted
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeSend{gate: make(chan struct{}), entered: make(chan struct{}, len(tc.busy))}
			var b *Batcher[*call]
			if tc.distinct {
				b = Distinct(tc.inFlight, tc.maxBatch, func(c *call) string { return c.key }, f.send)
			} else {
				b = New(tc.inFlight, tc.maxBatch, f.send)
			}
			gateClosed := false
			openGate := func() {
				if !gateClosed {
					gateClosed = true
					close(f.gate)
				}
			}
			defer openGate() // never leave a goroutine blocked on a failed test
			type result struct {
				c   *call
				err error
			}
			results := make(chan result, len(tc.busy)+len(tc.queue))
			start := func(ctx context.Context, c *call) {
				go func() { results <- result{c, b.Do(ctx, c)} }()
			}
			var calls []*call
			for i, k := range tc.busy {
				c := &call{id: fmt.Sprintf("b%d", i), key: k}
				calls = append(calls, c)
				start(context.Background(), c)
				<-f.entered
			}
			cancels := map[int]context.CancelFunc{}
			for i, k := range tc.queue {
				c := &call{id: fmt.Sprintf("q%d", i), key: k}
				calls = append(calls, c)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				cancels[i] = cancel
				start(ctx, c)
				if !yieldUntil(func() bool { return b.Queued() == i+1 }) {
					t.Fatalf("call %d did not queue behind the batches in flight", i)
				}
			}
			for n, i := range tc.cancel {
				cancels[i]()
				if want := len(tc.queue) - n - 1; !yieldUntil(func() bool { return b.Queued() == want }) {
					t.Fatalf("q%d's context ended, and %d calls are still queued, want %d", i, b.Queued(), want)
				}
				r := <-results
				if r.c != calls[len(tc.busy)+i] || !errors.Is(r.err, context.Canceled) {
					t.Fatalf("after cancelling q%d: %s returned %v, want q%d with context.Canceled", i, r.c.id, r.err, i)
				}
			}
			openGate()
			// The hand-off: each returning batch takes the next one off the
			// queue and its first caller sends it; no new call comes to
			// send the queued ones.
			wantSent := len(calls) - len(tc.cancel)
			if !yieldUntil(func() bool { return f.sentCalls() == wantSent }) {
				t.Fatalf("the batches in flight returned and %d calls were sent, want %d: the queue was not handed on", f.sentCalls(), wantSent)
			}
			for range wantSent {
				if r := <-results; r.err != nil {
					t.Fatalf("%s: %v", r.c.id, r.err)
				}
			}
			f.mu.Lock()
			got := f.batches
			f.mu.Unlock()
			if tc.inFlight > 1 {
				// Batches in flight together are sent in any order.
				slices.SortFunc(got, func(a, b []string) int { return cmpStrings(a[0], b[0]) })
			}
			if diff := cmp.Diff(tc.wantBatches, got); diff != "" {
				t.Errorf("batches (-want +got):\n%s", diff)
			}
			for i, c := range calls {
				want := 1
				if i >= len(tc.busy) && slices.Contains(tc.cancel, i-len(tc.busy)) {
					want = 0
				}
				if c.sent != want {
					t.Errorf("%s was sent %d times, want %d", c.id, c.sent, want)
				}
			}
			for _, batch := range got {
				seen := map[string]bool{}
				for _, id := range batch {
					k := calls[indexOf(calls, id)].key
					if tc.distinct && seen[k] {
						t.Errorf("batch %v holds key %s twice", batch, k)
					}
					seen[k] = true
				}
			}
			b.mu.Lock()
			busy := b.busy
			b.mu.Unlock()
			if busy != 0 || b.Queued() != 0 {
				t.Errorf("after every call returned: %d batches in flight, %d queued; want none", busy, b.Queued())
			}
		})
	}
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func indexOf(calls []*call, id string) int {
	return slices.IndexFunc(calls, func(c *call) bool { return c.id == id })
}

// TestBatcherConcurrent: many goroutines calling at once, under -race:
// every call is sent exactly once, no batch holds one key twice, at most
// inFlight batches run at once, and each goroutine's calls of one key are
// sent in the order it made them.
func TestBatcherConcurrent(t *testing.T) {
	const goroutines, perGoroutine, inFlight = 8, 300, 2
	type kcall struct {
		key  int
		seq  int // the goroutine's call number
		sent int
	}
	var mu sync.Mutex
	running, most := 0, 0
	lastSeq := map[int]int{} // key -> highest seq sent
	var failures []string
	b := Distinct(inFlight, 16, func(c *kcall) int { return c.key }, func(batch []*kcall) {
		mu.Lock()
		running++
		most = max(most, running)
		seen := map[int]bool{}
		for _, c := range batch {
			if seen[c.key] {
				failures = append(failures, fmt.Sprintf("key %d twice in one batch", c.key))
			}
			seen[c.key] = true
			if c.seq <= lastSeq[c.key] {
				failures = append(failures, fmt.Sprintf("key %d: call %d sent after call %d", c.key, c.seq, lastSeq[c.key]))
			}
			lastSeq[c.key] = c.seq
			c.sent++
		}
		mu.Unlock()
		runtime.Gosched() // let others queue behind this batch
		mu.Lock()
		running--
		mu.Unlock()
	})
	var wg sync.WaitGroup
	all := make([][]*kcall, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				// Each goroutine owns the keys g, g+goroutines, ...: the
				// order of one key's calls is its goroutine's.
				c := &kcall{key: g + goroutines*(i%3), seq: i + 1}
				all[g] = append(all[g], c)
				if err := b.Do(context.Background(), c); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	for g, calls := range all {
		for _, c := range calls {
			if c.sent != 1 {
				t.Errorf("goroutine %d call %d sent %d times", g, c.seq, c.sent)
			}
		}
	}
	if most > inFlight {
		t.Errorf("%d batches ran at once, want at most %d", most, inFlight)
	}
}
