package idempotency_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/storage"
)

// TestStoresRunTheGoldenStatements: each store runs exactly the statements
// of storage's golden file for its dialect (one source of SQL).
func TestStoresRunTheGoldenStatements(t *testing.T) {
	c := payoutsContract(t)
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			s, err := stores.Open(context.Background(), dbtest.Fresh(t, name, os.Getenv), c, true)
			if err != nil {
				t.Fatal(err)
			}
			defer s.DB().Close()
			golden, err := os.ReadFile("../storage/testdata/payouts." + string(s.Schema().Dialect) + ".sql")
			if err != nil {
				t.Fatal(err)
			}
			want, err := storage.Parse(string(golden))
			if err != nil {
				t.Fatal(err)
			}
			var got []storage.Statement
			for _, st := range s.Schema().Statements {
				st.Columns = nil
				got = append(got, st)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the %s store runs other SQL than the golden file (-golden +store):\n%s", name, diff)
			}
		})
	}
}
