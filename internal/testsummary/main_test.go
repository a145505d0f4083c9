package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The streams in testdata were recorded with go test -json -bench .
// -benchtime 1x on testdata/sample_test.go.txt: TestC failing (fail.json)
// or passing (pass.json).

func run(t *testing.T, file string) (string, summary) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	s, err := summarise(f, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), s
}

func TestPassingRun(t *testing.T) {
	out, s := run(t, "testdata/pass.json")
	if s.failed {
		t.Error("a passing run reported as failed")
	}
	for _, bad := range []string{"--- FAIL", "=== RUN", "--- PASS", "hello", "\nBenchmarkE\n"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q, which plain go test does not print:\n%s", bad, out)
		}
	}
	for _, want := range []string{"BenchmarkE-2", "FIELD DATA ABSENT: x", "ok  \tsk\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	want := []string{"sk TestB: SKIPPED: python3 is missing", "sk BenchmarkD: FIELD DATA ABSENT: x"}
	if diff := cmp.Diff(want, s.skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestFailingRun(t *testing.T) {
	out, s := run(t, "testdata/fail.json")
	if !s.failed {
		t.Error("a failing run reported as passed")
	}
	for _, want := range []string{"--- FAIL: TestC/sub", "--- FAIL: TestC ", "a_test.go:5: boom", "FAIL\tsk\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hello") {
		t.Errorf("a passing test's log is shown:\n%s", out)
	}
}

func TestNotJSONPassesThrough(t *testing.T) {
	var out strings.Builder
	s, err := summarise(strings.NewReader("# github.com/x/y\nvet: oops\n"), &out)
	if err != nil || s.failed {
		t.Fatalf("err %v, failed %v", err, s.failed)
	}
	if out.String() != "# github.com/x/y\nvet: oops\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestPrintSkips(t *testing.T) {
	var b strings.Builder
	printSkips(&b, nil)
	printSkips(&b, []string{"p TestX: why"})
	if want := "skipped: none\nskipped: 1\n  p TestX: why\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestFailuresNamedLast (issue 28): the failed tests are collected, in
// the order they failed, and the report prints them after the skips, so
// the last lines of `make test` say what broke.
func TestFailuresNamedLast(t *testing.T) {
	_, s := run(t, "testdata/fail.json")
	if diff := cmp.Diff([]string{"sk TestC/sub", "sk TestC"}, s.failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if _, pass := run(t, "testdata/pass.json"); len(pass.failures) != 0 {
		t.Errorf("a passing run names failures: %q", pass.failures)
	}
	record := filepath.Join(t.TempDir(), "record")
	if err := appendLines(record, append([]string{"sk TestB: why"}, failPrefix+"sk TestC", failPrefix+"go vet ./...")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(record)
	skips, failures := splitRecord(splitLines(string(data)))
	var b strings.Builder
	printSkips(&b, skips)
	printFailures(&b, failures)
	want := "skipped: 1\n  sk TestB: why\nFAILED: 2\n  sk TestC\n  go vet ./...\n"
	if b.String() != want {
		t.Errorf("report %q, want %q", b.String(), want)
	}
}

// TestUnfinishedTestsNamed: a package that ends in a panic or go test's
// -timeout gives its running tests no fail event of their own; they are
// named all the same.
func TestUnfinishedTestsNamed(t *testing.T) {
	stream := `{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"panic: test timed out after 1m0s\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t60.0s\n"}
{"Action":"fail","Package":"p"}
{"Action":"fail","Package":"q"}
`
	var out strings.Builder
	s, err := summarise(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p TestHang (did not finish: a panic or the -timeout)", "q (failed outside any test: a build error, or a panic in init or TestMain)"}
	if diff := cmp.Diff(want, s.failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// TestFailedBenchmarkPackage: in a benchmark package that failed, a
// benchmark that printed its result line finished (a passing benchmark has
// no event of its own); only those with no result, in themselves or in a
// sub-benchmark, are named as unfinished, and a sub-benchmark only when
// its parent has results.
func TestFailedBenchmarkPackage(t *testing.T) {
	out := func(test, text string) string {
		return `{"Action":"output","Package":"b","Test":"` + test + `","Output":"` + text + `\n"}` + "\n"
	}
	run := func(test string) string {
		return `{"Action":"run","Package":"b","Test":"` + test + `"}` + "\n" + out(test, "=== RUN   "+test) + out(test, test)
	}
	result := func(test string) string { return out(test, test+`-2   \t       5\t      1733 ns/op`) }
	end := `{"Action":"output","Package":"b","Output":"FAIL\tb\t1.0s\n"}` + "\n" + `{"Action":"fail","Package":"b"}` + "\n"
	for _, tc := range []struct {
		name   string
		stream string
		want   []string
	}{
		{"results printed, then a panic", run("BenchmarkA") + result("BenchmarkA") + run("BenchmarkB") + out("BenchmarkB", "panic: boom") + end,
			[]string{"b BenchmarkB (did not finish: a panic or the -timeout)"}},
		{"every benchmark has a result", run("BenchmarkA") + result("BenchmarkA") + run("BenchmarkB") + result("BenchmarkB") + end,
			[]string{"b (failed outside any test: a build error, or a panic in init or TestMain)"}},
		{"one sub-benchmark of two finished", run("BenchmarkA") + run("BenchmarkA/small") + result("BenchmarkA/small") + run("BenchmarkA/large") + end,
			[]string{"b BenchmarkA/large (did not finish: a panic or the -timeout)"}},
		{"no sub-benchmark finished", run("BenchmarkA") + run("BenchmarkA/small") + end,
			[]string{"b BenchmarkA (did not finish: a panic or the -timeout)"}},
		{"a failed benchmark beside one that finished", run("BenchmarkA") + result("BenchmarkA") + run("BenchmarkB") +
			`{"Action":"fail","Package":"b","Test":"BenchmarkB"}` + "\n" + end,
			[]string{"b BenchmarkB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			s, err := summarise(strings.NewReader(tc.stream), &w)
			if err != nil {
				t.Fatal(err)
			}
			if !s.failed {
				t.Error("the failed package reported as passed")
			}
			if diff := cmp.Diff(tc.want, s.failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}
