// Package batch groups concurrent calls into batches the way a database
// groups commits. The SQL store's claims and write pipelines share it.
//
// A call that finds fewer than maxInFlight batches in flight is sent at
// once, alone: nothing waits while the service is quiet. Calls that arrive
// meanwhile queue; when a batch returns, its sender hands the next batch
// to that batch's first caller, who sends it. Under load a call waits at
// most one round trip longer, and the database does one round trip's
// fixed work for many.
package batch

import (
	"context"
	"slices"
	"sync"
)

// Batcher sends calls of type C in batches. Its send function runs one
// batch and sets each call's outcome in the call; Do returns once it has.
type Batcher[C any] struct {
	maxInFlight int
	// take splits a non-empty queue into the next batch (non-empty) and
	// the calls that stay queued, each in queue order; rest reuses the
	// queue's array.
	take func(queue []*queued[C]) (next, rest []*queued[C])
	send func(batch []C)

	mu    sync.Mutex
	busy  int // batches in flight, at most maxInFlight
	queue []*queued[C]
}

type queued[C any] struct {
	call C
	// done is closed once the outcome is set in call, or once lead holds
	// the batch this call must send.
	done chan struct{}
	lead []*queued[C]
}

// New returns a Batcher that runs at most maxInFlight batches at once,
// each of at most maxBatch calls taken in the order they queued.
func New[C any](maxInFlight, maxBatch int, send func(batch []C)) *Batcher[C] {
	take := func(queue []*queued[C]) (next, rest []*queued[C]) {
		n := min(len(queue), maxBatch)
		next = slices.Clone(queue[:n])
		return next, queue[:copy(queue, queue[n:])]
	}
	return &Batcher[C]{maxInFlight: maxInFlight, take: take, send: send}
}

// Distinct is New for calls with a key, where no batch may hold two
// calls of one key: a second call of a key waits for the next batch, and
// so learns the outcome of the first as it would have on its own.
func Distinct[C any, K comparable](maxInFlight, maxBatch int, key func(C) K, send func(batch []C)) *Batcher[C] {
	take := func(queue []*queued[C]) (next, rest []*queued[C]) {
		seen := make(map[K]bool, len(queue))
		rest = queue[:0]
		for _, q := range queue {
			k := key(q.call)
			if seen[k] || len(next) == maxBatch {
				rest = append(rest, q)
				continue
			}
			seen[k] = true
			next = append(next, q)
		}
		return next, rest
	}
	return &Batcher[C]{maxInFlight: maxInFlight, take: take, send: send}
}

// Do sends c, alone or in a batch, and returns once its outcome is set in
// c. When ctx ends while c is still queued, c leaves the queue and Do
// returns ctx's error: c was in no batch. A call already taken into a
// batch waits for that batch's outcome, which is about to arrive.
func (b *Batcher[C]) Do(ctx context.Context, c C) error {
	q := &queued[C]{call: c}
	b.mu.Lock()
	if b.busy < b.maxInFlight {
		b.busy++
		b.mu.Unlock()
		b.run([]*queued[C]{q})
		return nil
	}
	q.done = make(chan struct{})
	b.queue = append(b.queue, q)
	b.mu.Unlock()
	select {
	case <-q.done:
	case <-ctx.Done():
		if b.leave(q) {
			return ctx.Err()
		}
		<-q.done
	}
	if q.lead != nil {
		b.run(q.lead)
	}
	return nil
}

// leave removes q from the queue and reports whether it was still there.
func (b *Batcher[C]) leave(q *queued[C]) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.Index(b.queue, q)
	if i < 0 {
		return false
	}
	b.queue = slices.Delete(b.queue, i, i+1)
	return true
}

// run sends one batch, then hands on the queue.
func (b *Batcher[C]) run(batch []*queued[C]) {
	calls := make([]C, len(batch))
	for i, q := range batch {
		calls[i] = q.call
	}
	b.send(calls)
	b.handOff(batch)
}

// handOff wakes the callers of the batch just sent and hands the next
// batch to its first caller, or marks one batch fewer in flight.
func (b *Batcher[C]) handOff(batch []*queued[C]) {
	b.mu.Lock()
	var next []*queued[C]
	if len(b.queue) > 0 {
		var rest []*queued[C]
		next, rest = b.take(b.queue)
		clear(b.queue[len(rest):])
		b.queue = rest
	}
	if len(next) == 0 {
		b.busy--
	}
	b.mu.Unlock()
	for _, q := range batch {
		if q.done != nil && q.lead == nil {
			close(q.done)
		}
	}
	if len(next) > 0 {
		next[0].lead = next
		close(next[0].done)
	}
}

// Queued is how many calls wait for a batch.
func (b *Batcher[C]) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// Hold makes further calls queue as if every batch in flight were busy,
// and Release sends the queue as a returning batch would: the store's
// tests use them to build a batch of known calls.
func (b *Batcher[C]) Hold() {
	b.mu.Lock()
	b.busy = b.maxInFlight
	b.mu.Unlock()
}

// Release sends the queue a Hold kept as a returning batch would.
func (b *Batcher[C]) Release() { b.handOff(nil) }
