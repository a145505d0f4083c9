package copylint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestDump2Local(t *testing.T) {
	spec := os.Getenv("DUMP2")
	if spec == "" {
		t.Skip()
	}
	for _, pl := range strings.Fields(spec) {
		i := strings.LastIndex(pl, ":")
		n, _ := strconv.Atoi(pl[i+1:])
		data, _ := os.ReadFile("/work/shared/data/corpus/" + pl[:i])
		lines := strings.Split(string(data), "\n")
		for _, f := range LintSource(nil, pl[:i], data) {
			if f.Line != n {
				continue
			}
			r := []rune(lines[n-1])
			a, b := f.Column-1, f.EndColumn-1
			if b <= a || b > len(r) {
				b = a + 20
			}
			lo := a - 120
			if lo < 0 {
				lo = 0
			}
			hi := b + 60
			if hi > len(r) {
				hi = len(r)
			}
			fmt.Printf("%s %s: ...%s[[%s]]%s...\n", pl, f.Rule, string(r[lo:a]), string(r[a:min(b, len(r))]), string(r[min(b, len(r)):hi]))
		}
	}
}
