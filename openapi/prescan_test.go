package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// parsedNodes is what countNodes estimates: the nodes yaml.v3 builds, the
// document node left out, aliases counted once each.
func parsedNodes(t testing.TB, data []byte) (int, bool) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return 0, false
	}
	n := 0
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		n++
		for _, c := range x.Content {
			walk(c)
		}
	}
	for _, c := range doc.Content {
		walk(c)
	}
	return n, true
}

// prescanShapes are small documents in the shapes specs are written in,
// each with its exact node count as yaml.v3 builds it.
var prescanShapes = []string{
	"openapi: 3.0.3\ninfo: {title: Big, version: \"1\"}\npaths:\n  /a:\n    post:\n      responses:\n        '201': {description: created}\n",
	"a:\n  - x\n  - y: 1\n    z: [1, 2, {k: v}]\n  - - n\n    - m\n  -\n    q: r\n",
	"- a\n- b: c\n- [d, e]\n",
	"{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"get\": {\"responses\": {\"200\": {\"description\": \"ok\"}}}}}, \"x\": [1, 2.5, true, null, \"s\\\"q\"]}\n",
	"{\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"c\":\"d\"\n}\n",
	"# comment\ndescription: |\n  text: with colon\n  - and a dash\n    [brackets] {braces}\n\n  more # not a comment\nnext: >-\n  folded\n  lines\nlast: 'it''s: ok'\n",
	"list:\n- name: a\n  desc: |\n    block: x\n    - y\n  other: b\n- name: c\n",
	"plain: this is a long\n  plain scalar that, no\nnext: 1\n",
	"anchors:\n  base: &b {x: 1, y: [1, 2]}\n  use: *b\n  more: [*b, *b]\n  block: &c\n    k: v\n  list: !!seq\n    - *c\n",
	"key: \"multi\n  line: quoted\n  - string\"\nk2: v # comment: {[\n",
	"? complex key\n: complex value\nk: !!str 12\n",
	"m:\n  ? a.long.key\n  : type: object\n    p: 1\n  ? b\n  :\n    - x\n",
	"empty:\nalso: {a: , b: 1}\n",
	"%YAML 1.1\n---\na: b\n...\n",
	"urls: [http://x/y, 'a:b', a:b]\n",
	"crlf:\r\n  a: 1\r\n  b: [1, 2]\r\n",
	"lonecr: |\r  text\ra: 1\rb: # c\r  - x\r",
	"ls: \"x\u2028y\"\nnel: 'p\u0085q'\nk: v\n",
}

func TestPrescanEstimate(t *testing.T) {
	for _, doc := range prescanShapes {
		want, ok := parsedNodes(t, []byte(doc))
		if !ok {
			t.Fatalf("fixture does not parse:\n%s", doc)
		}
		got := countNodes([]byte(doc), 1<<30, 1<<30).nodes
		if got != want {
			t.Errorf("estimate %d, yaml.v3 builds %d nodes:\n%s", got, want, doc)
		}
	}
	// The repository's fixtures: within 2%.
	files, _ := filepath.Glob("testdata/*.*")
	golden, _ := filepath.Glob("testdata/golden/*.yaml")
	for _, p := range append(files, golden...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := parsedNodes(t, data)
		if !ok || want < 20 {
			continue
		}
		got := countNodes(data, 1<<30, 1<<30).nodes
		if d := got - want; d*50 > want || -d*50 > want {
			t.Errorf("%s: estimate %d, yaml.v3 builds %d nodes", p, got, want)
		}
	}
}

// TestPrescanStopsEarly: the count stops at the limit and names where.
func TestPrescanStopsEarly(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ncomponents:\n  schemas:\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "    S%d: {type: string}\n", i)
	}
	data := []byte(b.String())
	r := countNodes(data, 100, 10)
	if r.stop < 0 || r.deep {
		t.Fatalf("no stop at 100 nodes: %+v", r)
	}
	if line, _ := offsetLineCol(data, r.stop); line > 30 {
		t.Errorf("stopped at line %d, want about line 25", line)
	}
	deep := []byte("a: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n")
	if r := countNodes(deep, 1000, 10); !r.deep {
		t.Errorf("20 brackets deep not refused at depth 10: %+v", r)
	}
	if r := countNodes(deep, 1000, 21); r.stop >= 0 {
		t.Errorf("20 brackets deep, under a key, refused at depth 21: %+v", r)
	}
	// Block nesting: indentation, and compact items.
	var block strings.Builder
	for d := 0; d < 30; d++ {
		block.WriteString(strings.Repeat(" ", d) + "a:\n")
	}
	block.WriteString(strings.Repeat(" ", 30) + "- - - - - x\n")
	if r := countNodes([]byte(block.String()), 1000, 32); !r.deep {
		t.Errorf("30 indented levels and 5 compact items not refused at depth 32: %+v", r)
	}
	if r := countNodes([]byte(block.String()), 1000, 35); r.stop >= 0 {
		t.Errorf("30 indented levels and 5 compact items refused at depth 35: %+v", r)
	}
}

// FuzzPrescanCount: on any document yaml.v3 parses, the estimate is never
// far below the nodes the parser builds, so no input passes the pre-scan
// and then costs far more to parse than the limit allows.
func FuzzPrescanCount(f *testing.F) {
	for _, d := range prescanShapes {
		f.Add([]byte(d))
	}
	for _, p := range []string{"testdata/small.yaml", "testdata/small.json"} {
		f.Add([]byte(mustRead(f, p)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		got := countNodes(data, 1<<30, 1<<30).nodes
		want, ok := parsedNodes(t, data)
		if !ok {
			return
		}
		if want > 2*got+16 {
			t.Fatalf("estimate %d, yaml.v3 builds %d nodes:\n%q", got, want, data)
		}
	})
}

// BenchmarkPrescan measures the pre-scan on the real specs and logs its
// estimate beside the nodes yaml.v3 builds (field measurement).
func BenchmarkPrescan(b *testing.B) {
	for name, p := range fieldSpecs(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		want, _ := parsedNodes(b, data)
		got := countNodes(data, 1<<30, 1<<30).nodes
		b.Logf("%s: %d bytes, estimate %d nodes, yaml.v3 builds %d (%+.2f%%)", name, len(data), got, want, 100*float64(got-want)/float64(want))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				countNodes(data, MaxPrescanNodes, MaxNesting)
			}
		})
	}
}

// Realspec excerpts in testdata: the estimate within 2% (unit test, no
// field data needed).
func TestPrescanRealSpecExcerpts(t *testing.T) {
	for name, p := range realSpecs(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := parsedNodes(t, data)
		if !ok {
			continue
		}
		got := countNodes(data, 1<<30, 1<<30).nodes
		if d := got - want; d*50 > want || -d*50 > want {
			t.Errorf("%s: estimate %d, yaml.v3 builds %d nodes", name, got, want)
		}
	}
}
