package stores_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/stores"
)

// TestOpenStopsWithItsContext: a server that accepts the connection and
// never answers holds Open in its dial; cancelling Open's context ends
// it with the cancellation, not after StartTimeout. The listener is on
// loopback and speaks no protocol, so no database is needed.
func TestOpenStopsWithItsContext(t *testing.T) {
	c, err := contract.Load("../../examples/payouts/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"postgres", "mysql"} {
		t.Run(scheme, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				conn, err := ln.Accept()
				if err == nil {
					accepted <- conn
				}
			}()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				s, err := stores.Open(ctx, scheme+"://u:p@"+ln.Addr().String()+"/db?sslmode=disable", c, true)
				if s != nil {
					s.DB().Close()
				}
				done <- err
			}()
			var conn net.Conn
			select {
			case conn = <-accepted:
			case err := <-done:
				t.Fatalf("Open returned before the server answered: %v", err)
			}
			defer conn.Close()
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("Open after its context was cancelled: %v, want context.Canceled", err)
			}
		})
	}
}
