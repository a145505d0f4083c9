package snippets

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/testenv"
)

func loadExample(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGolden pins every language's snippet of each example contract:
// payouts, three APIs that are not payouts (email, inventory, and
// Square's payments, whose key travels in the JSON body), whose snippets
// send their own example request to their own path; and payouts under
// in_flight.response: accepted, whose snippets poll the in-flight 202 with
// the same key instead of taking it for the result; and Azure's email,
// whose snippets stamp the first-sent time once and send it on every
// attempt (idempotency.first_sent); and Shopify's inventory mutations
// (snippets/testdata, a GraphQL contract), whose snippets POST the
// mutation document built from the example with the key as its variable.
func TestGolden(t *testing.T) {
	for _, name := range []string{"payouts", "email", "inventory", "square-payments", "payouts-accepted", "azure-email", "shopify-inventory"} {
		example, accepted := strings.CutSuffix(name, "-accepted")
		c, err := contract.Load(examplePath(t, example))
		if err != nil {
			t.Fatal(err)
		}
		if accepted {
			c.Idempotency.InFlight.Response = contract.InFlightAccepted
		}
		ep, _ := c.FirstRequiredKeyEndpoint()
		body, stated := ep.ExampleBody()
		for _, l := range Languages() {
			t.Run(name+"/"+l.Name, func(t *testing.T) {
				got, err := Render(c, l.Name)
				if err != nil {
					t.Fatal(err)
				}
				if c.Idempotency.InGraphQL() {
					// The example is the mutation's arguments, sent in
					// its document: the policy's body is that request.
					p, _ := NewPolicy(c)
					body = p.Body
				}
				if lit := literals[l.literal].literal(body, l.quote); !stated || !bytes.Contains(got, []byte(lit)) {
					t.Errorf("the snippet does not send the contract's example %s", body)
				}
				golden.Check(t, filepath.Join("testdata", "golden", name, l.FileName), got)
			})
		}
	}
}

// examplePath is the fixture testdata/NAME/retryspec.yaml when there is
// one (a contract pinned here, apart from the example of the same name
// that may go on changing), else examples/NAME/retryspec.yaml.
func examplePath(t *testing.T, name string) string {
	t.Helper()
	fixture := filepath.Join("testdata", name, "retryspec.yaml")
	if _, err := os.Stat(fixture); err == nil {
		return fixture
	}
	return filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml")
}

func TestRenderIsDeterministic(t *testing.T) {
	c := loadExample(t)
	for _, l := range Languages() {
		a, _ := Render(c, l.Name)
		b, _ := Render(c, l.Name)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renders differ", l.Name)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	c := loadExample(t)
	if _, err := Render(c, "cobol"); err == nil || !strings.Contains(err.Error(), "unknown snippet language") {
		t.Errorf("unknown language: err = %v", err)
	}
	tests := []struct {
		name   string
		mutate func(c *contract.Contract)
		want   string
	}{
		{"no keyed endpoint", func(c *contract.Contract) {
			for i := range c.Endpoints {
				c.Endpoints[i].Key = "none"
			}
		}, "no endpoint takes an idempotency key"},
		{"any status", func(c *contract.Contract) { c.Retry.AnyStatus = true }, "explicit allowlist"},
		{"unbounded", func(c *contract.Contract) { c.Retry.MaxElapsed = contract.Duration{} }, "max_elapsed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := *loadExample(t)
			tt.mutate(&cc)
			_, err := Render(&cc, "python")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestPolicy(t *testing.T) {
	c := loadExample(t)
	p, err := NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{
		APIName: "Lumapay", BaseURL: "https://api.lumapay.example",
		Method: "POST", Operation: "POST /v1/transfers", Path: "/v1/transfers",
		Body: contract.JSONValue{Kind: contract.JSONObject, Members: []contract.JSONMember{
			{Name: "amount", Value: contract.JSONValue{Kind: contract.JSONNumber, Text: "1000"}},
			{Name: "currency", Value: contract.JSONValue{Kind: contract.JSONString, Text: "usd"}},
		}},
		Header: "Idempotency-Key", MaxKeyLength: 255,
		Statuses: []int{429, 502, 503, 504}, Cautious: []int{500}, RetryAfterStatuses: []int{429, 503},
		InFlight: true, InFlightStatus: 409, InFlightCode: "concurrent_idempotent_requests",
		MismatchStatus: 409, MismatchCode: "invalid_idempotent_request",
		RetryTimeout: true, RetryReset: true, RetryRefused: true,
		Jitter: "full", Base: time.Second, Cap: 30 * time.Second, Multiplier: 2,
		MaxAttempts: 3, MaxElapsed: 60 * time.Second, AttemptTimeout: 2 * time.Second,
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	// A 4xx other than 429 is never retried, even when the contract lists it.
	cc := *c
	cc.Retry.Statuses = []contract.StatusSpec{{Code: 409}, {Code: 429}, {Code: 4, Class: true}, {Code: 503}}
	cc.Retry.CautiousStatuses = []int{400, 500}
	p2, err := NewPolicy(&cc)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(p2.Statuses, []int{429, 503}) || len(p2.StatusClasses) != 0 || !cmp.Equal(p2.Cautious, []int{500}) {
		t.Errorf("client errors kept: statuses %v classes %v cautious %v", p2.Statuses, p2.StatusClasses, p2.Cautious)
	}
	// Without an example the snippet sends the neutral placeholder.
	nc := *c
	nc.Endpoints = slices.Clone(c.Endpoints)
	nc.Endpoints[0].Example = nil
	if p3, err := NewPolicy(&nc); err != nil || !p3.BodyPlaceholder || p3.Body.String() != "{}" {
		t.Errorf("no example: body %s, placeholder %v, err %v", p3.Body, p3.BodyPlaceholder, err)
	}
	ep := contract.Endpoint{Path: "/v1/orders/{id}/lines/{line}"}
	if got := ep.ExamplePath(); got != "/v1/orders/example_id/lines/example_line" {
		t.Errorf("ExamplePath without an example = %q", got)
	}
	ep.Example = &contract.ExampleRequest{Path: map[string]string{"line": "ln_7"}}
	if got := ep.ExamplePath(); got != "/v1/orders/example_id/lines/ln_7" {
		t.Errorf("ExamplePath with the contract's line = %q", got)
	}
}

// hostile is a policy whose every string tries to break out of its literal.
func hostile(jitter string, sf bool) Policy {
	evil := `x"'` + "`" + `\$(id)${HOME}#{exit}` + "\n*/ -- \u2028\x01"
	return Policy{
		APIName: evil, BaseURL: "http://127.0.0.1:1/" + evil, Method: "POST" + evil,
		Operation: evil, Path: "/p" + evil, Header: "X-" + evil, SFString: sf,
		FirstSentHeader: "X-Sent-" + evil, TooOldStatus: 412,
		Statuses: []int{429, 503}, StatusClasses: []int{5}, Cautious: []int{500},
		RetryAfterStatuses: []int{429, 503},
		InFlight:           true, InFlightStatus: 409, InFlightCode: evil, MismatchStatus: 409, MismatchCode: evil,
		RetryTimeout: true, RetryReset: true, Jitter: jitter,
		Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond, Multiplier: 1.5,
		MaxAttempts: 2, MaxElapsed: time.Second, AttemptTimeout: 500 * time.Millisecond,
		Body: hostileBody(evil),
	}
}

// hostileBody is an example body whose member names and strings are
// evil, with every kind of JSON value, empty containers included.
func hostileBody(evil string) contract.JSONValue {
	q := contract.JSONQuote(evil)
	v, err := contract.ParseExampleBody([]byte(`{` + q + `: ` + q + `, "amount": -1.5e3, "max": 9007199254740991, "class": null,` +
		`"list": [true, false, null, {}, [], {"x-y": [1, ` + q + `]}], "if": {"end": {}}}`))
	if err != nil {
		panic(err)
	}
	return v
}

// syntaxCheck asks each language's own tooling whether src parses.
func syntaxCheck(t *testing.T, l Language, src []byte) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, l.FileName)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// The placeholders the CLI fills (cli/snippets.go snippetVars), for
	// the checks that compile against the cached jars or @types.
	cache := os.Getenv("RETRYSPEC_SNIPPETS_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "retryspec", "snippets")
	}
	expand := strings.NewReplacer("{file}", path, "{jars}", filepath.Join(cache, "jars", "*"),
		"{tsc}", filepath.Join(cache, "node_modules", ".bin", "tsc"), "{typeroots}", filepath.Join(cache, "node_modules", "@types")).Replace
	// The libraries the check compiles against: the row's file needs.
	for _, n := range l.Needs() {
		if n.Files == "" {
			continue
		}
		matches, _ := filepath.Glob(expand(n.Files))
		if !slices.ContainsFunc(matches, func(m string) bool { return strings.Contains(filepath.Base(m), n.Match) }) {
			testenv.Missing(t, n.Message(cache)+"; or run .ci/install-snippets")
		}
	}
	args := make([]string, len(l.check))
	for i, a := range l.check {
		args[i] = expand(a)
	}
	if len(args) == 0 {
		t.Fatalf("%s has no syntax check (Snippet.Check in contract.LanguageTable)", l.Name)
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		testenv.Missing(t, args[0]+" (run .ci/install-snippets)")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s does not parse: %v\n%s\n--- source ---\n%s", l.Name, err, out, src)
	}
}

// hostileGraphQL is hostile for a GraphQL contract: the document, the
// variable's name and the entries' list name try to break out too.
func hostileGraphQL(jitter string) Policy {
	p := hostile(jitter, false)
	evil := p.APIName
	p.GraphQL, p.Mutation, p.KeyVariable, p.EntriesMember = true, "m", "k"+evil, "userErrors"+evil
	p.EntryAt = []string{"data", "m", "userErrors", "0"}
	p.ErrorBody = contract.ErrorBody{CodeAt: append(slices.Clone(p.EntryAt), "code")}
	p.Body = contract.GraphQLRequest("mutation ($k: String!) { m(a: " + contract.JSONQuote(evil) + ") @idempotent(key: $k) { __typename } }" + evil)
	return p
}

// TestHostileValuesStayInLiterals renders every language and jitter
// strategy from a policy whose strings try to break out, and has each
// language's parser read the result.
func TestHostileValuesStayInLiterals(t *testing.T) {
	for _, l := range Languages() {
		for _, jitter := range []string{"full", "decorrelated", "equal", "none"} {
			t.Run(l.Name+"/"+jitter, func(t *testing.T) {
				src, err := l.render(hostile(jitter, jitter == "equal"))
				if err != nil {
					t.Fatal(err)
				}
				// A GraphQL contract's snippet on one strategy each: its
				// own branches, the loop being the same.
				if jitter == "decorrelated" {
					gsrc, err := l.render(hostileGraphQL(jitter))
					if err != nil {
						t.Fatal(err)
					}
					syntaxCheck(t, l, gsrc)
				}
				// The compiled languages take seconds per check: one
				// strategy each (the suite compiles every strategy).
				if (l.Name == "java" || l.Name == "typescript") && jitter != "decorrelated" {
					return
				}
				syntaxCheck(t, l, src)
			})
		}
	}
}

func TestLanguagesFor(t *testing.T) {
	c := loadExample(t)
	names := func(ls []Language) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Name)
		}
		return out
	}
	if got, want := names(LanguagesFor(c)), c.SDK.Languages; len(want) == 0 || !cmp.Equal(got, want) {
		t.Errorf("LanguagesFor(example) = %v, want its sdk.languages %v", got, want)
	}
	// Two languages in the reverse of the table's order.
	all := LanguageNames()
	reversed := []string{all[len(all)-1], all[len(all)-2]}
	cc := *c
	cc.SDK = &contract.SDK{Languages: reversed}
	if got := names(LanguagesFor(&cc)); !cmp.Equal(got, reversed) {
		t.Errorf("LanguagesFor(%v) = %v (want sdk.languages order)", reversed, got)
	}
	cc.SDK = nil
	if got := len(LanguagesFor(&cc)); got != len(Languages()) {
		t.Errorf("no sdk section: %d languages, want all %d", got, len(Languages()))
	}
}

// TestGraphQLPolicy: a GraphQL contract's policy sends the mutation
// document built from the example, the key as the variable named after
// the directive's argument, and reads conflicts from the first error
// entry of a 200 (the in-flight one retried, the mismatch not); an
// example that cannot be the mutation's arguments is refused naming
// key_in: graphql, with a fix.
func TestGraphQLPolicy(t *testing.T) {
	c, err := contract.Load(examplePath(t, "shopify-inventory"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	doc := `mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: "available", reason: "correction", quantities: [{inventoryItemId: "gid://shopify/InventoryItem/123", locationId: "gid://shopify/Location/456", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }`
	got := struct {
		GraphQL                bool
		Method, Path, Body     string
		KeyVariable, Entries   string
		EntryAt, CodeAt        []string
		InFlight               bool
		InFlightStatus         int
		InFlightCode, Mismatch string
	}{p.GraphQL, p.Method, p.Path, p.Body.String(), p.KeyVariable, p.EntriesMember, p.EntryAt, p.ErrorBody.CodeAt, p.InFlight, p.InFlightStatus, p.InFlightCode, p.MismatchCode}
	want := got
	want.GraphQL, want.Method, want.Path, want.Body = true, "POST", "/admin/api/2026-04/graphql.json", contract.GraphQLRequest(doc).String()
	want.KeyVariable, want.Entries = "idempotencyKey", "userErrors"
	want.EntryAt = []string{"data", "inventorySetQuantities", "userErrors", "0"}
	want.CodeAt = append(slices.Clone(want.EntryAt), "code")
	want.InFlight, want.InFlightStatus, want.InFlightCode, want.Mismatch = true, 200, "IDEMPOTENCY_CONCURRENT_REQUEST", "IDEMPOTENCY_KEY_PARAMETER_MISMATCH"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ body, want string }{
		{`["input"]`, "not an object of its arguments"},
		{`{"in-put": {}}`, `the member "in-put", which is not a GraphQL name`},
	} {
		cc := *c
		cc.Endpoints = slices.Clone(c.Endpoints)
		v, err := contract.ParseExampleBody([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		cc.Endpoints[0].Example = &contract.ExampleRequest{Body: &v}
		for _, l := range Languages() {
			if _, err := Render(&cc, l.Name); err == nil || !strings.Contains(err.Error(), "idempotency.key_in: graphql") || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "write the example body as the mutation's arguments") {
				t.Errorf("%s, example %s: Render = %v, want a refusal naming key_in: graphql, %q and the fix", l.Name, tt.body, err, tt.want)
			}
		}
	}
}
