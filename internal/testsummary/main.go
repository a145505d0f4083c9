// Command testsummary reads `go test -json` on stdin and prints what plain
// `go test` would (package verdicts, the output of failed tests, benchmark
// results), then a summary of every skipped test with its reason. Without
// it a skip is invisible unless go test runs with -v, which is how tests
// that silently depended on data outside the repository went unnoticed.
//
//	go test -json ./... | go run ./internal/testsummary
//	go test -json ./... | go run ./internal/testsummary -skips FILE   # append the skips to FILE instead
//	go run ./internal/testsummary -report FILE                          # print the skips in FILE
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
	"strings"
)

func main() {
	skipsFile := flag.String("skips", "", "append the skipped tests to `FILE` instead of printing them")
	report := flag.String("report", "", "print the skipped tests recorded in `FILE` and exit")
	flag.Parse()
	if *report != "" {
		data, err := os.ReadFile(*report)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
		printSkips(os.Stdout, splitLines(string(data)))
		return
	}
	s, err := summarise(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if *skipsFile != "" {
		f, err := os.OpenFile(*skipsFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			for _, l := range s.skips {
				fmt.Fprintln(f, l)
			}
			err = f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
	} else {
		printSkips(os.Stdout, s.skips)
	}
	if s.failed {
		os.Exit(1)
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
	skips  []string
	failed bool
}

// summarise copies to w what plain go test prints and collects the skips.
func summarise(r io.Reader, w io.Writer) (summary, error) {
	var s summary
	type key struct{ pkg, test string }
	buf := map[key][]string{}
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
			// (a panic or a timeout ends them without their own event).
			for bk, lines := range buf {
				if bk.pkg == e.Package {
					printOutput(w, lines)
					delete(buf, bk)
				}
			}
		}
	}
	return s, sc.Err()
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
