package storage

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// statements is every statement the dialect has, in the file's order. A
// statement that needs a capability is written only for a dialect whose
// row has it.
func (g *gen) statements() []Statement {
	all := []Statement{g.claim(), g.lookup()}
	if g.rowLock {
		all = append(all, g.begin(), g.lockKey())
	}
	if g.d.claimLookup {
		all = append(all, g.claimLookup())
	}
	if g.d.claimLookup && g.d.arrayBatches {
		all = append(all, g.claimLookupBatch())
	}
	if g.d.arrayBatches {
		all = append(all, g.claimBatch())
	}
	checkpoint, complete := g.checkpoint(), g.complete()
	all = append(all, g.takeover(), checkpoint, complete)
	if g.d.abortOnLostFence {
		all = append(all,
			g.orAbort(checkpoint, CheckpointOrAbort, "endpoints[].recovery_points"),
			g.orAbort(complete, CompleteOrAbort, "idempotency.stored_response "+string(g.idem.StoredResponse)))
	}
	return append(all, g.release(), g.expire(), g.reap(), g.stale())
}

// lookupCols are the columns a loser reads: Lookup's, LockKey's and the
// combined claims'.
var lookupCols = []string{"operation", "fingerprint", "request_body", "fence", "locked_at", "recovery_point", "downstream_keys",
	"response_status", "response_headers", "response_body", "created_at", targetColumn}

// match is the condition that the key columns of left equal those of
// right (a table alias and a dot, or ":" for the parameters).
func (g *gen) match(left, right string) string {
	conds := make([]string, len(g.keyCols))
	for i, col := range g.keyCols {
		conds[i] = left + col + " = " + right + col
	}
	return strings.Join(conds, " AND ")
}

// mechanism is the documentation line naming the claim's contract fields.
func (g *gen) mechanism() string {
	return "idempotency.claim.mechanism " + string(g.idem.Claim.Mechanism) + "; idempotency.scope " + string(g.idem.Scope) + "."
}

// insertCols are the columns a claim inserts.
func (g *gen) insertCols() []string {
	return append(slices.Clone(g.keyCols), "operation", "fingerprint", "request_body", targetColumn, "fence", "locked_at", "recovery_point", "downstream_keys", "created_at")
}

// insert is the claim's insert of one key, before its conflict clause.
func (g *gen) insert() string {
	cols := g.insertCols()
	return fmt.Sprintf("INSERT INTO %s (%s)\nVALUES (%s)", Table, strings.Join(cols, ", "), strings.Join(claimValues(cols, ":"), ", "))
}

// claimValues is the VALUES list of a claim's insert, one per column of
// cols: the first fencing token, the clock for the lease and the creation
// time, no downstream keys yet, and from for what the caller sends (":"
// for a parameter, "i." for a column of the batch's unnested arrays).
func claimValues(cols []string, from string) []string {
	vals := make([]string, len(cols))
	for i, col := range cols {
		switch col {
		case "fence":
			vals[i] = "1"
		case "locked_at", "created_at":
			vals[i] = from + "now"
		case "downstream_keys":
			vals[i] = "'{}'"
		default:
			vals[i] = from + col
		}
	}
	return vals
}

func (g *gen) claim() Statement {
	doc := []string{
		"Claim the key: one insert the unique constraint arbitrates; the fencing token is 1.",
		g.mechanism(),
	}
	if g.rowLock {
		doc = []string{
			"Claim the key inside the SERIALIZABLE transaction, after LockKey returned no row; the fencing token is 1.",
			"A rival that read no row either waits on this insert or fails with " + g.d.locked.retryOn + ":",
			"roll back and run the transaction again from " + g.d.locked.begin.String() + ", where LockKey then returns the row.",
			g.mechanism(),
		}
	}
	if g.d.claim == insertIgnore {
		return Statement{Name: Claim, Kind: KindExecRows,
			Doc: append(doc, "MySQL has no RETURNING: 1 row affected means this caller won, 0 that the key exists."),
			SQL: strings.Replace(g.insert(), "INSERT INTO", "INSERT IGNORE INTO", 1)}
	}
	return Statement{Name: Claim, Kind: KindOne, Columns: []string{"fence"},
		Doc: append(doc, "A returned row means this caller won; no row, that the key exists (read it with Lookup)."),
		SQL: fmt.Sprintf("%s\nON CONFLICT (%s) DO NOTHING\nRETURNING fence", g.insert(), g.keyList)}
}

