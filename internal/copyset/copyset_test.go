package copyset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"good.tsv": "# comment\nfamily\tverdict\tsource\tsentence\nkeyless-retry\tclaim\tStripe\tNo key needed.\nkeyless-retry\tclean\tStripe\tSend the key.\n",
		"bad.tsv":  "# comment\nkeyless-retry\tclaim\tNo key needed.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := Read(dir, "good")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Line != 3 || !rows[0].Claim() || rows[1].Claim() || rows[1].Sentence != "Send the key." || rows[0].Set != "good" {
		t.Errorf("rows %+v", rows)
	}
	_, err = Read(dir, "bad")
	if err == nil || !strings.Contains(err.Error(), "bad.tsv:2:1: want family, verdict, source, sentence") {
		t.Errorf("bad row: %v", err)
	}
	if _, err := ReadAll(dir, []string{"good", "missing"}); err == nil {
		t.Error("a missing set reads")
	}
}

// TestTrainingSets: the shipped reader trains on every measured set and
// the training-only sets; a training-only set is never a fold, every set
// that chooses the threshold (RulesNeverTuned) is a fold, and
// every training-only set (neutral.tsv, neutral2.tsv, neutral3.tsv) holds only clean
// sentences (at least 200), each under a family of the measured sets.
func TestTrainingSets(t *testing.T) {
	all := TrainingSets()
	if len(all) != len(Sets)+len(Training) || !slices.Contains(all, "neutral") || !slices.Contains(all, "neutral2") || !slices.Contains(all, "neutral3") {
		t.Fatalf("TrainingSets %v", all)
	}
	for _, s := range Training {
		if slices.Contains(Sets, s) {
			t.Errorf("%s is both a fold and a training-only set", s)
		}
	}
	for _, s := range RulesNeverTuned {
		if !slices.Contains(Sets, s) {
			t.Errorf("%s chooses the threshold but is not among Sets: its fold would be read from no set the reader trains on", s)
		}
	}
	dir := filepath.Join("..", "..", "bench", "copyfield")
	measured, err := ReadAll(dir, Sets)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	for _, rows := range measured {
		for _, r := range rows {
			families[r.Family] = true
		}
	}
	for _, set := range Training {
		rows, err := Read(dir, set)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 200 {
			t.Errorf("%s.tsv holds %d sentences, want at least 200", set, len(rows))
		}
		for _, r := range rows {
			if r.Verdict != "clean" || !families[r.Family] {
				t.Errorf("%s.tsv:%d: %s %s, want clean under a family of the measured sets", set, r.Line, r.Family, r.Verdict)
			}
		}
	}
}
