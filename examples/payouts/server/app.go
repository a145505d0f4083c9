package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/flaws"
	"github.com/retryspec/retryspec/storage"
)

type app struct {
	c        *contract.Contract
	store    *stores.SQLStore
	db       *sql.DB
	dialect  storage.Dialect
	mw       *idempotency.Middleware
	counters *idempotency.Counters
	external external
	log      *slog.Logger
	// flaw is an app-level flaw (appFlaws), "" for none.
	flaw appFlaw
}

func newApp(ctx context.Context, cfg config, externalURL string, log *slog.Logger) (*app, error) {
	c, err := loadContract(cfg.contractFile)
	if err != nil {
		return nil, err
	}
	store, err := stores.Open(ctx, cfg.store, c, cfg.migrate)
	if err != nil {
		return nil, err
	}
	a := &app{c: c, store: store, db: store.DB(), dialect: store.Schema().Dialect, counters: idempotency.NewCounters(), log: log}
	var mwFlaw flaws.Flaw
	a.flaw, mwFlaw = parseFlaw(cfg.flaw)
	keys := a.flaw.keyStore(store)
	if externalURL != "" {
		a.external = &httpExternal{base: strings.TrimRight(externalURL, "/"), client: &http.Client{Timeout: 30 * time.Second}}
	} else {
		a.external = &simulatedExternal{seen: map[string]string{}}
	}
	migrate := a.migrate
	if !servesTransfers(c) {
		migrate = a.migrateEffects // another contract: the generic handler (effects.go)
	}
	if err := migrate(ctx, cfg.migrate); err != nil {
		store.DB().Close()
		return nil, err
	}
	a.mw, err = idempotency.New(c, keys, idempotency.Options{
		Account: bearerAccount,
		Metrics: a.counters,
		Flaw:    mwFlaw,
		Log:     log,
	})
	if err != nil {
		store.DB().Close()
		return nil, err
	}
	return a, nil
}

func (a *app) close() { a.db.Close() }

// bearerAccount is the demo's authentication: the bearer token names the
// account. A real service looks the token up.
func bearerAccount(r *http.Request) (string, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	tok = strings.TrimSpace(tok)
	if !ok || tok == "" || len(tok) > 200 {
		return "", false
	}
	return tok, true
}

func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	if servesTransfers(a.c) {
		create, err := a.mw.Handle(transfersOperation, http.HandlerFunc(a.createTransfer))
		if err != nil {
			panic(err) // the contract lists the endpoint (servesTransfers); a test covers it
		}
		mux.Handle(transfersOperation, a.withAppFlaw(a.flaw, create))
		mux.HandleFunc("GET /v1/transfers", a.countTransfers)
	} else if err := a.effectRoutes(mux); err != nil {
		panic(err) // every keyed endpoint is the contract's own
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.db.PingContext(r.Context()); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store unreachable"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("GET /metrics", a.counters)
	return mux
}

// jobs runs the completer and the reaper every `every`.
func (a *app) jobs(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := a.mw.Complete(ctx, 100); err != nil {
			a.log.Error("completer", "err", err)
		} else if n > 0 {
			a.log.Info("completer finished abandoned requests", "count", n)
		}
		if n, err := a.mw.Reap(ctx, 1000); err != nil {
			a.log.Error("reaper", "err", err)
		} else if n > 0 {
			a.log.Info("reaper deleted expired keys", "count", n)
		}
	}
}

