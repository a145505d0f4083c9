package snippets

import (
	"regexp"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// literalSyntax is how a language writes the example body (a JSON value)
// as its own literal: a dict, an object, a map, a hash, or the JSON text
// as a string. Names and strings go through the language's quoting
// function, so no contract string reaches the code unescaped; numbers are
// written as the contract wrote them (the loader keeps them to what every
// language reads back exactly).
type literalSyntax struct {
	// text sends the body as its JSON text, quoted as a string (languages
	// whose program posts a string).
	text                        bool
	null, yes, no               string
	objOpen, objClose, objEmpty string
	arrOpen, arrClose, arrEmpty string
	// bare is the member names written without quotes; member writes one
	// member's name and separator, quoted by q unless bare matches.
	bare            *regexp.Regexp
	bareSep, quoted string
}

// literals are the body syntaxes a registry row's Snippet.Literal may
// name, by their own names (like quoters).
var literals = map[string]literalSyntax{
	"PythonDict": {null: "None", yes: "True", no: "False",
		objOpen: "{", objClose: "}", objEmpty: "{}", arrOpen: "[", arrClose: "]", arrEmpty: "[]", quoted: "%s: "},
	"JSObject": {null: "null", yes: "true", no: "false",
		objOpen: "{ ", objClose: " }", objEmpty: "{}", arrOpen: "[", arrClose: "]", arrEmpty: "[]",
		bare: regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`), bareSep: ": ", quoted: "%s: "},
	"GoMap": {null: "nil", yes: "true", no: "false",
		objOpen: "map[string]any{", objClose: "}", objEmpty: "map[string]any{}", arrOpen: "[]any{", arrClose: "}", arrEmpty: "[]any{}", quoted: "%s: "},
	"RubyHash": {null: "nil", yes: "true", no: "false",
		objOpen: "{ ", objClose: " }", objEmpty: "{}", arrOpen: "[", arrClose: "]", arrEmpty: "[]",
		bare: regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`), bareSep: ": ", quoted: "%s => "},
	"JSONText": {text: true},
}

// literal writes v in syntax s, strings quoted by q.
func (s literalSyntax) literal(v contract.JSONValue, q func(string) string) string {
	if s.text {
		return q(v.String())
	}
	var b strings.Builder
	s.write(&b, v, q)
	return b.String()
}

func (s literalSyntax) write(b *strings.Builder, v contract.JSONValue, q func(string) string) {
	switch v.Kind {
	case contract.JSONObject:
		s.list(b, len(v.Members), s.objOpen, s.objClose, s.objEmpty, func(i int) {
			m := v.Members[i]
			if s.bare != nil && s.bare.MatchString(m.Name) {
				b.WriteString(m.Name + s.bareSep)
			} else {
				b.WriteString(strings.Replace(s.quoted, "%s", q(m.Name), 1))
			}
			s.write(b, m.Value, q)
		})
	case contract.JSONArray:
		s.list(b, len(v.Items), s.arrOpen, s.arrClose, s.arrEmpty, func(i int) { s.write(b, v.Items[i], q) })
	case contract.JSONString:
		b.WriteString(q(v.Text))
	case contract.JSONBool:
		if v.Text == "true" {
			b.WriteString(s.yes)
		} else {
			b.WriteString(s.no)
		}
	case contract.JSONNull:
		b.WriteString(s.null)
	default:
		b.WriteString(v.Text)
	}
}

// list writes n items between open and close, ", " apart; empty when none.
func (s literalSyntax) list(b *strings.Builder, n int, open, close, empty string, item func(i int)) {
	if n == 0 {
		b.WriteString(empty)
		return
	}
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		item(i)
	}
	b.WriteString(close)
}
