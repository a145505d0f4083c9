package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const errorBodyBase = "retryspec: 1\napi:\n  name: Acme\n  base_url: https://api.acme.example\n"

func TestErrorBodyLoads(t *testing.T) {
	src := errorBodyBase + "  error_body:\n    code_at: /errors/0/code\n    message_at: /errors/0/detail\n    schema_ref: \"#/components/schemas/Errors\"\nidempotency:\n  stored_failures: replay\n"
	c, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	eb := c.API.ErrorBody
	if !eb.Set() || Pointer(eb.CodeAt) != "/errors/0/code" || Pointer(eb.MessageAt) != "/errors/0/detail" || eb.SchemaRef != "#/components/schemas/Errors" || eb.CodeKey() != "code" {
		t.Errorf("got %+v", eb)
	}
	if p := c.PosOf("api.error_body.code_at"); p.Line != 6 || p.Column != 14 {
		t.Errorf("code_at at %v, want 6:14", p)
	}
	c, err = Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.API.ErrorBody.Set() {
		t.Error("error_body set without being written")
	}
}

func TestErrorBodyExample(t *testing.T) {
	tests := []struct {
		code, msg []string
		want      string
	}{
		{[]string{"error", "code"}, []string{"error", "message"}, `{"error":{"code":"c\u003cb\u003e","message":"m"}}`},
		{[]string{"name"}, []string{"message"}, `{"name":"c\u003cb\u003e","message":"m"}`},
		{[]string{"errors", "0", "code"}, []string{"errors", "0", "detail"}, `{"errors":[{"code":"c\u003cb\u003e","detail":"m"}]}`},
		{[]string{"0", "code"}, nil, `[{"code":"c\u003cb\u003e"}]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(ErrorBody{CodeAt: tt.code, MessageAt: tt.msg}.Example("c<b>", "m"))
		if err != nil || string(b) != tt.want {
			t.Errorf("%v: got %s (%v), want %s", tt.code, b, err, tt.want)
		}
	}
}

// A hostile pointer gets a one-line message, not an echo of the file.
func TestErrorBodyHostilePointer(t *testing.T) {
	for _, v := range []string{strings.Repeat("a", 1<<20), "/" + strings.Repeat("a/", 1<<19), "/" + strings.Repeat("é", 1<<19)} {
		src := errorBodyBase + "  error_body:\n    code_at: \"" + v + "\"\n"
		_, err := Parse("c.yaml", []byte(src))
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("no load error: %v", err)
		}
		for _, d := range le.Diagnostics {
			if len(d.Message) > 600 {
				t.Errorf("message of %d bytes: %.100s...", len(d.Message), d.Message)
			}
		}
	}
}
