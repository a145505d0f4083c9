package contract

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestClientGaps: verify client judges a body key and a first-sent window
// (client/same-key at key_field, client/first-sent), so ClientGaps names
// neither; a result header is the server's to send; only a GraphQL contract
// is refused.
func TestClientGaps(t *testing.T) {
	for _, tt := range []struct {
		name string
		text func(t *testing.T) string
		// sets is the field the row is about, checked so the row cannot
		// pass because the example dropped it.
		sets func(Idempotency) bool
		want []string
	}{
		{"square-payments (key_in: body)", example("square-payments"), Idempotency.InBody, nil},
		{"azure-email (first_sent, result_header)", example("azure-email"), func(id Idempotency) bool { return id.FirstSent.Set() && id.ResultHeader.Set() }, nil},
		{"payouts (a header key)", example("payouts"), func(id Idempotency) bool { return id.KeyIn != KeyInBody }, nil},
		{"graphql mutation", graphqlMutation, Idempotency.InGraphQL, []string{gapGraphQL}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("retryspec.yaml", []byte(tt.text(t)))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.sets(c.Idempotency) {
				t.Fatal("the contract no longer sets the field this row is about")
			}
			if got := c.ClientGaps(); !slices.Equal(got, tt.want) {
				t.Errorf("ClientGaps() = %q, want %q", got, tt.want)
			}
		})
	}
}

// example is the text of examples/NAME/retryspec.yaml.
func example(name string) func(t *testing.T) string {
	return func(t *testing.T) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}
