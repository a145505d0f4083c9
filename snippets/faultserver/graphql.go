package faultserver

import (
	"encoding/json"
	"strings"
)

// GraphQLKey is where a GraphQL request carries the key: the argument
// Argument of the directive @Directive on the mutation field, or of the
// field itself when Directive is "". The value is read as the request
// wrote it: a string literal in the document, or a $variable whose value
// is in the request's variables.
type GraphQLKey struct {
	Directive string
	Argument  string
}

// key reads the key from a GraphQL request body ({"query", "variables"}):
// "" when the document does not pass it where the contract says.
func (g GraphQLKey) key(body []byte) string {
	var req struct {
		Query     string                     `json:"query"`
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	v, ok := g.value(req.Query)
	if !ok {
		return ""
	}
	var s string
	if name, isVar := strings.CutPrefix(v, "$"); isVar {
		if json.Unmarshal(req.Variables[name], &s) != nil {
			return ""
		}
		return s
	}
	// A GraphQL string literal reads as the JSON string of the same text
	// (the escapes the snippets and hand-written documents use).
	if json.Unmarshal([]byte(v), &s) != nil {
		return ""
	}
	return s
}

// value finds the key argument's value as written: the first @Directive
// followed by its arguments, else (without a directive) the arguments of
// the first selection that has Argument among them.
func (g GraphQLKey) value(doc string) (string, bool) {
	sc := scanner{s: doc}
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; {
		case c == '"':
			sc.skipString()
		case c == '#':
			sc.skipComment()
		case c == '@' && g.Directive != "":
			sc.i++
			if sc.name() == g.Directive {
				sc.space()
				if sc.peek() == '(' {
					return sc.argument(g.Argument)
				}
			}
		case c == '(' && g.Directive == "":
			at := sc.i
			if v, ok := sc.argument(g.Argument); ok {
				return v, true
			}
			sc.i = at + 1
		default:
			sc.i++
		}
	}
	return "", false
}

// scanner walks a GraphQL document far enough to find one argument.
type scanner struct {
	s string
	i int
}

func (sc *scanner) peek() byte {
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

// space skips white space, commas (insignificant in GraphQL) and comments.
func (sc *scanner) space() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r', ',':
			sc.i++
		case '#':
			sc.skipComment()
		default:
			return
		}
	}
}

func (sc *scanner) skipComment() {
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
		sc.i++
	}
}

// skipString moves past a "..." literal (block strings are not used for
// keys and read as three strings, which is harmless here).
func (sc *scanner) skipString() string {
	start := sc.i
	sc.i++
	for sc.i < len(sc.s) && sc.s[sc.i] != '"' {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
		sc.i++
	}
	sc.i++
	return sc.s[start:min(sc.i, len(sc.s))]
}

func (sc *scanner) name() string {
	start := sc.i
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			break
		}
		sc.i++
	}
	return sc.s[start:sc.i]
}

// argument reads the argument list at sc.i, "(" included, and returns the
// value of want when it is a variable or a string literal.
func (sc *scanner) argument(want string) (string, bool) {
	sc.i++ // (
	for {
		sc.space()
		if sc.peek() == ')' || sc.peek() == 0 {
			return "", false
		}
		n := sc.name()
		sc.space()
		if n == "" || sc.peek() != ':' {
			return "", false
		}
		sc.i++
		sc.space()
		switch {
		case sc.peek() == '$':
			sc.i++
			if v := sc.name(); n == want {
				return "$" + v, true
			}
		case sc.peek() == '"':
			if v := sc.skipString(); n == want {
				return v, true
			}
		default:
			if n == want {
				return "", false
			}
			sc.skipValue()
		}
	}
}

// skipValue moves past one input value: an object or list (nested, with
// strings inside), or a name, number, boolean or null.
func (sc *scanner) skipValue() {
	depth := 0
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; c {
		case '"':
			sc.skipString()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',', ' ', '\t', '\n', '\r', ')':
			if depth == 0 {
				return
			}
		}
		sc.i++
		if depth == 0 && (sc.s[sc.i-1] == '}' || sc.s[sc.i-1] == ']') {
			return
		}
	}
}
