package hostiletest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specHeader is the part of every generated spec the payouts contract
// reads: the keyed POST it plans for.
const specHeader = `openapi: 3.0.3
info: {title: Shapes, version: "1"}
paths:
  /v1/transfers:
    post:
      operationId: createTransfer
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Body'}
      responses:
        "201": {description: created}
`

// specShape is one way a spec of up to 10 MB can be expensive to read
// (issue 13 item 4). gen writes the spec; refused says whether every
// command must refuse it (exit 2 naming the file and the limit) or load it.
type specShape struct {
	name    string
	refused bool
	gen     func(b *strings.Builder)
}

// fill repeats line until the spec is about size bytes.
func fill(b *strings.Builder, size int, line func(i int) string) int {
	i := 0
	for b.Len() < size {
		b.WriteString(line(i))
		i++
	}
	return i
}

func body(b *strings.Builder) {
	b.WriteString("components:\n  schemas:\n    Body: {type: object}\n")
}

var specShapes = []specShape{
	// 90,000 small components as one-line JSON (9.8 MB): 1.26 million
	// values. Refusing it after parsing cost 2.0 s and 267 MB.
	{"many-components-json", true, func(b *strings.Builder) {
		b.WriteString(`{"openapi": "3.0.3", "info": {"title": "J", "version": "1"}, "paths": {"/v1/transfers": {"post": {"responses": {"201": {"description": "created"}}}}}, "components": {"schemas": {"Body": {"type": "object"}`)
		for i := 0; i < 90_000; i++ {
			fmt.Fprintf(b, `, "Schema%06d": {"type": "object", "properties": {"id": {"type": "string"}, "amount": {"type": "integer"}}}`, i)
		}
		b.WriteString("}}}\n")
	}},
	// One mapping of 800,000 keys (9.9 MB). Before: 2.4 s, 322 MB.
	{"wide-mapping", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-wide:\n")
		fill(b, 9_900_000, func(i int) string { return fmt.Sprintf("  k%07d: 1\n", i) })
	}},
	// One flow list of 4.9 million one-digit values (9.8 MB). Before:
	// 8.1 s, 949 MB.
	{"flow-list", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-list: [")
		b.WriteString(strings.Repeat("1,", 4_900_000))
		b.WriteString("1]\n")
	}},
	// A request body schema of items nested 9,000 deep in brackets
	// (180 KB). Before: 95 s and 1.5 GB in kin-openapi's validation.
	{"deep-flow-schema", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		b.WriteString("components:\n  schemas:\n    Body: ")
		b.WriteString(strings.Repeat("{type: array, items: ", 9_000) + "{type: string}" + strings.Repeat("}", 9_000) + "\n")
	}},
	// The same nested 1,200 deep in indented blocks (1.5 MB). Before:
	// 1.8 s, 156 MB; the cost grows with the square of the depth.
	{"deep-block-schema", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		b.WriteString("components:\n  schemas:\n    Body:\n")
		for d := 6; d < 6+1_200; d++ {
			ind := strings.Repeat(" ", d)
			b.WriteString(ind + "type: array\n" + ind + "items:\n")
		}
		b.WriteString(strings.Repeat(" ", 6+1_200) + "type: string\n")
	}},
	// 90,000 components on lines ending in a lone \r, after a comment
	// (8.7 MB): yaml.v3 breaks lines there, so a pre-scan that broke
	// lines only at \n would read one comment line and count nothing.
	{"lone-cr-components", true, func(b *strings.Builder) {
		b.WriteString(strings.ReplaceAll("# generated\n"+specHeader+"components:\n  schemas:\n    Body: {type: object}\n", "\n", "\r"))
		for i := 0; i < 90_000; i++ {
			fmt.Fprintf(b, "    Schema%06d: {type: object, properties: {id: {type: string}, amount: {type: integer}}}\r", i)
		}
	}},
	// 1.2 million aliases of one anchor (9.9 MB). Before: 1.4 s, 251 MB.
	{"alias-list", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-aliases:\n  base: &b {type: string}\n  uses:\n")
		fill(b, 9_900_000, func(int) string { return "    - *b\n" })
	}},
	// Nine levels of nine aliases: 387 million values once expanded, in
	// 500 bytes. Refused on the tree, where the count is memoized.
	{"alias-bomb", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-lol:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
		prev := "a"
		for _, c := range "bcdefghi" {
			fmt.Fprintf(b, "  %c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
			prev = string(c)
		}
	}},
	// 450,000 anchored scalars (9.9 MB). Before: 2.1 s, 240 MB.
	{"many-anchors", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-anchors:\n")
		fill(b, 9_900_000, func(i int) string { return fmt.Sprintf("  k%07d: &a%07d 1\n", i, i) })
	}},
	// A chain of 230,000 $refs (9.9 MB). Before: 1.3 s, 194 MB.
	{"ref-chain-10mb", true, func(b *strings.Builder) {
		b.WriteString(specHeader)
		b.WriteString("components:\n  schemas:\n    Body: {$ref: '#/components/schemas/S0'}\n")
		n := fill(b, 9_900_000, func(i int) string { return fmt.Sprintf("    S%d: {$ref: '#/components/schemas/S%d'}\n", i, i+1) })
		fmt.Fprintf(b, "    S%d: {type: string}\n", n)
	}},
	// Loaded: one 9.9 MB description.
	{"huge-string", false, func(b *strings.Builder) {
		b.WriteString(strings.Replace(specHeader, "operationId: createTransfer\n",
			"operationId: createTransfer\n      description: \""+strings.Repeat("x", 9_900_000)+"\"\n", 1))
		body(b)
	}},
	// Loaded: 9.9 MB of block-scalar descriptions full of indicators.
	{"block-scalars", false, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		text := strings.Repeat("        line of text: with - indicators [x] {y} #z &a *b\n", 40)
		fill(b, 9_900_000, func(i int) string {
			return fmt.Sprintf("    S%d:\n      type: string\n      description: |\n%s", i, text)
		})
	}},
	// Loaded: nesting and aliases within the limits.
	{"nesting-200", false, func(b *strings.Builder) {
		b.WriteString(specHeader)
		b.WriteString("components:\n  schemas:\n    Body: ")
		b.WriteString(strings.Repeat("{type: array, items: ", 200) + "{type: string}" + strings.Repeat("}", 200) + "\n")
	}},
	{"aliases-1000", false, func(b *strings.Builder) {
		b.WriteString(specHeader)
		body(b)
		b.WriteString("x-aliases:\n  base: &b {type: string}\n  uses:\n")
		for i := 0; i < 1000; i++ {
			b.WriteString("    - *b\n")
		}
	}},
}

