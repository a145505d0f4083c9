package copylint

import (
	"bytes"
	"strings"
	"testing"
)

// rawHeaderLine is the reference for rawTables' header: the header line of
// the Markdown table whose line starts at at, found by searching back from
// that line (what the raw pass did for every row before it followed
// tables; quadratic on a long table).
func rawHeaderLine(src []byte, at int) []byte {
	if t := bytes.TrimLeft(src[at:], " \t"); len(t) == 0 || t[0] != '|' {
		return nil
	}
	return headerOfRun(src, tableRunAbove(src, at))
}

// TestRawTablesFollowHeaders: following a file's table rows in order gives
// every row the header a search back from it gives, across blank lines,
// prose between tables, a line that breaks a table, tables without a
// delimiter row and CRLF line ends.
func TestRawTablesFollowHeaders(t *testing.T) {
	l := newLinter(prefilterContract(t), false)
	for name, src := range map[string]string{
		"one table":      "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
		"two tables":     "| a | b |\n|---|---|\n| 1 | 2 |\n\n| c | d |\n|---|---|\n| 5 | 6 |\n",
		"prose between":  "| a | b |\n|---|---|\n| 1 | 2 |\nsome text\n| 3 | 4 |\n| 5 | 6 |\n",
		"no delimiter":   "| a | b |\n| 1 | 2 |\n| 3 | 4 |\n",
		"indented":       "  | a | b |\n  |---|---|\n  | 1 | 2 |\n",
		"crlf":           "| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n| 3 | 4 |\r\n",
		"header only":    "| a | b |\n",
		"long table":     "| attempts | value |\n|---|---|\n" + strings.Repeat("| retries | unlimited |\n", 200),
		"heading before": "# Retries\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	} {
		src := []byte(src)
		var rt rawTables
		rows := 0
		for _, b := range rawBlocks(src, nil, nil) {
			if !tableLineStart(src[b.start:b.end]) {
				continue
			}
			l.rawTableClaim(src, b, &rt)
			rows++
			if want := rawHeaderLine(src, b.start); !bytes.Equal(rt.mdHeader, want) {
				t.Errorf("%s: row at %d: header %q, searching back gives %q", name, b.start, rt.mdHeader, want)
			}
		}
		if rows == 0 {
			t.Errorf("%s: no table row read", name)
		}
	}
}
