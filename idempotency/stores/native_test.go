package stores_test

import (
	"context"
	"os"
	"testing"

	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// TestNativeClientOnPostgresOnly: Open runs a PostgreSQL store's
// statements on pgx's own client, and every other store's on database/sql.
func TestNativeClientOnPostgresOnly(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			s, err := stores.Open(context.Background(), dbtest.Fresh(t, name, os.Getenv), payoutsContract(t), true)
			if err != nil {
				t.Fatal(err)
			}
			defer s.DB().Close()
			if native := stores.HasNative(s); native != (name == "postgres") {
				t.Fatalf("%s store has a native client: %v", name, native)
			}
		})
	}
}