// TestSpecShapesHaveBoundedCost (issue 13 item 4): every command that
// reads a spec, on each shape, stays within the suite's CPU and memory
// budget, and either loads the spec or refuses it with exit 2 naming
// the file, the position and the limit. A refusal costs little: the
// spec is measured before it is parsed (openapi/prescan.go), so a
// refused run stays under 100 MB of RSS (measured: 25-50 MB), where
// refusing after the parse took 190-950 MB.
func TestSpecShapesHaveBoundedCost(t *testing.T) {
	if placeholder(t, "openapi") {
		t.Skip("SKIPPED: openapi is not implemented on this branch yet")
	}
	commands := []struct {
		name  string
		args  []string
		setup func(sb *sandbox)
	}{
		{"check --openapi", []string{"check", "-c", "retryspec.yaml", "--openapi", "shape.yaml"}, nil},
		{"build --openapi", []string{"build", "-c", "retryspec.yaml", "--openapi", "shape.yaml", "--out", "out"}, nil},
		{"openapi", []string{"openapi", "-c", "retryspec.yaml", "--spec", "shape.yaml", "--overlay", "o.yaml", "--merged", "m.yaml"}, nil},
		{"init --openapi", []string{"init", "--openapi", "shape.yaml"},
			func(sb *sandbox) { os.Remove(filepath.Join(sb.work, "retryspec.yaml")) }},
		{"verify init --openapi", []string{"verify", "init", "-c", "retryspec.yaml", "--plan", "plan.yaml", "--openapi", "shape.yaml"}, nil},
	}
	const refusedRSS = 100 << 20
	for _, shape := range specShapes {
		var b strings.Builder
		shape.gen(&b)
		spec := b.String()
		if testing.Short() && len(spec) > 1<<20 {
			continue
		}
		for _, c := range commands {
			what := fmt.Sprintf("%s (%d KB): %s", shape.name, len(spec)>>10, c.name)
			sb := newSandbox(t)
			mustWrite(t, filepath.Join(sb.work, "shape.yaml"), []byte(spec))
			if c.setup != nil {
				c.setup(sb)
			}
			r := run(t, sb, 0, c.args...)
			checkNoCrash(t, what, r)
			checkBounds(t, what, r)
			if r.measured {
				t.Logf("%s: exit %d, %v CPU, %d MiB RSS", what, r.code, r.cpu.Round(1e6), r.rss>>20)
			}
			switch {
			case shape.refused && (r.code != 2 || !strings.Contains(r.stderr, "shape.yaml:") || !strings.Contains(r.stderr, "(limit: ")):
				t.Errorf("%s: exit %d, want 2 naming the file and the limit\n%.1000s", what, r.code, r.stderr)
			case shape.refused && r.measured && r.rss > refusedRSS:
				t.Errorf("%s: refusing took %d MiB of RSS, want under %d MiB: is the spec parsed before it is measured?", what, r.rss>>20, refusedRSS>>20)
			case !shape.refused && r.code == 2:
				t.Errorf("%s: refused a spec within the limits\n%.1000s", what, r.stderr)
			}
		}
	}
}
