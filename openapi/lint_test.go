package openapi

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// redoclyErrors runs `redocly lint` (recommended rules) on a spec and
// returns its error-severity problems as "rule at JSON pointer", the
// pointer being stable across inserted lines.
func redoclyErrors(t *testing.T, redocly, spec string) (map[string]int, time.Duration) {
	t.Helper()
	// No time limit: redocly on a loaded machine takes what it takes; a
	// hang ends in go test's -timeout.
	cmd := exec.Command(redocly, "lint", "--format", "json", "--max-problems", "1000000", filepath.Base(spec))
	cmd.Dir = filepath.Dir(spec)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start) // logged, never bounded
	var report struct {
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("redocly lint %s: %v (exit: %v)\n%.2000s", spec, jerr, err, out)
	}
	errs := map[string]int{}
	for _, p := range report.Problems {
		if p.Severity != "error" {
			continue
		}
		ptr := ""
		if len(p.Location) > 0 {
			ptr = p.Location[0].Pointer
		}
		errs[fmt.Sprintf("%s at %s: %s", p.RuleID, ptr, p.Message)]++
	}
	return errs, took
}

// TestRedoclyNoNewErrors: an independent linter finds no error in the
// merged spec that it does not find in the input (small spec and every
// real spec). Needs redocly (.ci/install-openapi): CI fails without it.
func TestRedoclyNoNewErrors(t *testing.T) {
	redocly := testenv.LookPath(t, "redocly")
	specs := realSpecs(t)
	specs["small.yaml"] = "testdata/small.yaml"
	specs["small.json"] = "testdata/small.json"
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		path := specs[name]
		t.Run(name, func(t *testing.T) {
			s, err := Load(path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var c *contract.Contract
			if set, ok := settings[name]; ok {
				c = contractFor(t, s, set.maxKeyLength, set.postKey)
			} else if c, err = contract.Load("testdata/contract.yaml"); err != nil {
				t.Fatal(err)
			}
			merged, err := Merged(s, NewPlan(c, s))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			in := filepath.Join(dir, "in"+filepath.Ext(path))
			out := filepath.Join(dir, "out"+filepath.Ext(path))
			if err := os.WriteFile(in, s.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, merged, 0o644); err != nil {
				t.Fatal(err)
			}
			before, tookIn := redoclyErrors(t, redocly, in)
			after, tookOut := redoclyErrors(t, redocly, out)
			for k, n := range after {
				if n > before[k] {
					t.Errorf("new redocly error: %s", k)
				}
			}
			t.Logf("%s: redocly lint %d errors in the input (%v), %d in the merged spec (%v)", name, sum(before), tookIn.Round(time.Millisecond), sum(after), tookOut.Round(time.Millisecond))
		})
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestRedoclyCatchesBrokenAdditions is the control for the test above: an
// added response without its required description is a new redocly error,
// so "no new errors" is a check that can fail.
func TestRedoclyCatchesBrokenAdditions(t *testing.T) {
	redocly := testenv.LookPath(t, "redocly")
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/small.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, s)
	for i, e := range p.Edits {
		if r, ok := e.Value.(Obj); ok && e.Key == "409" {
			p.Edits[i].Value = r[1:] // drop "description"
		}
	}
	merged, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "out.yaml")
	os.WriteFile(in, s.Data, 0o644)
	os.WriteFile(out, merged, 0o644)
	before, _ := redoclyErrors(t, redocly, in)
	after, _ := redoclyErrors(t, redocly, out)
	if sum(after) <= sum(before) {
		t.Fatalf("redocly found no new error in a response without description (%d before, %d after)", sum(before), sum(after))
	}
}
