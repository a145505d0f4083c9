// Package dbtest gives each test a fresh, isolated key store: a SQLite file
// in the test's temporary folder, a PostgreSQL schema or a MariaDB/MySQL
// database on the servers named by RETRYSPEC_TEST_POSTGRES and
// RETRYSPEC_TEST_MYSQL (.ci/with-databases starts both on loopback and sets
// them). A store whose variable is unset is missing: the test skips loudly
// on a developer's machine and fails on CI (internal/testenv).
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/storage"
)

// Names are the stores every store test runs on.
var Names = []string{"sqlite", "postgres", "mysql"}

// Env names the variable holding each server's URL.
var Env = map[string]string{"postgres": "RETRYSPEC_TEST_POSTGRES", "mysql": "RETRYSPEC_TEST_MYSQL"}

// Fresh returns the URL of an empty store of kind name, dropped when the
// test ends.
func Fresh(t testing.TB, name string, getenv func(string) string) string {
	t.Helper()
	if name == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "keys.db")
	}
	base := getenv(Env[name])
	if base == "" {
		t.Logf("set %s to a %s server's URL, or run the tests under .ci/with-databases", Env[name], name)
		testenv.Missing(t, name)
	}
	id := "rs_" + randomHex(6)
	switch name {
	case "postgres":
		db := open(t, "pgx", base)
		exec(t, db, "CREATE SCHEMA "+id)
		t.Cleanup(func() { exec(t, db, "DROP SCHEMA "+id+" CASCADE"); db.Close() })
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", id)
		// .ci/with-databases runs PostgreSQL with synchronous_commit and
		// fsync off for speed: the tests opt in by name (stores.Open
		// refuses such a server otherwise).
		q.Set(stores.AcceptAsyncCommit, "accept")
		u.RawQuery = q.Encode()
		return u.String()
	case "mysql":
		driver, dsn, _, err := stores.DSN(base)
		if err != nil {
			t.Fatal(err)
		}
		db := open(t, driver, dsn)
		exec(t, db, "CREATE DATABASE "+id)
		t.Cleanup(func() { exec(t, db, "DROP DATABASE "+id); db.Close() })
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + id
		// innodb_flush_log_at_trx_commit = 0 under .ci/with-databases.
		q := u.Query()
		q.Set(stores.AcceptAsyncCommit, "accept")
		u.RawQuery = q.Encode()
		return u.String()
	}
	t.Fatalf("dbtest: unknown store %q", name)
	return ""
}

func open(t testing.TB, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("dbtest: %s server unreachable: %v", driver, err)
	}
	return db
}

func exec(t testing.TB, db *sql.DB, stmt string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("dbtest: %s: %v", strings.Fields(stmt)[0], err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EffectsTable creates a handler's own table in s, for the tests of a
// handler's writes committed with its key: insert is the Write of one row,
// count reads how many rows an id has.
func EffectsTable(t *testing.T, s *stores.SQLStore) (insert func(id string) idempotency.Write, count func(id string) int) {
	t.Helper()
	if _, err := s.DB().Exec(`CREATE TABLE effects (id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	q := storage.Rebind(s.Schema().Dialect, "INSERT INTO effects (id, amount) VALUES (?, ?)")
	sel := storage.Rebind(s.Schema().Dialect, "SELECT count(*) FROM effects WHERE id = ?")
	insert = func(id string) idempotency.Write { return idempotency.Write{SQL: q, Args: []any{id, 1000}} }
	count = func(id string) int {
		t.Helper()
		var n int
		if err := s.DB().QueryRow(sel, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return insert, count
}
