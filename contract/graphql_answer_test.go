package contract

import (
	"slices"
	"testing"
)

// TestUnkeyedDocument: without the key the document declares no variable
// and has neither the directive nor the key argument; the arguments stay.
func TestUnkeyedDocument(t *testing.T) {
	args, err := ParseExampleBody([]byte(`{"input": {"delta": 5}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		g    GraphQL
		want string
	}{
		{"directive", GraphQL{Directive: "idempotent", Argument: "key"}, "mutation m { m(input: {delta: 5}) { userErrors { code message } } }"},
		{"field argument", GraphQL{Argument: "idempotencyKey", ErrorsIn: ErrorsInErrors}, "mutation m { m(input: {delta: 5}) { __typename } }"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.UnkeyedDocument("m", args, true); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestReadAnswer: ReadAnswer reads back the code GraphQLReply writes, for
// both places errors_in names, and tells a body with error entries from
// one without.
func TestReadAnswer(t *testing.T) {
	for _, in := range []GraphQLErrors{ErrorsInUserErrors, ErrorsInErrors} {
		c, err := Parse("retryspec.yaml", []byte(graphqlMutation(t)))
		if err != nil {
			t.Fatal(err)
		}
		c.Idempotency.GraphQL.ErrorsIn = in
		g := c.Idempotency.GraphQL
		for _, k := range []ReplyKind{ReplyPayloadMismatch, ReplyInFlight, ReplyMissingKey} {
			body := []byte(c.GraphQLReply(k, "inventorySetQuantities").String())
			a := g.ReadAnswer(body, "inventorySetQuantities")
			if want := c.Reply(k).Code; !a.HasCode(want) || !a.AnyError {
				t.Errorf("%s: ReadAnswer(%s) = %+v, want code %s", in, body, a, want)
			}
			if other := g.ReadAnswer(body, "otherMutation"); in == ErrorsInUserErrors && (other.AnyError || len(other.Codes) > 0) {
				t.Errorf("%s: another mutation's payload read as this one's: %+v", in, other)
			}
		}
	}
	g := GraphQL{ErrorsIn: ErrorsInUserErrors}
	for body, want := range map[string]GraphQLAnswer{
		`{"data": {"m": {"userErrors": []}}}`:              {},
		`{"errors": [{"message": "no directive"}]}`:        {AnyError: true},
		`{"data": {"m": {"userErrors": [{"code": "X"}]}}}`: {Codes: []string{"X"}, AnyError: true},
		`not json`: {},
		`{"data": {"m": {"userErrors": [{"code": 7}]}}, "x": 1}`: {AnyError: true},
	} {
		if got := g.ReadAnswer([]byte(body), "m"); got.AnyError != want.AnyError || !slices.Equal(got.Codes, want.Codes) {
			t.Errorf("ReadAnswer(%s) = %+v, want %+v", body, got, want)
		}
	}
}
