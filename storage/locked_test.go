package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/storage"
)

const lockedContract = `retryspec: 1
api: { name: T, base_url: https://api.t.example }
idempotency:
  claim: { store: postgres, mechanism: row-lock-serializable }
  in_flight: { response: conflict, lock_timeout: 2m }
endpoints:
  - { operation: POST /v1/x, effect: create, key: required, external_calls: [bank], recovery_points: [started, bank_done], max_duration: 30s }
`

// TestRowLockClaimOnRealDatabases runs the generated row-lock claim
// (idempotency.claim.mechanism row-lock-serializable) on each real database:
// several callers claim one key at once, each in its own transaction begun
// by the generated statement, reading the key with LockKey and inserting it
// with Claim when absent, and running the whole transaction again on the
// dialect's serialization failure. Exactly one wins, every other ends by
// reading the winner's row, and on PostgreSQL and MariaDB the callers that
// all read "absent" first are refused by the database and retried (the
// SERIALIZABLE path, not a unique-constraint error, picks the winner).
func TestRowLockClaimOnRealDatabases(t *testing.T) {
	c, err := contract.Parse("t.yaml", []byte(lockedContract))
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range storage.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			driver, dsn, _, err := stores.DSN(dbtest.Fresh(t, string(dialect), os.Getenv))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s, err := storage.Generate(c, dialect)
			if err != nil {
				t.Fatal(err)
			}
			for _, ddl := range s.DDL {
				if _, err := db.Exec(ddl); err != nil {
					t.Fatalf("%s: %v", ddl, err)
				}
			}
			const callers = 4
			var (
				mu                  sync.Mutex
				won, lost, refusals int
				arrived             sync.WaitGroup
			)
			arrived.Add(callers)
			var wg sync.WaitGroup
			for i := 0; i < callers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					once := sync.OnceFunc(arrived.Done)
					defer once()
					for attempt := 0; attempt < 20; attempt++ {
						// SQLite's BEGIN IMMEDIATE makes the second caller
						// wait for the first's commit: no rendezvous there.
						rendezvous := func() {}
						if dialect != storage.SQLite && attempt == 0 {
							rendezvous = func() { once(); arrived.Wait() }
						}
						outcome, err := claimLocked(t, db, s, rendezvous)
						mu.Lock()
						switch {
						case err == nil && outcome:
							won++
						case err == nil:
							lost++
						case serializationFailure(err):
							refusals++
						default:
							t.Errorf("claim: %v", err)
						}
						mu.Unlock()
						if err == nil || !serializationFailure(err) {
							return
						}
					}
					t.Error("a caller was refused 20 times")
				}()
			}
			wg.Wait()
			if won != 1 || lost != callers-1 {
				t.Errorf("won %d, lost %d; want 1 and %d", won, lost, callers-1)
			}
			if dialect != storage.SQLite && refusals == 0 {
				t.Errorf("no caller was refused with a serialization failure: the locked read did not serialize the claims")
			}
			t.Logf("%s: %d refusals retried", dialect, refusals)
		})
	}
}

// claimLocked runs one claim transaction from the generated statements and
// reports whether this caller won. rendezvous runs after LockKey found no row.
func claimLocked(t *testing.T, db *sql.DB, s *storage.Schema, rendezvous func()) (bool, error) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	stmt := func(name storage.StatementName) storage.Statement {
		st, ok := s.Statement(name)
		if !ok {
			t.Fatalf("no %s statement", name)
		}
		return st
	}
	var begin []string
	switch s.Dialect {
	case storage.Postgres:
		begin = []string{"BEGIN", stmt(storage.SetSerializable).SQL}
	case storage.MySQL:
		begin = []string{stmt(storage.SetSerializable).SQL, "START TRANSACTION"}
	case storage.SQLite:
		begin = []string{stmt(storage.BeginImmediate).SQL}
	default:
		t.Fatalf("no transaction start for %s", s.Dialect)
	}
	for _, b := range begin {
		if _, err := conn.ExecContext(ctx, b); err != nil {
			return false, err
		}
	}
	won, err := func() (bool, error) {
		if s.Dialect == storage.Postgres {
			var level string
			if err := conn.QueryRowContext(ctx, "SHOW transaction_isolation").Scan(&level); err != nil || level != "serializable" {
				t.Errorf("isolation %q (%v), want serializable", level, err)
			}
		}
		values := map[string]any{"account_id": "acct", "idempotency_key": "k1", "operation": "POST /v1/x", "fingerprint": "f",
			"request_body": []byte("{}"), "now": int64(1_000_000), "recovery_point": "started", "downstream_keys": "{}"}
		args := func(st storage.Statement) []any {
			var out []any
			for _, p := range st.Params {
				out = append(out, values[p])
			}
			return out
		}
		lock := stmt(storage.LockKey)
		rows, err := conn.QueryContext(ctx, lock.SQL, args(lock)...)
		if err != nil {
			return false, err
		}
		found := rows.Next()
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return false, err
		}
		if found {
			return false, nil
		}
		rendezvous()
		claim := stmt(storage.Claim)
		if claim.Kind == storage.KindExecRows {
			res, err := conn.ExecContext(ctx, claim.SQL, args(claim)...)
			if err != nil {
				return false, err
			}
			n, err := res.RowsAffected()
			return n == 1, err
		}
		var fence int64
		err = conn.QueryRowContext(ctx, claim.SQL, args(claim)...).Scan(&fence)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return err == nil && fence == 1, err
	}()
	if err != nil {
		_, rbErr := conn.ExecContext(ctx, "ROLLBACK")
		return false, errors.Join(err, rbErr)
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return won, err
}

// serializationFailure reports the errors after which the generated
// statements' documentation says to run the transaction again.
func serializationFailure(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "40001" || pg.Code == "40P01"
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1213 || my.Number == 1205
	}
	return strings.Contains(err.Error(), "SQLITE_BUSY")
}
