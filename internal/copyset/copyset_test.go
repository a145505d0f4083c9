package copyset

import (
	"os"
	"path/filepath"
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
