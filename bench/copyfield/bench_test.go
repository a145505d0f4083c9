package copyfield

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/internal/testenv"
)

// BenchmarkMatchBuffer measures matching over one Markdown buffer in
// memory (no I/O): the NServiceBus and NATS docs concatenated, all rules,
// the example contract loaded.
func BenchmarkMatchBuffer(b *testing.B) {
	buf := matchBuffer(b)
	c := exampleContract(b)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copylint.LintSource(c, "all.md", buf)
	}
}

// BenchmarkLintCorpus lints the shared corpora from disk with all rules
// (or the folder in $RETRYSPEC_BENCH_DIR, such as bench/copy.sh's), and
// reports the heap in use after the run (heap-MB), which stays flat as the
// corpus grows: files are read one at a time per worker.
func BenchmarkLintCorpus(b *testing.B) { lintCorpus(b, false) }

// BenchmarkLintCorpusLearned is BenchmarkLintCorpus with the shipped
// learned reader on: its cost on whole files, where it also decides which
// files are parsed.
func BenchmarkLintCorpusLearned(b *testing.B) { lintCorpus(b, true) }

func lintCorpus(b *testing.B, learned bool) {
	dir := os.Getenv("RETRYSPEC_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(testenv.SharedData(b), "corpus")
	}
	c := exampleContract(b)
	var st copylint.Stats
	var peak uint64
	for i := 0; i < b.N; i++ {
		if _, err := copylint.Lint(context.Background(), c, []string{dir}, copylint.Options{Stats: &st, Learned: &learned}); err != nil {
			b.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak {
			peak = ms.HeapInuse
		}
	}
	b.SetBytes(st.Bytes)
	b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
}

func exampleContract(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
