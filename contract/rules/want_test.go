package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/findings"
)

// A "# want:" comment ends the line a finding must point at and names the
// rule and the column, as golang.org/x/tools/go/analysis/analysistest's
// `// want` comments do for analyzers:
//
//	statuses: [409, 429] # want: retry/client-error col 12
//
// Several findings on one line are listed with commas. The comment is YAML,
// so the file loads exactly as it would without it.
const wantMarker = "# want: "

var (
	wantList = regexp.MustCompile(`^[a-z]+/[a-z0-9-]+ col [1-9][0-9]*(, [a-z]+/[a-z0-9-]+ col [1-9][0-9]*)*$`)
	wantItem = regexp.MustCompile(`([a-z]+/[a-z0-9-]+) col ([1-9][0-9]*)`)
)

// want is one expected finding: its rule and position.
type want struct {
	line, col int
	rule      string
}

func (w want) String() string { return fmt.Sprintf("%d:%d: %s", w.line, w.col, w.rule) }

// parseWants returns the findings a file's "# want:" comments expect, or an
// error naming a malformed comment's line.
func parseWants(src []byte) ([]want, error) {
	var out []want
	for i, line := range strings.Split(string(src), "\n") {
		at := strings.LastIndex(line, wantMarker)
		if at < 0 {
			continue
		}
		list := strings.TrimSpace(line[at+len(wantMarker):])
		if !wantList.MatchString(list) {
			return nil, fmt.Errorf("line %d: malformed want comment %q: write # want: RULE col N[, RULE col N]", i+1, list)
		}
		for _, m := range wantItem.FindAllStringSubmatch(list, -1) {
			col, _ := strconv.Atoi(m[2])
			out = append(out, want{line: i + 1, col: col, rule: m[1]})
		}
	}
	return out, nil
}

// gotWants is what the findings say, in the same form; waived findings
// count too, as they still point at a place in the file.
func gotWants(fs []findings.Finding) []want {
	out := make([]want, 0, len(fs))
	for _, f := range fs {
		out = append(out, want{line: f.Line, col: f.Column, rule: f.Rule})
	}
	return out
}

// checkWants fails the test for each problem wantProblems finds.
func checkWants(t *testing.T, name string, src []byte, fs []findings.Finding) {
	t.Helper()
	for _, p := range wantProblems(name, src, fs) {
		t.Error(p)
	}
}

// wantProblems lists each finding no want comment expects and each want
// comment no finding meets, with the file position of either.
func wantProblems(name string, src []byte, fs []findings.Finding) []string {
	wants, err := parseWants(src)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	if len(wants) == 0 {
		return []string{name + " has no # want: comment; every bad example states where its findings point (go test ./contract/rules -update writes them)"}
	}
	var out []string
	for _, g := range gotWants(fs) {
		if i := slices.Index(wants, g); i >= 0 {
			wants = slices.Delete(wants, i, i+1)
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d:%d: unexpected finding %s (no # want: comment on line %d names it at column %d)", name, g.line, g.col, g.rule, g.line, g.col))
	}
	for _, w := range wants {
		out = append(out, fmt.Sprintf("%s:%d:%d: no %s finding here, as the # want: comment on line %d says", name, w.line, w.col, w.rule, w.line))
	}
	return out
}

// addWants ends each line a finding points at with a "# want:" comment
// naming every finding there, in column order. -update uses it to write
// bad.yaml; a finding without a line cannot be stated and fails the test.
func addWants(t *testing.T, src []byte, fs []findings.Finding) []byte {
	t.Helper()
	byLine := map[int][]want{}
	for _, g := range gotWants(fs) {
		if g.line < 1 || g.col < 1 {
			t.Fatalf("finding %s has no position (line %d, column %d); a want comment cannot state it", g.rule, g.line, g.col)
		}
		byLine[g.line] = append(byLine[g.line], g)
	}
	lines := strings.Split(string(src), "\n")
	for n, ws := range byLine {
		if n > len(lines) {
			t.Fatalf("finding %s points at line %d of a %d-line file", ws[0].rule, n, len(lines))
		}
		slices.SortFunc(ws, func(a, b want) int {
			if a.col != b.col {
				return a.col - b.col
			}
			return strings.Compare(a.rule, b.rule)
		})
		ws = slices.Compact(ws)
		items := make([]string, len(ws))
		for i, w := range ws {
			items[i] = fmt.Sprintf("%s col %d", w.rule, w.col)
		}
		lines[n-1] += " " + wantMarker + strings.Join(items, ", ")
	}
	return []byte(strings.Join(lines, "\n"))
}

// TestWantComments checks the checker: a want on the wrong column, a
// missing want and a malformed one are each reported.
func TestWantComments(t *testing.T) {
	src := []byte("retry:\n  statuses: [409] # want: retry/client-error col 14\n  max_attempts: 9\n")
	at := func(line, col int, rule string) findings.Finding {
		return findings.Finding{Rule: rule, Line: line, Column: col}
	}
	ws, err := parseWants(src)
	if err != nil || !slices.Equal(ws, []want{{2, 14, "retry/client-error"}}) {
		t.Fatalf("parseWants = %v, %v", ws, err)
	}
	for _, tt := range []struct {
		name string
		fs   []findings.Finding
		ok   bool
	}{
		{"exact", []findings.Finding{at(2, 14, "retry/client-error")}, true},
		{"wrong column", []findings.Finding{at(2, 13, "retry/client-error")}, false},
		{"wrong line", []findings.Finding{at(3, 14, "retry/client-error")}, false},
		{"other rule", []findings.Finding{at(2, 14, "retry/any-error")}, false},
		{"unexpected extra", []findings.Finding{at(2, 14, "retry/client-error"), at(3, 17, "retry/too-many-attempts")}, false},
		{"missing", nil, false},
	} {
		if ps := wantProblems("x.yaml", src, tt.fs); (len(ps) == 0) != tt.ok {
			t.Errorf("%s: wantProblems = %q", tt.name, ps)
		}
	}
	if _, err := parseWants([]byte("a: 1 # want: retry/client-error column 3\n")); err == nil {
		t.Error("a malformed want comment was accepted")
	}
	// addWants writes what parseWants reads back.
	fs := []findings.Finding{at(3, 17, "retry/too-many-attempts"), at(3, 3, "retry/no-budget")}
	out := addWants(t, []byte("retry:\n  statuses: [409]\n  max_attempts: 9 # with the first\n"), fs)
	if !bytes.Contains(out, []byte("max_attempts: 9 # with the first # want: retry/no-budget col 3, retry/too-many-attempts col 17\n")) {
		t.Errorf("addWants wrote:\n%s", out)
	}
	if ws, err := parseWants(out); err != nil || len(ws) != 2 {
		t.Errorf("parseWants(addWants) = %v, %v", ws, err)
	}
}
