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

// TestRepliesFollowTheContract: problem+json bodies, a conflict answered by
// status only (`code: none`), a stated message, and the defaults.
func TestRepliesFollowTheContract(t *testing.T) {
	tests := []struct {
		name, api, conflicts string
		kind                 ReplyKind
		status               int
		body, mediaType      string
	}{
		{"default shape", "", "", ReplyPayloadMismatch, 409,
			`{"code":"invalid_idempotent_request","message":"This idempotency key was already used with a different request. Send the original request again, or use a new key for a new operation."}`, "application/json"},
		{"problem+json", "  error_body:\n    format: problem+json\n", "", ReplyInFlight, 409,
			`{"type":"about:blank","title":"Conflict","status":409,"detail":"A request with this idempotency key is still being processed. Wait, then retry with the same key.","code":"concurrent_idempotent_requests"}`, "application/problem+json"},
		{"status only, own message", "", "    payload_mismatch: { status: 422, code: none, message: Reused key. }\n", ReplyPayloadMismatch, 422,
			`{"message":"Reused key."}`, "application/json"},
		{"problem+json, status only", "  error_body:\n    format: problem+json\n", "    in_flight: { status: 423, code: none }\n", ReplyInFlight, 423,
			`{"type":"about:blank","title":"Locked","status":423,"detail":"A request with this idempotency key is still being processed. Wait, then retry with the same key."}`, "application/problem+json"},
		{"invalid key", "", "    invalid_key: { status: 400, code: bad_key }\n", ReplyInvalidKey, 400,
			`{"code":"bad_key","message":"The Idempotency-Key header must be 1 to 255 characters."}`, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := errorBodyBase + tt.api + "idempotency:\n  stored_failures: replay\n"
			if tt.conflicts != "" {
				src += "  conflicts:\n" + tt.conflicts
			}
			c, err := Parse("c.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			r := c.Reply(tt.kind)
			if r.Status != tt.status || string(r.Bytes()) != tt.body+"\n" || r.ContentType != tt.mediaType {
				t.Errorf("got %d %s %s\nwant %d %s %s", r.Status, r.ContentType, r.Bytes(), tt.status, tt.mediaType, tt.body)
			}
		})
	}
}

// TestRepliesBadInput: what cannot work is refused at its position.
func TestRepliesBadInput(t *testing.T) {
	for _, tt := range []struct{ api, conflicts, want string }{
		{"  error_body:\n    format: problem+json\n    code_at: /detail\n", "", "c.yaml:7:14: api.error_body.code_at /detail is a member problem+json fixes"},
		{"  error_body:\n    format: xml\n", "", "c.yaml:6:13:"},
		{"", "    in_flight: { status: 409, code: None }\n", "c.yaml:8:37: idempotency.conflicts.in_flight.code"},
	} {
		src := errorBodyBase + tt.api + "idempotency:\n  stored_failures: replay\n"
		if tt.conflicts != "" {
			src += "  conflicts:\n" + tt.conflicts
		}
		_, err := Parse("c.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
}
