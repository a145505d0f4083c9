package contract

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// graphqlMutation is testdata/graphql/mutation.yaml, a Shopify-shaped
// contract: the key in @idempotent(key:), conflicts as userErrors codes in
// a 200. The render, snippets and openapi tests load it too.
func graphqlMutation(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGraphQLContract: a GraphQL contract loads with its mutations as POSTs
// to the GraphQL path, the key's place and the conflicts' codes as written.
func TestGraphQLContract(t *testing.T) {
	c, err := Parse("retryspec.yaml", []byte(graphqlMutation(t)))
	if err != nil {
		t.Fatal(err)
	}
	id := c.Idempotency
	want := GraphQL{Path: "/admin/api/2026-04/graphql.json", Directive: "idempotent", Argument: "key", ErrorsIn: ErrorsInUserErrors}
	if !id.InGraphQL() || id.GraphQL != want {
		t.Errorf("graphql %+v, want %+v", id.GraphQL, want)
	}
	e := c.Endpoints[0]
	if e.Mutation != "inventorySetQuantities" || e.Method != "POST" || e.Path != want.Path || e.Operation != "mutation inventorySetQuantities" {
		t.Errorf("endpoint %+v", e)
	}
	if got := id.KeyPlace(); got != "the key argument of the @idempotent directive on the mutation" {
		t.Errorf("key place %q", got)
	}
	if got := id.GraphQL.CodeAt(e.Mutation); got != "data.inventorySetQuantities.userErrors[].code" {
		t.Errorf("code at %q", got)
	}
	if id.Conflicts.InFlight.Code != "IDEMPOTENCY_CONCURRENT_REQUEST" {
		t.Errorf("in-flight code %q", id.Conflicts.InFlight.Code)
	}
	// Every conflict arrives in a 200, never with the HTTP defaults' 409.
	for _, cf := range []Conflict{id.Conflicts.PayloadMismatch, id.Conflicts.InFlight, id.Conflicts.MissingKey, id.Conflicts.InvalidKey, id.Conflicts.Expired, id.Conflicts.TooOld} {
		if cf.Status != 0 && cf.Status != 200 {
			t.Errorf("conflict %+v: status %d, want 200", cf, cf.Status)
		}
	}
}

// TestGraphQLBadInput: the combinations that cannot work are refused at
// their position with a fix.
func TestGraphQLBadInput(t *testing.T) {
	base := graphqlMutation(t)
	for _, tt := range []struct {
		name, old, new string
		line, col      int
		message, fix   string
	}{
		{"no graphql section", "  graphql: {path: /admin/api/2026-04/graphql.json, directive: idempotent, argument: key}\n", "", 4, 11, "does not say where the mutations are sent", "add `graphql:"},
		{"graphql without key_in", "  key_in: graphql\n", "", 4, 12, "the key travels in the Idempotency-Key header", "add `key_in: graphql`"},
		{"no argument", ", argument: key}", "}", 5, 12, "needs argument", "argument: key` (the @idempotent argument"},
		{"directive with @", "directive: idempotent", "directive: \"@idempotent\"", 5, 63, "is not a GraphQL name", "without @"},
		{"path with parameter", "path: /admin/api/2026-04/graphql.json", "path: \"/{shop}/graphql\"", 5, 19, "is not a path without {parameters}", ""},
		{"errors_in typo", "argument: key}", "argument: key, errors_in: user_errors}", 5, 101, `"user_errors" is not a valid value`, `did you mean "user-errors"?`},
		{"conflict with status", "{code: IDEMPOTENCY_KEY_PARAMETER_MISMATCH}", "{status: 409, code: IDEMPOTENCY_KEY_PARAMETER_MISMATCH}", 8, 32, "reports this conflict as an error entry", "remove status"},
		{"conflict without code", "{code: IDEMPOTENCY_CONCURRENT_REQUEST}", "{code: none}", 9, 23, "without a code cannot be told", ""},
		{"operation instead of mutation", "  - mutation: inventorySetQuantities\n", "  - operation: POST /admin/api/2026-04/graphql.json\n", 11, 16, "an endpoint is a mutation", "in place of operation"},
		{"both", "  - mutation: inventorySetQuantities\n", "  - mutation: inventorySetQuantities\n    operation: POST /graphql\n", 12, 16, "has both mutation and operation", "remove operation"},
		{"mutation not a name", "mutation: inventorySetQuantities", "mutation: inventory.set", 11, 15, "is not a GraphQL name", ""},
		{"twice", "    key: required\n", "    key: required\n  - mutation: inventorySetQuantities\n    effect: replace\n", 14, 15, "is already listed at endpoints[0]", "merge"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(base, tt.old, tt.new, 1)
			if src == base {
				t.Fatal("the edit does not apply")
			}
			wantDiagnostic(t, src, tt.line, tt.col, tt.message, tt.fix)
		})
	}
	// A mutation in an HTTP contract is refused too.
	wantDiagnostic(t, minimal+"endpoints:\n  - mutation: transferCreate\n    operation: POST /v1/transfers\n    effect: create\n", 8, 15, "names a GraphQL mutation, but the key travels in the Idempotency-Key header", "set idempotency.key_in: graphql")
}

