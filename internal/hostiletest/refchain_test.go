package hostiletest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// refChainSpec is a spec whose one operation's body and response enter a
// chain of n components, each reaching the next through a $ref (issue 13
// item 4). shape says how: "alias" (S0: {$ref: S1}), "props" (S0's
// property is a $ref to S1), "allof", or "responses"/"parameters" (an
// alias chain among those components).
func refChainSpec(shape string, n int) string {
	var b strings.Builder
	b.WriteString(`openapi: 3.0.3
info: {title: Chain, version: "1"}
paths:
  /v1/transfers:
    post:
      operationId: createTransfer
      parameters: [{$ref: '#/components/parameters/P0'}]
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/S0'}
      responses:
        "201": {$ref: '#/components/responses/R0'}
components:
`)
	chain := func(section, last string, link func(i int) string) {
		fmt.Fprintf(&b, "  %s:\n", section)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "    %s%d: %s\n", strings.ToUpper(section[:1]), i, link(i))
		}
		fmt.Fprintf(&b, "    %s%d: %s\n", strings.ToUpper(section[:1]), n, last)
	}
	ref := func(section string, i int) string {
		return fmt.Sprintf("{$ref: '#/components/%s/%s%d'}", section, strings.ToUpper(section[:1]), i)
	}
	schemas, params, responses := "  schemas:\n    S0: {type: string}\n", "  parameters:\n    P0: {name: q, in: query, schema: {type: string}}\n", "  responses:\n    R0: {description: created}\n"
	var sb strings.Builder
	b, sb = sb, b // build the chained section into b, then put it in place
	switch shape {
	case "alias":
		chain("schemas", "{type: string}", func(i int) string { return ref("schemas", i+1) })
		schemas = b.String()
	case "props":
		chain("schemas", "{type: string}", func(i int) string {
			return "{type: object, properties: {a: " + ref("schemas", i+1) + "}}"
		})
		schemas = b.String()
	case "allof":
		chain("schemas", "{type: string}", func(i int) string { return "{allOf: [" + ref("schemas", i+1) + "]}" })
		schemas = b.String()
	case "responses":
		chain("responses", "{description: created}", func(i int) string { return ref("responses", i+1) })
		responses = b.String()
	case "parameters":
		chain("parameters", "{name: q, in: query, schema: {type: string}}", func(i int) string { return ref("parameters", i+1) })
		params = b.String()
	}
	b = sb
	b.WriteString(schemas)
	b.WriteString(params)
	b.WriteString(responses)
	return b.String()
}

// TestRefChainsHaveBoundedCost: a chain of $refs S0 -> S1 -> ... -> SN
// cost N² in kin-openapi (N = 4,000: 27 s of CPU; 20,000, about 1 MB,
// did not finish). Every command that reads a spec now either handles
// the chain or refuses it, exit 2 naming the limit, within the suite's
// CPU and memory budget. Short chains still load: the limits do not
// refuse ordinary specs.
func TestRefChainsHaveBoundedCost(t *testing.T) {
	if placeholder(t, "openapi") {
		t.Skip("SKIPPED: openapi is not implemented on this branch yet")
	}
	commands := [][]string{
		{"check", "-c", "retryspec.yaml", "--openapi", "chain.yaml"},
		{"build", "-c", "retryspec.yaml", "--openapi", "chain.yaml", "--out", "out"},
		{"openapi", "-c", "retryspec.yaml", "--spec", "chain.yaml", "--overlay", "o.yaml", "--merged", "m.yaml"},
	}
	type tc struct {
		shape   string
		n       int
		refused bool
	}
	var cases []tc
	for _, shape := range []string{"alias", "props", "allof", "responses", "parameters"} {
		for _, n := range []int{1000, 4000, 20000} {
			cases = append(cases, tc{shape, n, true})
		}
	}
	// Controls: chains within the limits load.
	cases = append(cases, tc{"alias", 12, false}, tc{"responses", 12, false}, tc{"props", 200, false}, tc{"allof", 200, false})
	for _, c := range cases {
		spec := refChainSpec(c.shape, c.n)
		for _, args := range commands {
			if testing.Short() && c.n > 1000 {
				continue
			}
			what := fmt.Sprintf("%s chain of %d (%d KB): %s", c.shape, c.n, len(spec)>>10, strings.Join(args, " "))
			sb := newSandbox(t)
			mustWrite(t, filepath.Join(sb.work, "chain.yaml"), []byte(spec))
			r := run(t, sb, 0, args...)
			checkNoCrash(t, what, r)
			checkBounds(t, what, r)
			switch {
			case c.refused && (r.code != 2 || !strings.Contains(r.stderr, "chain.yaml:") || !strings.Contains(r.stderr, "(limit: ")):
				t.Errorf("%s: exit %d, want 2 naming the file and the limit\n%.1000s", what, r.code, r.stderr)
			case !c.refused && r.code == 2:
				t.Errorf("%s: refused a chain within the limits\n%.1000s", what, r.stderr)
			}
		}
	}
}
