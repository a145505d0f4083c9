// Command testsummary reads `go test -json` on stdin and prints what plain
// `go test` would (package verdicts, the output of failed tests, benchmark
// results), then a summary of every skipped test with its reason, and last
// the names of the failed tests. Without it a skip is invisible unless go
// test runs with -v, which is how tests that silently depended on data
// outside the repository went unnoticed; and the failures come last so
// that the end of a long run's output says what broke, not what skipped.
//
//	go test -json ./... | go run ./internal/testsummary
//	go test -json ./... | go run ./internal/testsummary -skips FILE   # append skips and failures to FILE instead
//	go run ./internal/testsummary -report FILE                          # print the skips, then the failures, in FILE
//	go run ./internal/testsummary -fail STEP -skips FILE                # record a failed step (go vet, gofmt, ...)
//
// It exits 1 when a test or a package failed, so a pipeline with pipefail
// keeps the verdict.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	skipsFile := flag.String("skips", "", "append the skipped tests to `FILE` instead of printing them")
	report := flag.String("report", "", "print the skipped and failed tests recorded in `FILE` and exit")
	step := flag.String("fail", "", "record in the -skips file that `STEP` failed, and exit")
	flag.Parse()
	if *report != "" {
		data, err := os.ReadFile(*report)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
		skips, failures := splitRecord(splitLines(string(data)))
		printSkips(os.Stdout, skips)
		printFailures(os.Stdout, failures)
		return
	}
	if *step != "" {
		if err := appendLines(*skipsFile, []string{failPrefix + *step}); err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
		return
	}
	s, err := summarise(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if *skipsFile != "" {
		record := s.skips
		for _, f := range s.failures {
			record = append(record, failPrefix+f)
		}
		if err := appendLines(*skipsFile, record); err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
	} else {
		printSkips(os.Stdout, s.skips)
		printFailures(os.Stdout, s.failures)
	}
	if s.failed {
		os.Exit(1)
	}
}

// failPrefix marks a failure's line in the record file; a skip's line
// starts with its package path, which never holds a space.
const failPrefix = "FAIL "

func appendLines(file string, lines []string) error {
	if file == "" {
		return fmt.Errorf("no -skips FILE to record in")
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(f, l)
	}
	return f.Close()
}

// splitRecord separates a record file's skips from its failures.
func splitRecord(lines []string) (skips, failures []string) {
	for _, l := range lines {
		if f, ok := strings.CutPrefix(l, failPrefix); ok {
			failures = append(failures, f)
		} else {
			skips = append(skips, l)
		}
	}
	return skips, failures
}

// printFailures names what failed, as the last lines of the run.
func printFailures(w io.Writer, failures []string) {
	if len(failures) == 0 {
		return
	}
	fmt.Fprintf(w, "FAILED: %d\n", len(failures))
	for _, f := range failures {
		fmt.Fprintln(w, "  "+f)
	}
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func printSkips(w io.Writer, skips []string) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "skipped: none")
		return
	}
	fmt.Fprintf(w, "skipped: %d\n", len(skips))
	for _, l := range skips {
		fmt.Fprintln(w, "  "+l)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type summary struct {
	skips    []string
	failures []string // "package Test" or "package (reason)"
	failed   bool
}

// summarise copies to w what plain go test prints and collects the skips.
func summarise(r io.Reader, w io.Writer) (summary, error) {
	var s summary
	type key struct{ pkg, test string }
	buf := map[key][]string{}
	failedTests := map[string]int{} // per package
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go vet output, a build error on older Go): pass it on.
			fmt.Fprintln(w, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			s.failed = true
		case "output":
			switch {
			case e.Test == "":
				if strings.TrimSpace(e.Output) != "PASS" {
					fmt.Fprint(w, e.Output)
				}
			case strings.HasPrefix(e.Test, "Benchmark"):
				// go test shows a benchmark's results and logs, but not
				// the bare name line -v adds before each run.
				if !strings.HasPrefix(e.Output, "=== ") && strings.TrimSpace(e.Output) != e.Test {
					fmt.Fprint(w, e.Output)
				}
				buf[k] = append(buf[k], e.Output)
			default:
				buf[k] = append(buf[k], e.Output)
			}
		case "pass":
			if e.Test != "" {
				delete(buf, k)
			}
		case "skip":
			if e.Test != "" {
				s.skips = append(s.skips, e.Package+" "+e.Test+": "+reason(e.Test, buf[k]))
			}
			delete(buf, k)
		case "fail":
			s.failed = true
			if e.Test != "" {
				failedTests[e.Package]++
				s.failures = append(s.failures, e.Package+" "+e.Test)
			}
			if strings.HasPrefix(e.Test, "Benchmark") {
				delete(buf, k) // already shown
				continue
			}
			if e.Test != "" {
				printOutput(w, buf[k])
				delete(buf, k)
				continue
			}
			// The package failed: show what its unfinished tests printed
			// (a panic or a timeout ends them without their own event),
			// and name them. A benchmark that passed has no event of its
			// own either: its result line says it finished, and its output
			// was shown as it came.
			pkgBuf := map[string][]string{}
			for bk, lines := range buf {
				if bk.pkg == e.Package {
					pkgBuf[bk.test] = lines
					delete(buf, bk)
				}
			}
			var unfinished []string
			for test, lines := range pkgBuf {
				if strings.HasPrefix(test, "Benchmark") {
					if benchUnfinished(test, pkgBuf) {
						unfinished = append(unfinished, test)
					}
					continue
				}
				printOutput(w, lines)
				if test != "" && !strings.Contains(test, "/") {
					unfinished = append(unfinished, test)
				}
			}
			sort.Strings(unfinished)
			for _, t := range unfinished {
				s.failures = append(s.failures, e.Package+" "+t+" (did not finish: a panic or the -timeout)")
			}
			if failedTests[e.Package] == 0 && len(unfinished) == 0 {
				s.failures = append(s.failures, e.Package+" (failed outside any test: a build error, or a panic in init or TestMain)")
			}
		}
	}
	return s, sc.Err()
}

// benchUnfinished reports whether benchmark test of a failed package
// ended without finishing: neither it nor any of its sub-benchmarks
// printed a result line, and it is not a sub-benchmark of one that is
// named already (a parent with no result at all is named alone).
func benchUnfinished(test string, buf map[string][]string) bool {
	for t, lines := range buf {
		if (t == test || strings.HasPrefix(t, test+"/")) && hasResult(t, lines) {
			return false
		}
	}
	parent, _, nested := cutLast(test, "/")
	return !nested || !benchUnfinished(parent, buf)
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// hasResult reports whether lines hold benchmark test's result line:
// its name (with the -GOMAXPROCS suffix), the iteration count, then the
// figures ("BenchmarkE-2   \t       1\t      1733 ns/op").
func hasResult(test string, lines []string) bool {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 3 || (f[0] != test && !strings.HasPrefix(f[0], test+"-")) {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			return true
		}
	}
	return false
}

func printOutput(w io.Writer, lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(w, l)
		}
	}
}

// reason is the skip message a test logged, on one line.
func reason(test string, lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || t == test || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		// Drop the file:line: prefix the testing package adds.
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " / ")
}
