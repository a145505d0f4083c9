package openapi

import (
	"fmt"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// FuzzMerge: any input either fails to load with a *LoadError or merges
// into a spec that keeps every input line and loads again. Never a panic.
func FuzzMerge(f *testing.F) {
	for _, p := range []string{"testdata/small.yaml", "testdata/small.json", "testdata/anchors.yaml"} {
		f.Add([]byte(mustRead(f, p)))
	}
	f.Add([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post: {responses: {'200': {description: ok}}}\n"))
	f.Add([]byte("{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/v1/transfers\":{\"post\":{\"responses\":{}}}}}"))
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testenv.Watchdog(testenv.HangCPU, func() string { return fmt.Sprintf("merge hangs on input:\n%q", data) })()
		s, err := Parse("spec.yaml", data, LoadOptions{})
		if err != nil {
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("error is not a *LoadError: %T %v", err, err)
			}
			return
		}
		merged, err := Merged(s, NewPlan(c, s))
		if err != nil {
			return // an edit the text cannot take is reported, not a crash
		}
		if _, err := Parse("merged.yaml", merged, LoadOptions{SkipValidation: true}); err != nil {
			t.Fatalf("merged spec does not load: %v\n--- input\n%s\n--- merged\n%s", err, data, merged)
		}
	})
}
