package contract

import (
	"regexp"
	"strings"
	"testing"
)

// paramRE is an independent statement of what PathShape does: every
// {name}, a name without braces, becomes {}.
var paramRE = regexp.MustCompile(`\{[^{}]*\}`)

// FuzzPathShape: the path-template matcher. On any input PathShape never
// panics, is idempotent and agrees with paramRE. On paths the contract
// accepts, it also keeps every literal segment and the segment count, and two
// paths that differ only in parameter names get the same shape. Seeds:
// testdata/fuzz/FuzzPathShape.
func FuzzPathShape(f *testing.F) {
	for _, s := range []string{"/v1/transfers", "/v1/transfers/{id}", "/v1/{a}/{b}/x", "/{a}{b}", "/a{b", "/a}b{", "/{}", "/v1/{id}.json", "{{x}}", "/x/{ä}", "/v1/transfers/{{}", "/a/{{id}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		shape := PathShape(path)
		if again := PathShape(shape); again != shape {
			t.Fatalf("PathShape not idempotent: %q -> %q -> %q", path, shape, again)
		}
		// Spec paths are not held to the contract's grammar, so the two
		// must agree on any input ("/x/{{id}" keeps its first brace).
		if want := paramRE.ReplaceAllString(path, "{}"); shape != want {
			t.Fatalf("PathShape(%q) = %q, want %q", path, shape, want)
		}
		if _, p, err := ParseOperation("POST " + path); err != nil || p != path {
			return
		}
		segs, shapeSegs := strings.Split(path, "/"), strings.Split(shape, "/")
		if len(segs) != len(shapeSegs) {
			t.Fatalf("PathShape(%q) = %q changes the segment count", path, shape)
		}
		for i, s := range segs {
			if !strings.Contains(s, "{") && s != shapeSegs[i] {
				t.Fatalf("PathShape(%q) = %q changes literal segment %q", path, shape, s)
			}
		}
		renamed := paramRE.ReplaceAllStringFunc(path, func(string) string { return "{renamed_param}" })
		if PathShape(renamed) != shape {
			t.Fatalf("%q and %q differ only in names but shape as %q and %q", path, renamed, shape, PathShape(renamed))
		}
	})
}
