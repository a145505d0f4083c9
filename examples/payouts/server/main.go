// Command server is the reference payouts API: a small, real service on the
// idempotency middleware, keeping examples/payouts/retryspec.yaml. It is the
// server `retryspec verify` is tested against, and --flaw switches in one
// classic mistake so each verify gate can be shown to catch its flaw.
//
//	go run ./examples/payouts/server --addr 127.0.0.1:8080 --store sqlite:payouts.db
//
// Endpoints: POST /v1/transfers (keyed; calls charge_bank then send_receipt),
// GET /v1/transfers?idempotency_key=K (how many transfers that key made for
// the caller), GET /healthz, GET /metrics (Prometheus text).
//
// With --contract FILE naming another contract (one without POST
// /v1/transfers, such as examples/square-payments/retryspec.yaml or
// examples/azure-email/retryspec.yaml), every keyed endpoint of it is
// served by a generic handler that records one effect and makes the
// endpoint's external calls, and GET /effects?idempotency_key=K counts the
// caller's effects (effects.go).
//
// The caller is the bearer token: `Authorization: Bearer acct_1` is account
// acct_1 (a demo, so any token is an account). External calls go to
// $RETRYSPEC_EXTERNAL_URL/<call name> as verify's stub expects; without it
// they go to an in-process simulated provider.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/examples/payouts"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr, os.Getenv))
}

type config struct {
	addr, store, contractFile, flaw string
	migrate                         bool
	jobsEvery                       time.Duration
}

func run(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) int {
	cfg, ok := parseFlags(args, stderr)
	if !ok {
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	app, err := newApp(ctx, cfg, getenv("RETRYSPEC_EXTERNAL_URL"), log)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	defer app.close()
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: app.routes(), ReadHeaderTimeout: 10 * time.Second}
	go app.jobs(ctx, cfg.jobsEvery)
	go func() {
		<-ctx.Done()
		// ctx has ended (the signal): the requests in flight get a grace
		// period of their own to finish and store their responses.
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	log.Info("serving", "addr", ln.Addr().String(), "store", storeKind(cfg.store), "flaw", cfg.flaw)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line; ok=false: the error is on stderr.
func parseFlags(args []string, stderr io.Writer) (cfg config, ok bool) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen `ADDRESS` (loopback by default)")
	fs.StringVar(&cfg.store, "store", "sqlite:payouts.db", "key store `URL`: sqlite:FILE, postgres://... or mysql://...")
	fs.StringVar(&cfg.contractFile, "contract", "", "contract `FILE` (default: the embedded examples/payouts/retryspec.yaml)")
	fs.StringVar(&cfg.flaw, "flaw", "", "switch in one mistake, for verify's tests: "+flawNames())
	fs.BoolVar(&cfg.migrate, "migrate", true, "create the key and transfer tables when missing")
	fs.DurationVar(&cfg.jobsEvery, "jobs-every", 30*time.Second, "how often the completer and reaper run (0: never)")
	if err := fs.Parse(args); err != nil {
		return cfg, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "server: unexpected argument %q\n", fs.Arg(0))
		return cfg, false
	}
	return cfg, true
}

func storeKind(u string) string {
	if i := strings.Index(u, ":"); i > 0 {
		return u[:i]
	}
	return u
}

func loadContract(file string) (*contract.Contract, error) {
	if file == "" {
		return contract.Parse("examples/payouts/retryspec.yaml", payouts.Contract)
	}
	return contract.Load(file)
}
