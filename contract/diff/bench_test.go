package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/testenv"
)

// bigContract is full.yaml with n more endpoints, up to the size the loader
// accepts (50,000 endpoints, 250,000 lines and list items).
func bigContract(t testing.TB, n int, window string) []byte {
	var b strings.Builder
	b.WriteString(strings.Replace(string(mustRead(t, "full.yaml")), "replay_window: 24h", "replay_window: "+window, 1))
	out := b.String()
	var eps strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&eps, "  - operation: POST /v1/things%d/{id}\n    effect: create\n    key: required\n", i)
	}
	return []byte(strings.Replace(out, "endpoints:\n", "endpoints:\n"+eps.String(), 1))
}

func mustRead(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompareLargeContract(t *testing.T) {
	if testing.Short() {
		t.Skip("large contract")
	}
	old := parse(t, "old.yaml", bigContract(t, 49_997, "24h"))
	new := parse(t, "new.yaml", bigContract(t, 49_997, "12h"))
	cpu0 := testenv.CPUTime()
	cs := Compare(old, new)
	took := testenv.CPUTime() - cpu0
	if len(cs) != 1 || cs[0].Row != "idempotency.replay_window" {
		t.Fatalf("got %d changes", len(cs))
	}
	t.Logf("Compare on 50,000 endpoints: %v CPU", took)
	// CPU time, ten times the figure measured under -race on a loaded
	// machine (11 s): catches a comparison gone quadratic, and other load
	// on the machine cannot fail it as the old 10 s wall-clock limit could.
	if took > 120*time.Second {
		t.Errorf("Compare took %v of CPU time on 50,000 endpoints, bound 120s", took)
	}
}
