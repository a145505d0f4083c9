package hostiletest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCopyEvasions (issue 13 item 3): text a reader takes for
// "exactly-once" is a claim however its bytes spell it. Each case is a
// Markdown and an HTML page whose third line makes the claim through one
// evasion; `copy` must report copy/exactly-once on that line, and its
// plain twin must agree, so the case cannot pass by the claim being found
// somewhere else.
func TestCopyEvasions(t *testing.T) {
	sb := newSandbox(t)
	cases := []struct{ name, claim string }{
		{"plain", "exactly-once"},
		{"decimal-reference", "e&#120;actly-once"},
		{"hex-reference", "e&#x78;actly-once"},
		{"shy-reference", "ex&shy;actly-once"},
		{"zwsp-named", "exa&ZeroWidthSpace;ctly-once"},
		{"zwsp-hex", "exact&#x200B;ly-once"},
		{"zwsp-raw", "exac\u200btly-once"},
		{"soft-hyphen-raw", "exact\u00adly-once"},
		{"word-joiner", "exactly\u2060-once"},
		{"cyrillic-a", "ex\u0430ctly-once"},
		{"cyrillic-e-o", "\u0435xactly-\u043ence"},
		{"greek-omicron", "exactly-\u03bfnce"},
		{"fullwidth", "\uff45\uff58\uff41\uff43\uff54\uff4c\uff59-once"},
		{"math-bold", "\U0001d41e\U0001d431\U0001d41a\U0001d41c\U0001d42d\U0001d425\U0001d432-once"},
		{"rlo-reversed", "\u202eecno-yltcaxe\u202c"},
		{"br-between", "exactly-once<br>delivery"},
		{"br-self-closing", "exactly-once<br/>delivery"},
	}
	type out struct {
		Findings []struct {
			Rule string `json:"rule"`
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"findings"`
	}
	for _, tc := range cases {
		for _, ext := range []string{".md", ".html"} {
			name := "evasion-" + tc.name + ext
			body := "# Delivery\n\nLumapay guarantees " + tc.claim + " delivery for every transfer.\n"
			if ext == ".html" {
				body = "<h1>Delivery</h1>\n\n<p>Lumapay guarantees " + tc.claim + " delivery for every transfer.</p>\n"
			}
			if err := os.WriteFile(filepath.Join(sb.work, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, sb, 0, "copy", "--format", "json", name)
			checkNoCrash(t, name, r)
			checkBounds(t, name, r)
			var o out
			if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
				t.Errorf("%s: output is not JSON (%v): %s", name, err, r.stdout)
				continue
			}
			found := false
			for _, f := range o.Findings {
				if f.Rule == "copy/exactly-once" && f.Line == 3 {
					found = true
				}
			}
			if !found || r.code != 1 {
				t.Errorf("%s: the claim on line 3 is not reported (exit %d): %+v\n%s", name, r.code, o.Findings, r.stderr)
			}
		}
	}
}

// TestCopyEvasionsStayHonest: the normaliser does not turn honest text
// into a claim. Accented letters stay letters of their language, and a
// denial written with the same tricks is still a denial.
func TestCopyEvasionsStayHonest(t *testing.T) {
	sb := newSandbox(t)
	for name, body := range map[string]string{
		"accents.md":        "# Café\n\nLa livraison exacte n'est pas garantie: déjà vu.\n",
		"denial.md":         "# Delivery\n\nThere is no e&#120;actly-once delivery over a network.\n",
		"denial-cyr.html":   "<p>Ex\u0430ctly-once delivery is impossible across an unreliable network.</p>\n",
		"snake.md":          "# Config\n\nSet `processing.guarantee` to `exactly_once_v2` for Streams.\n",
		"zwsp-elsewhere.md": "# Keys\n\nSend one key\u200b per request.\n",
	} {
		if err := os.WriteFile(filepath.Join(sb.work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, sb, 0, "copy", name)
		checkNoCrash(t, name, r)
		if r.code != 0 {
			t.Errorf("%s: honest text flagged (exit %d):\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
}
