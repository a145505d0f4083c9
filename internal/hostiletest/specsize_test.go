package hostiletest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// manyComponentsSpec is a spec of n small schemas (four mappings each)
// that no operation reads: the shape of a large generated spec that is
// cheap to write and, before the size bound, expensive to decode.
func manyComponentsSpec(n int) string {
	var b strings.Builder
	b.WriteString(`openapi: 3.0.3
info: {title: Big, version: "1"}
paths:
  /v1/transfers:
    post:
      operationId: createTransfer
      responses:
        "201": {description: created}
components:
  schemas:
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    Schema%06d: {type: object, properties: {id: {type: string}, amount: {type: integer}}}\n", i)
	}
	return b.String()
}

// TestLargeSpecsHaveBoundedCost (issue 13 item 4): kin-openapi decodes
// every component, so a 9.7 MB spec of 90,000 small components cost
// 12.9 s of CPU and 812 MB in each command that reads a spec. The spec is
// now measured on its YAML tree and refused past 40,000 mappings with exit
// 2 naming the file, the position and the limit; a spec under the limit
// still loads.
//
// The 90,000-component spec (1.26 million values) is refused before it
// is parsed (openapi/prescan.go): refusing it after building yaml.v3's
// tree cost 2.3 s and 279 MB, now 0.07 s and 41 MB.
func TestLargeSpecsHaveBoundedCost(t *testing.T) {
	if placeholder(t, "openapi") {
		t.Skip("SKIPPED: openapi is not implemented on this branch yet")
	}
	commands := [][]string{
		{"check", "-c", "retryspec.yaml", "--openapi", "big.yaml"},
		{"build", "-c", "retryspec.yaml", "--openapi", "big.yaml", "--out", "out"},
		{"openapi", "-c", "retryspec.yaml", "--spec", "big.yaml", "--overlay", "o.yaml", "--merged", "m.yaml"},
	}
	cases := []struct {
		n       int
		refused bool
		factor  time.Duration // times the suite's CPU budget
		rss     int64
	}{
		{9_000, false, 1, rssBudget}, // 36,009 mappings: loads
		{12_500, true, 1, rssBudget}, // 50,009 mappings
		{25_000, true, 1, rssBudget}, // 100,009 mappings, 2.3 MB
		{90_000, true, 1, rssBudget}, // 360,009 mappings, 8.3 MB
	}
	for _, c := range cases {
		if testing.Short() && c.n > 25_000 {
			continue
		}
		spec := manyComponentsSpec(c.n)
		for _, args := range commands {
			what := fmt.Sprintf("%d components (%d KB): %s", c.n, len(spec)>>10, strings.Join(args, " "))
			sb := newSandbox(t)
			mustWrite(t, filepath.Join(sb.work, "big.yaml"), []byte(spec))
			r := run(t, sb, 0, args...)
			checkNoCrash(t, what, r)
			if r.measured {
				if r.cpu > c.factor*cpuBudget {
					t.Errorf("%s: %v CPU time, budget %v", what, r.cpu.Round(time.Millisecond), c.factor*cpuBudget)
				}
				if r.rss > c.rss {
					t.Errorf("%s: peak RSS %d MiB, budget %d MiB", what, r.rss>>20, c.rss>>20)
				}
			}
			switch {
			case c.refused && (r.code != 2 || !strings.Contains(r.stderr, "big.yaml:") || !strings.Contains(r.stderr, "(limit: ")):
				t.Errorf("%s: exit %d, want 2 naming the file and the limit\n%.1000s", what, r.code, r.stderr)
			case !c.refused && r.code == 2:
				t.Errorf("%s: refused a spec within the limits\n%.1000s", what, r.stderr)
			}
		}
	}
}
