package copylint

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestFieldExactlyOnce measures copy/exactly-once against hand labels of
// real mentions in the shared corpora (Kafka, NATS, NServiceBus docs):
// testdata/field/exactly-once-labels.tsv. A "claim" line must fire, every
// other label must pass. It reports precision and recall and fails when
// either drops below the floor recorded here (the measured figures, less a
// little slack for rule changes that trade one for the other).
func TestFieldExactlyOnce(t *testing.T) {
	const minPrecision, minRecall = 0.90, 0.85
	corpus := filepath.Join(testenv.SharedData(t), "corpus")
	f, err := os.Open(filepath.Join("testdata", "field", "exactly-once-labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type label struct {
		path, label, reason string
		line                int
	}
	var labels []label
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 4 {
			t.Fatalf("bad label line %q", line)
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("bad line number in %q", line)
		}
		switch parts[2] {
		case "claim", "qualified", "denied", "other":
		default:
			t.Fatalf("unknown label %q", parts[2])
		}
		labels = append(labels, label{parts[0], parts[2], parts[3], n})
	}
	if len(labels) < 50 {
		t.Fatalf("only %d labels; the field test needs at least 50", len(labels))
	}
	fired := map[string]map[int]bool{}
	for _, l := range labels {
		if fired[l.path] != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpus, l.path))
		if err != nil {
			t.Fatal(err)
		}
		fired[l.path] = map[int]bool{}
		for _, fd := range LintSource(nil, l.path, data) {
			if fd.Rule == RuleExactlyOnce {
				fired[l.path][fd.Line] = true
			}
		}
	}
	var tp, fp, fn, tn int
	for _, l := range labels {
		got := fired[l.path][l.line]
		want := l.label == "claim"
		switch {
		case got && want:
			tp++
		case got && !want:
			fp++
			t.Logf("false positive (%s: %s): %s:%d", l.label, l.reason, l.path, l.line)
		case !got && want:
			fn++
			t.Logf("missed claim (%s): %s:%d", l.reason, l.path, l.line)
		default:
			tn++
		}
	}
	precision := float64(tp) / float64(tp+fp)
	recall := float64(tp) / float64(tp+fn)
	t.Logf("field test, %d labelled mentions: tp=%d fp=%d fn=%d tn=%d precision=%.2f recall=%.2f", len(labels), tp, fp, fn, tn, precision, recall)
	if precision < minPrecision || recall < minRecall {
		t.Errorf("precision %.2f / recall %.2f below the floor %.2f / %.2f", precision, recall, minPrecision, minRecall)
	}
}