// TestGraphQLGaps: the middleware and verify client refuse a GraphQL
// contract, naming key_in: graphql (verify speaks GraphQL); an HTTP
// contract has no such gap.
func TestGraphQLGaps(t *testing.T) {
	c, err := Parse("retryspec.yaml", []byte(graphqlMutation(t)))
	if err != nil {
		t.Fatal(err)
	}
	for name, gaps := range map[string][]string{"middleware": c.MiddlewareGaps(), "client": c.ClientGaps()} {
		if !slices.Contains(gaps, gapGraphQL) {
			t.Errorf("%s gaps %v lack %q", name, gaps, gapGraphQL)
		}
	}
	h, err := Parse("retryspec.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(h.MiddlewareGaps(), gapGraphQL) || slices.Contains(h.VerifyGaps(), gapGraphQL) || slices.Contains(h.ClientGaps(), gapGraphQL) {
		t.Error("an HTTP contract has the GraphQL gap")
	}
}

// TestMutationDocument: the document puts the key variable where the
// contract says (the directive on the mutation field, or the field's own
// argument), writes the example's members as GraphQL arguments, selects
// where the conflict's code is, and leaves out arguments GraphQL cannot
// spell.
func TestMutationDocument(t *testing.T) {
	args, err := ParseExampleBody([]byte(`{"input": {"name": "a\"b", "changes": [{"delta": -5, "ok": true, "note": null}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := ParseExampleBody([]byte(`{"input": {"not-a-name": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	directive := GraphQL{Path: "/graphql", Directive: "idempotent", Argument: "key", ErrorsIn: ErrorsInUserErrors}
	argument := GraphQL{Path: "/graphql", Argument: "idempotencyKey", ErrorsIn: ErrorsInErrors}
	for _, tt := range []struct {
		name    string
		g       GraphQL
		args    JSONValue
		compact bool
		want    string
	}{
		{"directive", directive, args, false, "mutation m($idempotencyKey: String!) {\n  m(input: {name: \"a\\\"b\", changes: [{delta: -5, ok: true, note: null}]}) @idempotent(key: $idempotencyKey) {\n    userErrors {\n      code\n      message\n    }\n  }\n}\n"},
		{"directive compact", directive, PlaceholderBody, true, "mutation m($idempotencyKey: String!) { m @idempotent(key: $idempotencyKey) { userErrors { code message } } }"},
		{"field argument, errors", argument, args, true, "mutation m($idempotencyKey: String!) { m(input: {name: \"a\\\"b\", changes: [{delta: -5, ok: true, note: null}]}, idempotencyKey: $idempotencyKey) { __typename } }"},
		{"unspellable arguments left out", argument, bad, true, "mutation m($idempotencyKey: String!) { m(idempotencyKey: $idempotencyKey) { __typename } }"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.MutationDocument("m", tt.args, tt.compact); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestGraphQLReply: a conflict is reported where errors_in says, with the
// contract's code and message (DefaultMessage when it states none), and
// the default messages name the key's place, not a header.
func TestGraphQLReply(t *testing.T) {
	c, err := Parse("retryspec.yaml", []byte(graphqlMutation(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data": {"inventorySetQuantities": {"userErrors": [{"code": "IDEMPOTENCY_CONCURRENT_REQUEST", "message": "A request with this idempotency key is still being processed. Wait, then retry with the same key."}]}}}`
	if got := c.GraphQLReply(ReplyInFlight, "inventorySetQuantities").String(); got != want {
		t.Errorf("user-errors reply\n%s\nwant\n%s", got, want)
	}
	c.Idempotency.GraphQL.ErrorsIn = ErrorsInErrors
	want = `{"errors": [{"message": "This idempotency key was already used with a different request. Send the original request again, or use a new key for a new operation.", "extensions": {"code": "IDEMPOTENCY_KEY_PARAMETER_MISMATCH"}}]}`
	if got := c.GraphQLReply(ReplyPayloadMismatch, "inventorySetQuantities").String(); got != want {
		t.Errorf("errors reply\n%s\nwant\n%s", got, want)
	}
	for _, k := range []ReplyKind{ReplyMissingKey, ReplyInvalidKey} {
		if m := c.DefaultMessage(k); strings.Contains(m, "header") || !strings.Contains(m, "the key argument of the @idempotent directive on the mutation") {
			t.Errorf("default message %d: %q", k, m)
		}
	}
}
