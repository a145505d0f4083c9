package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SameRequest says in words what makes a retry "the same request" as the
// first one under this contract's fingerprint: the one sentence the
// Idempotent requests page and the OpenAPI description both show, and the
// middleware's fingerprint (idempotency/fingerprint.go, over
// FingerprintBody) computes.
func (id Idempotency) SameRequest() string {
	if id.Fingerprint == FingerprintNone {
		return "The server does not compare a retry with the first request: any request with the key gets the first request's result."
	}
	var b strings.Builder
	b.WriteString("A retry is the same request when its method, path, query string and body match the first request's")
	if id.Fingerprint == FingerprintCanonicalJSON {
		b.WriteString(" (a JSON body is compared as JSON: the order of its keys and whitespace between tokens do not count")
		switch ff := id.FingerprintFields; {
		case ff.Only:
			fmt.Fprintf(&b, "; of the body only its %s %s count", strings.Join(ff.Members, ", "), plural(len(ff.Members), "member", "members"))
		case ff.Set():
			fmt.Fprintf(&b, ", nor do its %s %s", strings.Join(ff.Members, ", "), plural(len(ff.Members), "member", "members"))
		}
		b.WriteString(")")
	} else {
		b.WriteString(" byte for byte")
	}
	if len(id.FingerprintHeaders) > 0 {
		fmt.Fprintf(&b, ", and so do its %s %s", strings.Join(id.FingerprintHeaders, ", "), plural(len(id.FingerprintHeaders), "header", "headers"))
	}
	b.WriteString("; any other request with the key gets the payload-mismatch conflict.")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FingerprintBody is the part of a request body that counts towards "the
// same request" (SameRequest says it in words): the body as it is under
// sha256-body; under canonical-json, a JSON body re-encoded with its
// object keys sorted and no insignificant whitespace (numbers keep their
// literal text), without the fingerprint_fields it excludes, or of only
// the ones it names. A body that is not one JSON value counts byte for
// byte, so it never equals a canonical one. Without fingerprint_fields the
// bytes are the ones every earlier release hashed.
func (id Idempotency) FingerprintBody(body []byte) []byte {
	if id.Fingerprint != FingerprintCanonicalJSON {
		return body
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return body
	}
	if _, err := d.Token(); err == nil {
		return body // trailing data after the value
	}
	ff := id.FingerprintFields
	if ff.Only {
		// Keyed by pointer, so a member's absence and its null differ
		// and one member cannot pass for another.
		kept := map[string]any{}
		for _, p := range ff.Members {
			if m, ok := member(v, pointerTokens(p)); ok {
				kept[p] = m
			}
		}
		v = kept
	} else {
		for _, p := range ff.Members {
			deleteMember(v, pointerTokens(p))
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

func pointerTokens(p string) []string { return strings.Split(strings.TrimPrefix(p, "/"), "/") }

// member follows object members only: a pointer through an array or a
// scalar names nothing.
func member(v any, tokens []string) (any, bool) {
	for _, t := range tokens {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = o[t]; !ok {
			return nil, false
		}
	}
	return v, true
}

func deleteMember(v any, tokens []string) {
	parent, ok := member(v, tokens[:len(tokens)-1])
	if o, isObj := parent.(map[string]any); ok && isObj {
		delete(o, tokens[len(tokens)-1])
	}
}

// decodeFingerprintFields reads fingerprint_fields: { exclude: [...] } or
// { only: [...] }, JSON pointers to object members. Naming fields needs
// fingerprint: canonical-json: leaving a member out of raw bytes has no
// meaning.
func (d *decoder) decodeFingerprintFields(n *yaml.Node, path string, id *Idempotency) {
	f := d.object(n, path, "exclude", "only")
	if f == nil {
		return
	}
	valid := func(s string) error {
		_, err := parseMemberPointer(s)
		return err
	}
	ff := &id.FingerprintFields
	ex, exOK := f["exclude"]
	only, onlyOK := f["only"]
	switch {
	case exOK && onlyOK:
		d.errorf(d.resolve(only), path+".only", "keep one list: exclude (members left out) or only (the members that count)",
			"%s names both exclude and only", path)
	case exOK:
		ff.Members = d.stringList(ex, path+".exclude", 50, valid)
	case onlyOK:
		ff.Members, ff.Only = d.stringList(only, path+".only", 50, valid), true
	}
	if ff.Set() && id.Fingerprint != FingerprintCanonicalJSON {
		how := "byte for byte"
		if id.Fingerprint == FingerprintNone {
			how = "not at all"
		}
		d.errorf(d.resolve(n), path, "set fingerprint: canonical-json: a body's members are compared as JSON",
			"%s names body members, but fingerprint is %s, which compares the body %s", path, id.Fingerprint, how)
	}
}

// parseMemberPointer checks a JSON pointer to an object member: tokens
// that are member names (no list index, no ~ escape).
func parseMemberPointer(s string) ([]string, error) {
	q := clipQuoted(s)
	if !strings.HasPrefix(s, "/") || s == "/" {
		return nil, fmt.Errorf("%q is not a JSON pointer to a member; write /name, or /outer/name for a nested one", q)
	}
	tokens := pointerTokens(s)
	if len(tokens) > maxPointerDepth {
		return nil, fmt.Errorf("%q is more than %d levels deep", q, maxPointerDepth)
	}
	for _, t := range tokens {
		if !pointerToken.MatchString(t) {
			return nil, fmt.Errorf("%q: the member name %q must be letters, digits, _ or - (starting with a letter or _), at most 64 characters; list items cannot be named", q, clipQuoted(t))
		}
	}
	return tokens, nil
}