// The transfers table: one row per transfer, the effect verify counts.
func (a *app) migrate(ctx context.Context, create bool) error {
	text, key := "VARCHAR(255)", "VARCHAR(1024)"
	if a.dialect == storage.MySQL {
		text, key = "VARBINARY(255)", "VARBINARY(1024)"
	}
	ddl := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS transfers (
  id %[1]s NOT NULL PRIMARY KEY,
  account_id %[1]s NOT NULL,
  idempotency_key %[2]s NOT NULL,
  amount BIGINT NOT NULL,
  currency %[1]s NOT NULL,
  destination %[1]s NOT NULL,
  charge_id %[1]s,
  receipt_id %[1]s,
  status %[1]s NOT NULL,
  created_at BIGINT NOT NULL
)`, text, key)
	if create {
		if _, err := a.db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("creating the transfers table: %w", err)
		}
	}
	if _, err := a.db.ExecContext(ctx, "SELECT id, account_id, idempotency_key, amount, currency, destination, charge_id, receipt_id, status, created_at FROM transfers WHERE 1 = 0"); err != nil {
		return fmt.Errorf("the transfers table is missing or has the wrong shape (%v); run with --migrate", err)
	}
	return nil
}

// q writes the query's ? placeholders as the store's dialect does.
func (a *app) q(query string) string { return storage.Rebind(a.dialect, query) }

type transferRequest struct {
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Destination string `json:"destination"`
}

type transfer struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Destination string `json:"destination"`
	ChargeID    string `json:"charge_id"`
	ReceiptID   string `json:"receipt_id"`
	Status      string `json:"status"`
	Created     int64  `json:"created"`
}

var currencyRE = regexp.MustCompile(`^[a-z]{3}$`)

// createTransfer is a multi-step handler. Each phase commits its writes
// with the next recovery point; before each external call it takes the
// call's downstream key, which is stored before the call is made, so a
// retry after a crash anywhere resumes at the last commit and the provider
// sees the same key again.
func (a *app) createTransfer(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	step := idempotency.FromContext(ctx)
	req, ok := decodeTransfer(w, r)
	if !ok {
		return
	}
	account, ok := bearerAccount(r)
	if step == nil {
		// Only with --flaw missing-key-accepted: a request without a key
		// runs with no idempotency at all.
		a.unkeyed(w, r, account, req)
		return
	}
	if !ok {
		account = step.Account() // the completer runs without the caller's headers
	}
	key := step.Key()

	// Phase 1: the transfer row.
	if !step.Reached("transfer_created") {
		if a.failed(ctx, w, step, a.createRow(ctx, step, account, req)) {
			return
		}
	}
	t, err := a.latest(ctx, account, key)
	if a.failed(ctx, w, step, err) {
		return
	}
	// Phase 2: charge the bank, then record the charge.
	if !step.Reached("bank_charged") {
		t.ChargeID, err = a.callPhase(ctx, step, "bank_charged", "charge_bank", `UPDATE transfers SET charge_id = ? WHERE id = ?`, t)
		if a.failed(ctx, w, step, err) {
			return
		}
	}
	// Phase 3: send the receipt, then record it.
	if !step.Reached("receipt_sent") {
		t.ReceiptID, err = a.callPhase(ctx, step, "receipt_sent", "send_receipt", `UPDATE transfers SET receipt_id = ? WHERE id = ?`, t)
		if a.failed(ctx, w, step, err) {
			return
		}
	}
	// Phase 4: the response, stored with the final status in one transaction.
	t.Status = "succeeded"
	writeJSON(w, http.StatusCreated, t)
	err = step.FinishWrites(ctx, idempotency.Write{SQL: a.q(`UPDATE transfers SET status = 'succeeded' WHERE id = ?`), Args: []any{t.ID}})
	if errors.Is(err, idempotency.ErrFenceLost) {
		return // the middleware answers; the other owner's response is stored
	}
	if err != nil {
		a.log.Error("finishing transfer", "err", err)
	}
}

// createRow is the first phase: the transfer's row, committed with its
// recovery point (one pipeline on PostgreSQL, one transaction elsewhere).
func (a *app) createRow(ctx context.Context, step *idempotency.Step, account string, req transferRequest) error {
	return step.CommitWrites(ctx, "transfer_created", idempotency.Write{SQL: a.q(`INSERT INTO transfers (id, account_id, idempotency_key, amount, currency, destination, status, created_at)
VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`), Args: []any{"tr_" + randomHex(12), account, step.Key(), req.Amount, req.Currency, req.Destination, time.Now().Unix()}})
}

// decodeTransfer reads the request body; ok=false: the request has its 400.
func decodeTransfer(w http.ResponseWriter, r *http.Request) (req transferRequest, ok bool) {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Amount <= 0 || !currencyRE.MatchString(req.Currency) || req.Destination == "" || len(req.Destination) > 255 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "invalid_request",
			"message": `Send {"amount": positive integer, "currency": three lower-case letters, "destination": account id}.`})
		return req, false
	}
	return req, true
}

// callPhase is a phase around one external call: it makes the call under
// the call's downstream key, then commits record (an UPDATE of the
// transfer, given the id the call returned and the transfer's id) with
// the next recovery point, and returns that id.
func (a *app) callPhase(ctx context.Context, step *idempotency.Step, point, call, record string, t *transfer) (string, error) {
	id, err := a.call(ctx, step, call, t)
	if err != nil {
		return "", err
	}
	return id, step.CommitWrites(ctx, point, idempotency.Write{SQL: a.q(record), Args: []any{id, t.ID}})
}

// unkeyed is the transfer without idempotency (--flaw missing-key-accepted):
// every external call gets a fresh key, so every retry is a new transfer.
func (a *app) unkeyed(w http.ResponseWriter, r *http.Request, account string, req transferRequest) {
	ctx := r.Context()
	t := &transfer{ID: "tr_" + randomHex(12), Object: "transfer", Amount: req.Amount, Currency: req.Currency,
		Destination: req.Destination, Status: "succeeded", Created: time.Now().Unix()}
	var err error
	for _, call := range []struct {
		name string
		id   *string
	}{{"charge_bank", &t.ChargeID}, {"send_receipt", &t.ReceiptID}} {
		body, _ := json.Marshal(map[string]any{"transfer": t.ID, "amount": t.Amount})
		if *call.id, err = a.external.Call(ctx, call.name, randomHex(16), body); err != nil {
			break
		}
	}
	if err == nil {
		_, err = a.db.ExecContext(ctx, a.q(`INSERT INTO transfers (id, account_id, idempotency_key, amount, currency, destination, charge_id, receipt_id, status, created_at)
VALUES (?, ?, '', ?, ?, ?, ?, ?, 'succeeded', ?)`), t.ID, account, t.Amount, t.Currency, t.Destination, t.ChargeID, t.ReceiptID, t.Created)
	}
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "temporarily_unavailable", "message": err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

// failed answers a phase's error. The key is released, not completed: the
// outcome of an external call that failed is unknown, and a retry resumes
// from the last recovery point with the same downstream keys.
func (a *app) failed(ctx context.Context, w http.ResponseWriter, step *idempotency.Step, err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, idempotency.ErrFenceLost) {
		return true
	}
	a.log.Error("transfer phase failed", "err", err, "recovery_point", step.RecoveryPoint())
	// Detached from the caller on purpose: a caller that gave up (often
	// the reason the phase failed) must not leave the key held until
	// lock_timeout, so the release outlives the request; it keeps the
	// request's values (trace and log attributes).
	_ = step.Release(context.WithoutCancel(ctx))
	w.Header().Set("Retry-After", "1")
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "temporarily_unavailable",
		"message": "The transfer could not be finished now. Retry with the same idempotency key; it resumes where it stopped."})
	return true
}

func (a *app) latest(ctx context.Context, account, key string) (*transfer, error) {
	var t transfer
	var charge, receipt sql.NullString
	err := a.db.QueryRowContext(ctx, a.q(`SELECT id, amount, currency, destination, charge_id, receipt_id, status, created_at
FROM transfers WHERE account_id = ? AND idempotency_key = ? ORDER BY created_at DESC, id DESC LIMIT 1`), account, key).
		Scan(&t.ID, &t.Amount, &t.Currency, &t.Destination, &charge, &receipt, &t.Status, &t.Created)
	if err != nil {
		return nil, fmt.Errorf("reading the transfer: %w", err)
	}
	t.Object, t.ChargeID, t.ReceiptID = "transfer", charge.String, receipt.String
	return &t, nil
}

func (a *app) call(ctx context.Context, step *idempotency.Step, name string, t *transfer) (string, error) {
	key, err := step.DownstreamKey(ctx, name)
	if err != nil {
		return "", err
	}
	body, _ := json.Marshal(map[string]any{"transfer": t.ID, "amount": t.Amount, "currency": t.Currency, "destination": t.Destination})
	return a.external.Call(ctx, name, key, body)
}

// countTransfers is the effect count verify reads: how many transfers the
// caller's key made (it should never be more than one).
func (a *app) countTransfers(w http.ResponseWriter, r *http.Request) {
	account, key, ok := countQuery(w, r)
	if !ok {
		return
	}
	rows, err := a.db.QueryContext(r.Context(), a.q(`SELECT id FROM transfers WHERE account_id = ? AND idempotency_key = ? ORDER BY created_at, id`), account, key)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "temporarily_unavailable", "message": "The store is unreachable."})
		return
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			ids = append(ids, id)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"idempotency_key": key, "count": len(ids), "data": ids})
}

// countQuery reads an effect count's caller and ?idempotency_key=;
// ok=false: the request has its 401 or 400.
func countQuery(w http.ResponseWriter, r *http.Request) (account, key string, ok bool) {
	account, ok = bearerAccount(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "unauthorized", "message": "Send Authorization: Bearer TOKEN."})
		return "", "", false
	}
	key = r.URL.Query().Get("idempotency_key")
	if key == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "invalid_request", "message": "Pass ?idempotency_key=KEY."})
		return "", "", false
	}
	return account, key, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// external makes the endpoint's external calls.
type external interface {
	Call(ctx context.Context, name, key string, body []byte) (id string, err error)
}

// httpExternal speaks verify's stub protocol: POST BASE/<call> with the
// Idempotency-Key header, answered 200 {"id": "..."}.
type httpExternal struct {
	base   string
	client *http.Client
}

func (e *httpExternal) Call(ctx context.Context, name, key string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.base+"/"+name, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: status %d", name, resp.StatusCode)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("%s: answer without an id: %q", name, b)
	}
	return out.ID, nil
}

// simulatedExternal stands in for the bank and the mailer when no
// RETRYSPEC_EXTERNAL_URL is set: idempotent per (call, key), like a real
// provider.
type simulatedExternal struct {
	mu   sync.Mutex
	seen map[string]string
	n    int
}

func (e *simulatedExternal) Call(_ context.Context, name, key string, _ []byte) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id, ok := e.seen[name+"\x00"+key]; ok {
		return id, nil
	}
	e.n++
	id := fmt.Sprintf("%s_%d", name, e.n)
	e.seen[name+"\x00"+key] = id
	return id, nil
}
