// Package golden is the one place tests compare their output with a
// checked-in file, and the one place the -update flag is declared: `go test
// ./PKG -update` rewrites the golden files, scripts and generated files
// PKG's tests own, and a plain run reports each difference as a diff with
// the command that rewrites it. Only tests import it.
//
// A test binary rejects a flag it does not declare, so `go test ./...
// -update` fails in every package whose tests have no golden file;
// RETRYSPEC_UPDATE=1 in the environment means -update in every package
// that has one: `RETRYSPEC_UPDATE=1 go test ./...`.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files, testscript scripts and checked-in generated files from what the code produces")

// Update reports whether the test run was asked to rewrite its files
// (-update or RETRYSPEC_UPDATE=1), for tests whose files are not a plain
// compare, such as testscript's UpdateScripts.
func Update() bool { return *update || os.Getenv("RETRYSPEC_UPDATE") == "1" }

// Check compares got with the file at path. With -update it writes got
// there instead, creating the folders it needs, and the test goes on.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it after you review the change):\n%s", path, diff)
	}
}

// CheckDir compares a whole tree: got maps slash-separated paths relative
// to dir to their content. Files missing on either side are differences.
// With -update, dir is replaced by exactly the files in got.
func CheckDir(t testing.TB, dir string, got map[string][]byte) {
	t.Helper()
	if Update() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for p, b := range got {
			Write(t, filepath.Join(dir, filepath.FromSlash(p)), b)
		}
		return
	}
	want := ReadDir(t, dir)
	for _, p := range sortedKeys(want) {
		if _, ok := got[p]; !ok {
			t.Errorf("%s: golden file no longer produced (go test -update removes it)", filepath.Join(dir, p))
		}
	}
	for _, p := range sortedKeys(got) {
		w, ok := want[p]
		if !ok {
			t.Errorf("%s: produced but has no golden file (go test -update writes it)", filepath.Join(dir, p))
			continue
		}
		if diff := cmp.Diff(string(w), string(got[p])); diff != "" {
			t.Errorf("%s differs from its golden file (-want +got; go test -update rewrites it):\n%s", filepath.Join(dir, p), diff)
		}
	}
}

// ReadDir returns every regular file under dir, keyed by its slash-separated
// path relative to dir.
func ReadDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Write writes data to path, creating its folders; for tests that generate
// checked-in files under -update (see Update).
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
