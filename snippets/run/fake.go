package run

import (
	"context"
	"sync"
)

// Fake is a Runner for unit tests: it records what it was asked to run and
// answers with Respond (or a zero Result).
type Fake struct {
	Respond func(p Program, env map[string]string) (Result, error)

	mu       sync.Mutex
	Prepared []Program
	Runs     []map[string]string
}

// Prepare records p.
func (f *Fake) Prepare(ctx context.Context, p Program) (Prepared, error) {
	f.mu.Lock()
	f.Prepared = append(f.Prepared, p)
	f.mu.Unlock()
	return &fakePrepared{f: f, p: p}, nil
}

type fakePrepared struct {
	f *Fake
	p Program
}

func (fp *fakePrepared) Run(ctx context.Context, env map[string]string) (Result, error) {
	fp.f.mu.Lock()
	fp.f.Runs = append(fp.f.Runs, env)
	fp.f.mu.Unlock()
	if fp.f.Respond == nil {
		return Result{}, nil
	}
	return fp.f.Respond(fp.p, env)
}

func (fp *fakePrepared) Close() error { return nil }
