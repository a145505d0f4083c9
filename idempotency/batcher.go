package idempotency

import (
	"context"
	"slices"
	"sync"
)

// batcher groups concurrent calls the way a database groups commits; the
// claims (claimbatch.go) and the write pipelines (writebatch.go) share it.
// A call that finds fewer than maxInFlight batches in flight is sent at
// once, alone: nothing waits while the service is quiet. Calls that arrive
// meanwhile queue; when a batch returns, its sender hands the next batch
// (chosen by take) to that batch's first caller, who sends it. Under load a
// call waits at most one round trip longer, and the database does one round
// trip's fixed work for many.
type batcher[C any] struct {
	maxInFlight int
	// take splits a non-empty queue into the next batch (non-empty) and the
	// calls that stay queued, each in queue order; rest reuses the queue's
	// array.
	take func(queue []*queued[C]) (next, rest []*queued[C])
	// send runs one batch and sets each call's outcome in the call.
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

// do sends c, alone or in a batch, and returns once its outcome is set in
// c. When ctx ends while c is still queued, c leaves the queue and do
// returns ctx's error: c was in no batch. A call already taken into a batch
// waits for that batch's outcome, which is about to arrive.
func (b *batcher[C]) do(ctx context.Context, c C) error {
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
		b.mu.Lock()
		if i := slices.Index(b.queue, q); i >= 0 {
			b.queue = slices.Delete(b.queue, i, i+1)
			b.mu.Unlock()
			return ctx.Err()
		}
		b.mu.Unlock()
		<-q.done
	}
	if q.lead != nil {
		b.run(q.lead)
	}
	return nil
}

// run sends one batch, then hands on the queue.
func (b *batcher[C]) run(batch []*queued[C]) {
	calls := make([]C, len(batch))
	for i, q := range batch {
		calls[i] = q.call
	}
	b.send(calls)
	b.handOff(batch)
}

// handOff wakes the callers of the batch just sent and hands the next
// batch to its first caller, or marks one batch fewer in flight.
func (b *batcher[C]) handOff(batch []*queued[C]) {
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
