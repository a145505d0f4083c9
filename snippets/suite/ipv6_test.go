package suite

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
)

// TestSnippetsProvenOverIPv6 runs every language's snippet against the
// fault server at an IPv6 loopback base URL (http://[::1]:PORT), through
// a success after retries and a give-up: the scenarios that send more than
// one request to the host the snippet parsed. On the original main the
// Ruby snippet passed uri.host ("[::1]", brackets kept) to Net::HTTP and
// could not connect, and curl without -g read the brackets as a glob
// (issue 13 item 6).
func TestSnippetsProvenOverIPv6(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		testenv.Missing(t, "an IPv6 loopback interface (::1): "+err.Error())
		return
	} else {
		ln.Close()
	}
	var langs []string
	for _, l := range snippets.Languages() {
		if available(t, l) {
			langs = append(langs, l.Name)
		}
	}
	if len(langs) == 0 {
		return
	}
	c := loadExample(t)
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	list, _ := Scenarios(p)
	for _, sc := range list {
		if strings.HasPrefix(sc.Name, "recover-after-") || sc.Name == "give-up-at-max-attempts" {
			names = append(names, sc.Name)
		}
	}
	if len(names) != 2 {
		t.Fatalf("scenarios %v: want recover-after-N and give-up-at-max-attempts", names)
	}
	cache := cacheDir()
	rep, err := Run(context.Background(), c, Options{
		Languages: langs,
		Runner:    run.Exec{},
		Vars: map[string]string{
			"jars":      filepath.Join(cache, "jars") + "/*",
			"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
			"typeroots": filepath.Join(cache, "node_modules", "@types"),
		},
		Scenarios: names,
		Host:      "::1",
		Parallel:  2, MaxProcs: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if !o.Passed() {
			t.Errorf("%s %s at http://[::1]:PORT: %v", o.Language, o.Scenario, o.Problems)
		}
	}
	if passed, _ := rep.Counts(); passed < len(langs)*len(names) {
		t.Errorf("only %d outcomes passed for %d languages × %d scenarios", passed, len(langs), len(names))
	}
}