func (g *gen) lookup() Statement {
	return Statement{Name: Lookup, Kind: KindOne, Columns: lookupCols,
		Doc: []string{
			"A caller that lost the claim reads the row and branches on its state: complete",
			"(response_status set: compare idempotency.fingerprint, then replay), or in flight",
			"(idempotency.in_flight.response, or Takeover once idempotency.in_flight.lock_timeout passed).",
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE %s", strings.Join(lookupCols, ", "), Table, g.match("", ":"))}
}

// begin starts the row-lock claim's transaction (idempotency.claim.mechanism
// row-lock-serializable, Brandur Leach's design): make it SERIALIZABLE,
// then LockKey reads the key's row under a lock. No row: Claim inserts it
// in the same transaction. A row: the caller lost and branches on it as
// on Lookup's, still holding the lock, so a takeover cannot race it.
func (g *gen) begin() Statement {
	return Statement{Name: g.d.locked.begin, Kind: KindExec,
		Doc: []string{
			"Begin the row-lock claim's transaction as SERIALIZABLE (idempotency.claim.mechanism row-lock-serializable).",
			g.d.locked.doc,
			"On " + g.d.locked.retryOn + " anywhere in the transaction, roll back and run it again from here.",
		},
		SQL: g.d.locked.sql}
}

func (g *gen) lockKey() Statement {
	return Statement{Name: LockKey, Kind: KindOne, Columns: lookupCols,
		Doc: []string{
			"Read the key's row and hold it locked until the transaction ends. No row: this caller claims with Claim in the same",
			"transaction. A row: branch on it as on Lookup's (replay, in-flight conflict, or Takeover once the lease expired).",
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE %s%s", strings.Join(lookupCols, ", "), Table, g.match("", ":"), g.d.locked.forUpdate)}
}

// claimLookup is the claim and, for a loser, the lookup in one round
// trip: a replay then costs one statement instead of two. The SELECT
// reads the snapshot the statement started with, so a row committed by a
// rival after it began is not there: won false with NULL columns, and the
// caller falls back to Lookup.
func (g *gen) claimLookup() Statement {
	return Statement{Name: ClaimLookup, Kind: KindOne, Columns: append([]string{"won"}, lookupCols...),
		Doc: []string{
			"Claim, and for a loser the row it lost to, in one round trip (the Claim insert, then Lookup's columns).",
			"won true: this caller holds token 1, the other columns are NULL. won false: the key exists and the",
			"columns are its row, or NULL when it was committed after this statement began (read it with Lookup).",
			g.mechanism(),
		},
		SQL: fmt.Sprintf("WITH claimed AS (\n%s\nON CONFLICT (%s) DO NOTHING\nRETURNING fence)\nSELECT EXISTS (SELECT 1 FROM claimed) AS won, %s\nFROM (SELECT 1) AS one\nLEFT JOIN %s AS k ON %s",
			g.insert(), g.keyList, strings.Join(prefixed("k", lookupCols), ", "), Table, g.match("k.", ":"))}
}

// batchInput and batchInsert are shared by the batched claims: they take
// one array per column with one element per key, in the order of the key
// columns (the caller sorts them, so that two batches claiming the same
// keys wait on each other in one order and cannot deadlock).
func (g *gen) batchInput() string {
	cols := append(slices.Clone(g.keyCols), "operation", "fingerprint", "request_body", targetColumn, "recovery_point", "now")
	arrays := make([]string, len(cols))
	for i, col := range cols {
		arrays[i] = ":batch_" + col
	}
	return fmt.Sprintf("WITH input AS (\n  SELECT * FROM unnest(%s) WITH ORDINALITY AS i(%s, ord)\n)",
		strings.Join(arrays, ", "), strings.Join(cols, ", "))
}

func (g *gen) batchInsert() string {
	cols := g.insertCols()
	return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s\nFROM input AS i\nORDER BY i.ord\nON CONFLICT (%s) DO NOTHING\nRETURNING %s",
		Table, strings.Join(cols, ", "), strings.Join(claimValues(cols, "i."), ", "), g.keyList, g.keyList)
}

// claimLookupBatch is ClaimLookup for several keys at once: a service
// under load sends the claims that arrive while one is in flight as one
// statement, one round trip and one commit, instead of one each.
func (g *gen) claimLookupBatch() Statement {
	return Statement{Name: ClaimLookupBatch, Kind: KindMany, Columns: append([]string{"ord", "won"}, lookupCols...),
		Doc: []string{
			"ClaimLookup for several keys in one statement, one round trip and one commit: the claims that arrive while",
			"another is in flight travel together. Each parameter is an array with one element per key, sorted by the key",
			"columns so that batches claiming the same keys lock them in one order. One row per key, in that order (ord from 1),",
			"with won and the row it lost to as ClaimLookup returns them.",
			g.mechanism(),
		},
		SQL: fmt.Sprintf("%s, claimed AS (\n%s)\n"+
			"SELECT i.ord, c.idempotency_key IS NOT NULL AS won, %s\nFROM input AS i\nLEFT JOIN claimed AS c ON %s\n"+
			"LEFT JOIN LATERAL (\n  SELECT * FROM %s AS k\n  WHERE c.idempotency_key IS NULL AND %s\n  LIMIT 1) AS k ON true\nORDER BY i.ord",
			g.batchInput(), g.batchInsert(), strings.Join(prefixed("k", lookupCols), ", "), g.match("c.", "i."), Table, g.match("k.", "i."))}
}

// claimBatch is Claim for several keys at once, the statement the
// middleware sends under load: the insert alone, returning the keys this
// batch won; a loser reads its row with Lookup afterwards. It does not
// read the losers' rows as ClaimLookupBatch does: that costs every winner
// database CPU to save a round trip only retries and concurrent
// duplicates need (BENCHMARKS.md, "Claims without the lookup").
func (g *gen) claimBatch() Statement {
	return Statement{Name: ClaimBatch, Kind: KindMany, Columns: slices.Clone(g.keyCols),
		Doc: []string{
			"Claim for several keys in one statement, one round trip and one commit: the claims that arrive while another",
			"is in flight travel together. Each parameter is an array with one element per key, sorted by the key columns",
			"so that batches claiming the same keys lock them in one order. Returns the keys this caller won, token 1 each;",
			"a key it did not return exists already (read it with Lookup).",
			g.mechanism(),
		},
		SQL: g.batchInput() + "\n" + g.batchInsert()}
}

func (g *gen) takeover() Statement {
	return Statement{Name: Takeover, Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Take over an abandoned claim: only while it is in flight, its lease older than idempotency.in_flight.lock_timeout (%s),", textOr(g.idem.InFlight, "none")),
			"and still under the token the caller read (so of two takers exactly one wins). The new token is that token + 1.",
			"idempotency.in_flight.takeover " + takeoverMode(g.idem.InFlight) + ".",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET fence = fence + 1, locked_at = :now\nWHERE %s\n  AND fence = :fence AND response_status IS NULL\n  AND locked_at <= :now - %d",
			Table, g.match("", ":"), g.lockTimeout)}
}

// fenced selects the key's row while it is in flight under the caller's
// token.
func (g *gen) fenced() string {
	return g.match("", ":") + "\n  AND fence = :fence AND response_status IS NULL"
}

func (g *gen) checkpoint() Statement {
	return Statement{Name: Checkpoint, Kind: KindExecRows,
		Doc: []string{
			"Record a recovery point (endpoints[].recovery_points) and the downstream keys chosen for",
			"external calls (endpoints[].external_calls), renewing the lease. Fenced: 0 rows means",
			"another worker took the key over and this one must stop.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET recovery_point = :recovery_point, downstream_keys = :downstream_keys, locked_at = :now\nWHERE %s", Table, g.fenced())}
}

func (g *gen) complete() Statement {
	return Statement{Name: Complete, Kind: KindExecRows,
		Doc: []string{
			"Store the response verbatim (idempotency.stored_response " + string(g.idem.StoredResponse) + ", idempotency.stored_failures " + orUndecided(string(g.idem.StoredFailures)) + ")",
			"and end the lease. Fenced: 0 rows means this worker lost the key and its response is not stored.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET response_status = :response_status, response_headers = :response_headers, response_body = :response_body,\n"+
			"    recovery_point = :recovery_point, locked_at = NULL, completed_at = :now\nWHERE %s", Table, g.fenced())}
}

// orAbort is st (Checkpoint or Complete) for a pipeline: the handler's
// writes and the fenced write travel in one round trip and commit
// together at its end, so a lost fence must abort them; 0 rows cannot.
// Dividing by the count of rows updated fails the statement, and with it
// the pipeline's implicit transaction, when the fence was lost.
func (g *gen) orAbort(st Statement, name StatementName, field string) Statement {
	return Statement{Name: name, Kind: KindOne, Columns: []string{"held"},
		Doc: []string{
			st.Name.String() + ", sent in one pipeline after the handler's own writes so that both commit together (" + field + ").",
			"Fenced like " + st.Name.String() + ", but a lost fence fails the statement (division by zero, SQLSTATE 22012) so that the",
			"pipeline's transaction, the handler's writes with it, rolls back instead of committing without the key.",
		},
		SQL: fmt.Sprintf("WITH fenced AS (\n%s\nRETURNING fence)\nSELECT 1 / count(*) AS held FROM fenced", st.SQL)}
}

func (g *gen) release() Statement {
	return Statement{Name: Release, Kind: KindExecRows,
		Doc: []string{
			"End the lease without a stored response, keeping the recovery point, so the next retry",
			"takes over at once and resumes (idempotency.stored_failures reattempt; a handler that gave up). Fenced.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET locked_at = 0\nWHERE %s", Table, g.fenced())}
}

func (g *gen) expire() Statement {
	return Statement{Name: Expire, Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Forget a completed key older than idempotency.replay_window (%s), so its reuse is a new request", g.idem.ReplayWindow.Text),
			"(idempotency.after_window " + string(g.idem.AfterWindow) + "). Matches the token read, so a fresh claim is never deleted.",
		},
		SQL: fmt.Sprintf("DELETE FROM %s\nWHERE %s\n  AND fence = :fence AND response_status IS NOT NULL\n  AND created_at <= :now - %d",
			Table, g.match("", ":"), g.idem.ReplayWindow.D.Microseconds())}
}

func (g *gen) reap() Statement {
	reaper, field, text := g.idem.ReaperAfter.D, "idempotency.reaper_after", g.idem.ReaperAfter.Text
	if g.idem.ReaperAfter.IsZero() {
		reaper, field, text = g.idem.ReplayWindow.D, "idempotency.replay_window (no reaper_after)", g.idem.ReplayWindow.Text
	}
	cut := fmt.Sprintf("created_at <= :now - %d", reaper.Microseconds())
	sql := fmt.Sprintf("DELETE FROM %s\nWHERE (%s) IN (\n  SELECT %s FROM %s\n  WHERE %s\n  ORDER BY created_at\n  LIMIT :limit)", Table, g.keyList, g.keyList, Table, cut)
	if g.d.boundedDelete == deleteOrderLimit {
		sql = fmt.Sprintf("DELETE FROM %s\nWHERE %s\nORDER BY created_at\nLIMIT :limit", Table, cut)
	}
	return Statement{Name: Reap, Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Delete keys older than %s (%s), at most :limit per run; run it until it deletes none.", field, text),
			fmt.Sprintf("idempotency.recovery.reaper %t.", g.idem.Recovery.Reaper),
		},
		SQL: sql}
}

func (g *gen) stale() Statement {
	cols := append(slices.Clone(g.keyCols), "operation", "fence", "recovery_point")
	return Statement{Name: Stale, Kind: KindMany, Columns: cols,
		Doc: []string{
			fmt.Sprintf("Abandoned in-flight keys, lease older than idempotency.in_flight.lock_timeout (%s), oldest first,", textOr(g.idem.InFlight, "none")),
			fmt.Sprintf("for the completer (idempotency.recovery.completer %t) to take over and finish.", g.idem.Recovery.Completer),
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE response_status IS NULL AND locked_at <= :now - %d\nORDER BY locked_at\nLIMIT :limit",
			strings.Join(cols, ", "), Table, g.lockTimeout)}
}

var namedParam = regexp.MustCompile(`:[a-z_]+`)

// bind replaces the :name parameters with the dialect's placeholders and
// lists the names in order.
func (g *gen) bind(sql string) (string, []string) {
	var params []string
	out := namedParam.ReplaceAllStringFunc(sql, func(m string) string {
		params = append(params, m[1:])
		return g.d.placeholders.mark(len(params)) + g.d.casts[m[1:]]
	})
	return out, params
}
