package hostiletest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigContract is the sound example with n more keyed endpoints and another
// API name, so its site differs from the example's on every page.
func bigContract(t testing.TB, name string, n int) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(), soundContract))
	if err != nil {
		t.Fatal(err)
	}
	head, tail, ok := strings.Cut(string(src), "endpoints:\n")
	if !ok {
		t.Fatal("example has no endpoints")
	}
	var b strings.Builder
	b.WriteString(strings.Replace(head, "name: Lumapay", "name: "+name, 1))
	b.WriteString("endpoints:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - operation: POST /v1/r%d/{id}/items\n    effect: create\n    key: required\n    external_calls: []\n", i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// TestKilledBuildKeepsPreviousSite builds a site, then starts builds of a
// much larger contract and SIGKILLs them: at random moments, and the moment
// the temporary output folder holds some files. After every kill the
// output folder is exactly one complete site, the previous one or (if the
// swap had happened) the new one: never missing, never a mix.
func TestKilledBuildKeepsPreviousSite(t *testing.T) {
	if placeholder(t, "build") {
		t.Skip("SKIPPED: build is not implemented on this branch yet")
	}
	sb := newSandbox(t)
	mustWrite(t, filepath.Join(sb.work, "old.yaml"), bigContract(t, "Previous", 0))
	mustWrite(t, filepath.Join(sb.work, "new.yaml"), bigContract(t, "Killed", 9_990))
	out := filepath.Join(sb.work, "out")

	build := func(contract string) result {
		return run(t, sb, 0, "build", "-c", contract, "--out", "out")
	}
	if r := build("new.yaml"); r.code != 0 {
		t.Fatalf("build new.yaml: exit %d\n%s", r.code, r.stderr)
	} else {
		t.Logf("a full build of the 9,993-endpoint contract: %v wall, %v CPU", r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond))
	}
	newSite := snapshot(t, out)
	if r := build("old.yaml"); r.code != 0 {
		t.Fatalf("build old.yaml: exit %d\n%s", r.code, r.stderr)
	}
	oldSite := snapshot(t, out)
	if maps.Equal(oldSite, newSite) {
		t.Fatal("the two contracts build the same site; the test could not tell them apart")
	}

	outcomes := map[string]int{}
	for i := 0; i < 16; i++ {
		cmd := exec.Command(binary(t), "build", "-c", "new.yaml", "--out", "out")
		cmd.Dir = sb.work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + sb.home, "TMPDIR=" + sb.tmp}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		how := ""
		if i%2 == 0 {
			// Wait for the temporary folder to fill (or the build to
			// end), then kill: events, not a clock.
			how = "while writing"
		poll:
			for {
				select {
				case <-exited:
					break poll
				default:
				}
				if tmpFiles(sb.work) >= 5 {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
		} else {
			how = "at a random moment"
			time.Sleep(time.Duration(i*97%1000) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		killed := false
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed = true
		}
		got := snapshot(t, out)
		switch {
		case maps.Equal(got, oldSite):
			outcomes[fmt.Sprintf("killed %s: previous site intact", how)]++
		case maps.Equal(got, newSite):
			outcomes[fmt.Sprintf("killed %s (killed=%v): new site complete", how, killed)]++
		default:
			t.Fatalf("after SIGKILL %s the output is neither the previous site nor the new one:\n%s", how, snapshotDiff(oldSite, got))
		}
		// Put the previous site back for the next round.
		if !maps.Equal(got, oldSite) {
			if r := build("old.yaml"); r.code != 0 {
				t.Fatalf("rebuild old.yaml: exit %d\n%s", r.code, r.stderr)
			}
		}
	}
	t.Logf("outcomes: %v", outcomes)
	intact := 0
	for k, n := range outcomes {
		if strings.Contains(k, "previous site intact") {
			intact += n
		}
	}
	if intact == 0 {
		t.Error("no kill landed before the swap; the test did not exercise a build midway")
	}
	if n := leftovers(t, sb.work); n > 0 {
		t.Logf("%d temporary folders left beside the output by killed builds (harmless: dot-named, never read)", n)
	}
}

// tmpFiles counts files in the build's temporary output folders.
func tmpFiles(dir string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".out.tmp-") && !strings.HasSuffix(e.Name(), ".old") {
			sub, _ := os.ReadDir(filepath.Join(dir, e.Name()))
			n += len(sub)
		}
	}
	return n
}

func leftovers(t testing.TB, dir string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".out.tmp-") {
			n++
		}
	}
	return n
}

func mustWrite(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshotDiff lists the entries that differ between two snapshots.
func snapshotDiff(a, b map[string]entry) string {
	var out []string
	for p, e := range a {
		if f, ok := b[p]; !ok {
			out = append(out, "- "+p)
		} else if f != e {
			out = append(out, "~ "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "+ "+p)
		}
	}
	sort.Strings(out)
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("... and %d more", len(out)-40))
	}
	return strings.Join(out, "\n")
}
