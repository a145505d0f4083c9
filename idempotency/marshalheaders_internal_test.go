package idempotency

import (
	"encoding/json"
	"testing"
)

// marshalHeaders must store exactly what json.Marshal did before it, so
// rows written by either read back the same.
func TestMarshalHeadersMatchesJSON(t *testing.T) {
	cases := []map[string][]string{
		nil,
		{},
		{"Content-Type": {"application/json"}},
		{"Content-Type": {"application/json"}, "X-Request-Id": {"a", "b"}, "Cache-Control": {}},
		{"Location": {"/v1/transfers/tr_1?x=1&y=2"}},                    // & is escaped by encoding/json
		{"X-Html": {"<b>"}, "X-Quote": {`say "hi"`}, "X-Back": {`a\b`}}, // escapes
		{"X-Ctl": {"a\tb"}, "X-Utf8": {"café"}, "X-Bad": {"\xff"}},      // control, non-ASCII, invalid UTF-8
		{"X-Nil": nil},
		{"": {""}},
		{"B": {"1"}, "A": {"2"}, "a": {"3"}, "_": {"4"}, "Z": {"5"}},
	}
	many := map[string][]string{}
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
		many["X-"+string(c)] = []string{string(c)}
	}
	cases = append(cases, many)
	for _, h := range cases {
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalHeaders(h)
		if err != nil || got != string(want) {
			t.Errorf("marshalHeaders(%q) = %s, %v; json.Marshal gives %s", h, got, err, want)
		}
	}
}
