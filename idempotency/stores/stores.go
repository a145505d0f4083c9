// Package stores opens an idempotency.SQLStore from a URL, with the
// database driver each dialect needs: PostgreSQL through pgx v5, MySQL and
// MariaDB through go-sql-driver/mysql, SQLite through modernc.org/sqlite
// (pure Go, no cgo). It is apart from package idempotency so a service
// links only this package's drivers when it asks for them.
package stores

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
)

// Open connects to the store named by rawURL and checks its key table:
//
//	sqlite:FILE (or sqlite://FILE)     a SQLite file, created when missing
//	postgres://user:pass@host:port/db  PostgreSQL (postgresql:// too)
//	mysql://user:pass@host:port/db     MySQL or MariaDB
//
// With migrate, the key table is created when missing. The error names what
// is wrong (an unreachable server, a missing table or column); nothing is
// served until Open succeeds.
func Open(ctx context.Context, rawURL string, c *contract.Contract, migrate bool) (*idempotency.SQLStore, error) {
	driver, dsn, dialect, err := DSN(rawURL)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("idempotency: opening %s: %w", redact(rawURL), err)
	}
	if dialect == "sqlite" {
		// One writer at a time is SQLite's model; a single connection
		// queues writers in Go instead of failing them with SQLITE_BUSY.
		db.SetMaxOpenConns(1)
	} else {
		db.SetMaxOpenConns(64)
		db.SetMaxIdleConns(64)
	}
	// An unreachable host must be an error at start-up, not a hang.
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	s, err := idempotency.NewSQLStore(ctx, db, dialect, c, migrate)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%w (store %s)", err, redact(rawURL))
	}
	return s, nil
}

// StartTimeout bounds connecting to the store and checking its table.
const StartTimeout = 30 * time.Second

// DSN turns a store URL into a database/sql driver name, its data source
// name and the storage dialect.
func DSN(rawURL string) (driver, dsn, dialect string, err error) {
	switch {
	case strings.HasPrefix(rawURL, "sqlite:"):
		file := strings.TrimPrefix(strings.TrimPrefix(rawURL, "sqlite:"), "//")
		if file == "" {
			return "", "", "", errors.New("idempotency: sqlite: needs a file name, as in sqlite:payouts.db")
		}
		return "sqlite", "file:" + file + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate", "sqlite", nil
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		return "pgx", rawURL, "postgres", nil
	case strings.HasPrefix(rawURL, "mysql://"):
		u, err := url.Parse(rawURL)
		if err != nil {
			return "", "", "", fmt.Errorf("idempotency: bad mysql URL: %w", err)
		}
		cfg := mysql.NewConfig()
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		cfg.Net = "tcp"
		cfg.Addr = u.Host
		if strings.HasPrefix(u.Host, "unix(") || u.Query().Get("socket") != "" {
			cfg.Net, cfg.Addr = "unix", u.Query().Get("socket")
		}
		cfg.DBName = strings.TrimPrefix(u.Path, "/")
		// Rows matched, not rows changed: a fenced update that matched its
		// row is not a lost fence because its values did not change.
		cfg.ClientFoundRows = true
		cfg.Timeout = StartTimeout
		return "mysql", cfg.FormatDSN(), "mysql", nil
	}
	//lint:ignore ST1005 the "..." stands for the rest of a URL, not a sentence's end; the message is part of the CLI's output
	return "", "", "", fmt.Errorf("idempotency: unknown store %q: use sqlite:FILE, postgres://... or mysql://...", redact(rawURL))
}

// redact hides a URL's password in messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
