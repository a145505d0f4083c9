package openapi

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Overlay renders the plan as an OpenAPI Overlay 1.0.0 document. Each
// action targets one mapping or sequence with an RFC 9535 JSONPath; an
// update on a mapping adds members, an update on a sequence appends one
// item (Overlay 1.0: a value for an array target is appended), so applying
// the overlay changes nothing the spec already had.
//
// Edits on the same mapping that follow each other become one action.
func Overlay(c *contract.Contract, s *Spec, p *Plan) Obj {
	var actions []any
	var cur Obj // the update of the current mapping action
	var curPath string
	flush := func() { cur, curPath = nil, "" }
	for _, e := range p.Edits {
		if e.site != nil {
			continue // made on a copy in the merged spec only (anchors.go)
		}
		path := jsonPath(e.Target)
		if e.Key == "" {
			flush()
			actions = append(actions, obj("target", path, "description", describe(e), "update", e.Value))
			continue
		}
		if cur != nil && path == curPath {
			// Extend the previous action's update in place.
			last := actions[len(actions)-1].(Obj)
			for i := range last {
				if last[i].K == "update" {
					last[i].V = append(last[i].V.(Obj), KV{e.Key, e.Value})
				}
			}
			continue
		}
		cur, curPath = Obj{{e.Key, e.Value}}, path
		actions = append(actions, obj("target", path, "description", describe(e), "update", cur))
	}
	name := c.API.Name
	if name == "" {
		name = "the API"
	}
	if actions == nil {
		actions = []any{}
	}
	return obj(
		"overlay", "1.0.0",
		"info", obj("title", fmt.Sprintf("Idempotency and retry contract of %s (retryspec)", name), "version", "1.0.0"),
		"extends", filepath.ToSlash(filepath.Base(s.Path)),
		"actions", actions,
	)
}

// describe says what an action adds, for a reviewer reading the overlay.
func describe(e Edit) string {
	where := "the document"
	if len(e.Target) >= 3 && e.Target[0] == "paths" {
		where = strings.ToUpper(e.Target[2]) + " " + e.Target[1]
	}
	if e.Key == "" {
		return "Add the idempotency key header to " + where
	}
	switch {
	case e.Key == "x-idempotency":
		return "Add x-idempotency to " + where
	case e.Key == "x-retry" || e.Key == "x-speakeasy-retries":
		return "Add the client retry policy to " + where
	case e.Key == "parameters":
		return "Add the idempotency key header to " + where
	case e.Key == "headers" || (len(e.Target) > 0 && e.Target[len(e.Target)-1] == "headers"):
		return "Declare the replay header on a success response of " + where
	}
	return "Add the idempotency error responses to " + where
}

// jsonPath writes a key path as an RFC 9535 JSONPath query: member-name
// shorthand where the grammar allows it, bracketed single-quoted names
// elsewhere.
func jsonPath(keys []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, k := range keys {
		if shorthand(k) {
			b.WriteString(".")
			b.WriteString(k)
			continue
		}
		b.WriteString("['")
		for _, r := range k {
			switch {
			case r == '\'' || r == '\\':
				b.WriteRune('\\')
				b.WriteRune(r)
			case r < 0x20:
				fmt.Fprintf(&b, "\\u%04x", r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteString("']")
	}
	return b.String()
}

// shorthand reports whether k may be written .k (RFC 9535 name-first, name-char).
func shorthand(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		alpha := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r >= 0x80
		if !alpha && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// OverlayText renders the overlay as YAML, or JSON when json is true.
func OverlayText(o Obj, json bool) []byte {
	if json {
		return append(jsonIndent(o, "", "  "), '\n')
	}
	return yamlText(o, 2)
}
