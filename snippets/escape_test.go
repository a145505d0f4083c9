package snippets

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retryspec/retryspec/internal/testenv"
)

// escapeCorpus is the strings every quoting function must carry through its
// target's own parser unchanged: quotes of every kind, escapes, interpolation
// openers, comment and line terminators, control bytes, non-ASCII text,
// astral characters, and random strings from a fixed seed.
func escapeCorpus() []string {
	fixed := []string{
		"", "plain", `"`, `'`, "`", `\`, `\\`, `\"`, `\'`, `'\''`, `"; rm -rf / #`,
		"$HOME", "${HOME}", "$(id)", "`id`", "#{exit}", "#@x", "#$y", "%s%d", "{{.X}}",
		"\\u0022", "\\u000a", `\x41`, "\\\n", "line\nbreak", "cr\rlf", "tab\there", "nul\x00byte",
		"\x01\x1f\x7f", "*/ /* // #", "--", "\u2028\u2029", "é ü ñ 日本 🎉", "\U0001F600\uFFFF",
		"</script>", "]]>", "?>", "a'b\"c`d$e\\f#g{h}i",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abc\"'`\\$#{}()\n\r\t\x00\x01\x7f é日🎉\u2028;|&<>*?~!%")
	for range 300 {
		n := r.IntN(24)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		fixed = append(fixed, b.String())
	}
	return fixed
}

// want is what a literal must read back as: invalid UTF-8 replaced, and for
// the shell, NUL dropped.
func want(s string, shell bool) string {
	s = validUTF8(s)
	if shell {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

func TestGoStringRoundTrip(t *testing.T) {
	for _, s := range append(escapeCorpus(), "\xff\xfe bad utf8") {
		lit := GoString(s)
		got, err := strconv.Unquote(lit)
		if err != nil || got != want(s, false) {
			t.Errorf("GoString(%q) = %s, reads back as %q (%v)", s, lit, got, err)
		}
		if !isASCII(lit) {
			t.Errorf("GoString(%q) = %s is not ASCII", s, lit)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// roundTrip writes a program printing each literal (hex-encoded, one per
// line) in the target language, runs it, and compares.
func roundTrip(t *testing.T, runtime string, quote func(string) string, shell bool, file string, program func(lits []string) string, args ...string) {
	t.Helper()
	testenv.LookPath(t, runtime)
	corpus := escapeCorpus()
	lits := make([]string, len(corpus))
	for i, s := range corpus {
		lits[i] = quote(s)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(program(lits)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(runtime, append(args, path)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", runtime, err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(corpus) {
		t.Fatalf("%s printed %d lines, want %d", runtime, len(lines), len(corpus))
	}
	for i, s := range corpus {
		got, err := hex.DecodeString(strings.TrimSpace(lines[i]))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if string(got) != want(s, shell) {
			t.Errorf("%s literal %s reads back as %q, want %q", runtime, lits[i], got, want(s, shell))
		}
	}
}

func TestPythonStringRoundTrip(t *testing.T) {
	roundTrip(t, "python3", PythonString, false, "lits.py", func(lits []string) string {
		var b strings.Builder
		for _, l := range lits {
			fmt.Fprintf(&b, "print((%s).encode('utf-8').hex())\n", l)
		}
		return b.String()
	})
}

func TestJSStringRoundTrip(t *testing.T) {
	roundTrip(t, "node", JSString, false, "lits.js", func(lits []string) string {
		var b strings.Builder
		for _, l := range lits {
			fmt.Fprintf(&b, "console.log(Buffer.from(%s, 'utf8').toString('hex'));\n", l)
		}
		return b.String()
	})
}

func TestRubyStringRoundTrip(t *testing.T) {
	roundTrip(t, "ruby", RubyString, false, "lits.rb", func(lits []string) string {
		var b strings.Builder
		b.WriteString("# encoding: utf-8\n")
		for _, l := range lits {
			fmt.Fprintf(&b, "puts((%s).unpack1('H*'))\n", l)
		}
		return b.String()
	})
}

func TestShellQuoteRoundTrip(t *testing.T) {
	roundTrip(t, "sh", ShellQuote, true, "lits.sh", func(lits []string) string {
		var b strings.Builder
		for _, l := range lits {
			fmt.Fprintf(&b, "printf '%%s' %s | od -An -tx1 | tr -d ' \\n'; echo\n", l)
		}
		return b.String()
	})
}

func TestShellQuoteGoReading(t *testing.T) {
	// Without a shell: a POSIX reading of single-quoted words and \' outside.
	for _, s := range escapeCorpus() {
		lit := ShellQuote(s)
		got, ok := readShellWord(lit)
		if !ok || got != want(s, true) {
			t.Errorf("ShellQuote(%q) = %s reads back as %q (ok %v)", s, lit, got, ok)
		}
	}
}

// readShellWord reads one word made of single-quoted runs and backslash
// escapes, which is all ShellQuote emits.
func readShellWord(w string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(w); {
		switch w[i] {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case '\\':
			if i+1 >= len(w) {
				return "", false
			}
			b.WriteByte(w[i+1])
			i += 2
		default:
			return "", false // anything unquoted could be expanded
		}
	}
	return b.String(), true
}

func TestJavaStringRoundTrip(t *testing.T) {
	testenv.LookPath(t, "javac")
	roundTrip(t, "java", JavaString, false, "Lits.java", func(lits []string) string {
		var b strings.Builder
		b.WriteString("import java.nio.charset.StandardCharsets;\npublic class Lits {\n  static void p(String s) {\n" +
			"    StringBuilder h = new StringBuilder();\n    for (byte x : s.getBytes(StandardCharsets.UTF_8)) h.append(String.format(\"%02x\", x));\n" +
			"    System.out.println(h);\n  }\n  public static void main(String[] a) {\n")
		for _, l := range lits {
			fmt.Fprintf(&b, "    p(%s);\n", l)
		}
		b.WriteString("  }\n}\n")
		return b.String()
	})
}

// TestQuotesEmitNoRawControl: no literal carries a raw newline or control
// byte, so a value can never end a comment line or a statement early.
func TestQuotesEmitNoRawControl(t *testing.T) {
	for name, q := range quoters {
		if name == "ShellQuote" {
			continue // a single-quoted shell word holds a newline as is, and means it
		}
		for _, s := range escapeCorpus() {
			lit := q(s)
			for _, r := range lit {
				if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
					t.Errorf("%s quote of %q holds raw %U", name, s, r)
				}
			}
		}
	}
}
