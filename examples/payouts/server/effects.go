package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/storage"
)

// A contract other than the payouts one (--contract FILE without POST
// /v1/transfers, such as examples/square-payments or examples/azure-email)
// is served with one generic handler per keyed endpoint: each run records
// one effect, then makes the endpoint's external calls in order, each under
// its downstream key, committing the contract's recovery points on the
// way (the first with the effect, the next after each call), and answers
// 201 with what it did. GET /effects?idempotency_key=K counts the
// caller's effects under K, the count `retryspec verify` reads.

// transfersOperation is the payouts contract's keyed endpoint.
const transfersOperation = "POST /v1/transfers"

// servesTransfers reports whether c is served by the payouts handler.
func servesTransfers(c *contract.Contract) bool {
	for _, e := range c.Endpoints {
		if e.Operation == transfersOperation || e.Method+" "+e.Path == transfersOperation {
			return true
		}
	}
	return false
}

// effectRoutes mounts every keyed endpoint of the contract on mux with the
// generic handler, and the effect count.
func (a *app) effectRoutes(mux *http.ServeMux) error {
	for _, e := range a.c.Endpoints {
		if !e.Keyed() {
			continue
		}
		h, err := a.mw.Handle(e.Operation, a.effect(e))
		if err != nil {
			return err
		}
		mux.Handle(e.Method+" "+e.Path, a.withAppFlaw(a.flaw, h))
	}
	mux.HandleFunc("GET /effects", a.countEffects)
	return nil
}

// migrateEffects creates the effects table: one row per run of a keyed
// endpoint's handler.
func (a *app) migrateEffects(ctx context.Context, create bool) error {
	text, key := "VARCHAR(255)", "VARCHAR(1024)"
	if a.dialect == storage.MySQL {
		text, key = "VARBINARY(255)", "VARBINARY(1024)"
	}
	if create {
		ddl := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS effects (
  id %[1]s NOT NULL PRIMARY KEY,
  account_id %[1]s NOT NULL,
  idempotency_key %[2]s NOT NULL,
  operation %[1]s NOT NULL,
  created_at BIGINT NOT NULL
)`, text, key)
		if _, err := a.db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("creating the effects table: %w", err)
		}
	}
	if _, err := a.db.ExecContext(ctx, "SELECT id, account_id, idempotency_key, operation, created_at FROM effects WHERE 1 = 0"); err != nil {
		return fmt.Errorf("the effects table is missing or has the wrong shape (%v); run with --migrate", err)
	}
	return nil
}

// effectAnswer is the generic handler's response.
type effectAnswer struct {
	Object    string            `json:"object"`
	Operation string            `json:"operation"`
	Calls     map[string]string `json:"calls"`
}

// effect is the generic handler of endpoint e.
func (a *app) effect(e contract.Endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !json.Valid(body) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"code": "invalid_request", "message": "Send a JSON body."})
			return
		}
		account, _ := bearerAccount(r)
		step := idempotency.FromContext(ctx)
		if step == nil {
			// key: optional, sent without a key: one effect, no idempotency.
			if _, err := a.db.ExecContext(ctx, a.q(`INSERT INTO effects (id, account_id, idempotency_key, operation, created_at) VALUES (?, ?, '', ?, ?)`),
				"ef_"+randomHex(12), account, e.Operation, time.Now().Unix()); err != nil {
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "temporarily_unavailable", "message": "The store is unreachable."})
				return
			}
			writeJSON(w, http.StatusCreated, effectAnswer{Object: "effect", Operation: e.Operation, Calls: map[string]string{}})
			return
		}
		if account == "" {
			account = step.Account() // the completer runs without the caller's headers
		}
		insert := idempotency.Write{SQL: a.q(`INSERT INTO effects (id, account_id, idempotency_key, operation, created_at) VALUES (?, ?, ?, ?, ?)`),
			Args: []any{"ef_" + randomHex(12), account, step.Key(), e.Operation, time.Now().Unix()}}
		points := e.RecoveryPoints
		var last []idempotency.Write // the writes that go with the response
		if len(points) == 0 {
			last = append(last, insert)
		} else if !step.Reached(points[0]) && a.failed(ctx, w, step, step.CommitWrites(ctx, points[0], insert)) {
			return
		}
		out := effectAnswer{Object: "effect", Operation: e.Operation, Calls: map[string]string{}}
		for i, call := range e.ExternalCalls {
			if i+1 < len(points) && step.Reached(points[i+1]) {
				continue // made and recorded by an earlier run
			}
			key, err := step.DownstreamKey(ctx, call)
			if a.failed(ctx, w, step, err) {
				return
			}
			payload, _ := json.Marshal(map[string]any{"operation": e.Operation, "key": step.Key()})
			if out.Calls[call], err = a.external.Call(ctx, call, key, payload); a.failed(ctx, w, step, err) {
				return
			}
			if i+1 < len(points) && a.failed(ctx, w, step, step.CommitWrites(ctx, points[i+1])) {
				return
			}
		}
		writeJSON(w, http.StatusCreated, out)
		if err := step.FinishWrites(ctx, last...); err != nil && !errors.Is(err, idempotency.ErrFenceLost) {
			a.log.Error("finishing "+e.Operation, "err", err)
		}
	}
}

// countEffects is the effect count verify reads: how many runs the
// caller's key made, on every endpoint.
func (a *app) countEffects(w http.ResponseWriter, r *http.Request) {
	account, key, ok := countQuery(w, r)
	if !ok {
		return
	}
	var n int
	if err := a.db.QueryRowContext(r.Context(), a.q(`SELECT COUNT(*) FROM effects WHERE account_id = ? AND idempotency_key = ?`), account, key).Scan(&n); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "temporarily_unavailable", "message": "The store is unreachable."})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"idempotency_key": key, "count": n})
}
