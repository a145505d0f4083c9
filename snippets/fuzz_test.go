package snippets

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/retryspec/retryspec/internal/testenv"
)

// Fuzz targets for the quoting functions, one per target language: for any
// string, the literal read back by the language's own parser is the string
// (invalid UTF-8 replaced, as documented). Python, JavaScript and Ruby read
// through one long-lived interpreter each (a line in, the value's UTF-8 as
// hex out), so a fuzz run is not a process per input; the shell runs
// `sh -c 'printf %s <literal>'`; Go uses strconv.Unquote; Java uses an
// independent decoder of the Java language rules (JLS 3.3 and 3.10.7),
// since a JVM per input is too slow (TestJavaStringRoundTrip covers javac).
// Seeds: testdata/fuzz/<Target> and escapeCorpus.

func addCorpus(f *testing.F) {
	for _, s := range escapeCorpus()[:60] {
		f.Add(s)
	}
}

func FuzzGoString(f *testing.F) {
	addCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		lit := GoString(s)
		got, err := strconv.Unquote(lit)
		if err != nil || got != want(s, false) {
			t.Fatalf("GoString(%q) = %s reads back as %q, %v", s, lit, got, err)
		}
	})
}

func FuzzShellQuote(f *testing.F) {
	addCorpus(f)
	sh := testenv.LookPath(f, "sh")
	f.Fuzz(func(t *testing.T, s string) {
		lit := ShellQuote(s)
		out, err := exec.Command(sh, "-c", "printf %s "+lit).Output()
		if err != nil || string(out) != want(s, true) {
			t.Fatalf("ShellQuote(%q) = %s: sh printed %q, %v", s, lit, out, err)
		}
	})
}

func FuzzPythonString(f *testing.F) {
	fuzzREPL(f, PythonString, "python3", "-c", `import sys, ast
for line in sys.stdin:
    try:
        v = ast.literal_eval(line[:-1])
        if not isinstance(v, str):
            raise ValueError("not a str: %r" % type(v))
        print("OK " + v.encode("utf-8", "surrogatepass").hex(), flush=True)
    except Exception as e:
        print("ERR " + repr(e).replace("\n", " "), flush=True)
`)
}

func FuzzJSString(f *testing.F) {
	fuzzREPL(f, JSString, "node", "-e", `const vm = require("vm");
require("readline").createInterface({input: process.stdin}).on("line", (l) => {
  try {
    const v = vm.runInNewContext(l, Object.create(null), {timeout: 1000});
    if (typeof v !== "string") throw new Error("not a string: " + typeof v);
    process.stdout.write("OK " + Buffer.from(v, "utf8").toString("hex") + "\n");
  } catch (e) {
    process.stdout.write("ERR " + String(e).replace(/\n/g, " ") + "\n");
  }
});
`)
}

func FuzzRubyString(f *testing.F) {
	fuzzREPL(f, RubyString, "ruby", "-e", `STDOUT.sync = true
STDIN.each_line do |l|
  begin
    v = eval(l.chomp)
    raise "not a String: #{v.class}" unless v.is_a?(String)
    puts "OK " + v.b.unpack1("H*")
  rescue Exception => e
    puts "ERR " + e.message.gsub("\n", " ")
  end
end
`)
}

func FuzzJavaString(f *testing.F) {
	addCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		lit := JavaString(s)
		got, err := decodeJavaLiteral(lit)
		if err != nil || got != want(s, false) {
			t.Fatalf("JavaString(%q) = %s reads back as %q, %v", s, lit, got, err)
		}
	})
}

// fuzzREPL checks quote against one long-lived interpreter started with
// argv; the literal must be one line of ASCII (a raw line break or
// non-ASCII byte would be a finding of its own).
func fuzzREPL(f *testing.F, quote func(string) string, argv ...string) {
	addCorpus(f)
	testenv.LookPath(f, argv[0])
	var (
		once sync.Once
		r    *repl
		err  error
	)
	f.Fuzz(func(t *testing.T, s string) {
		once.Do(func() { r, err = startREPL(argv...) })
		if err != nil {
			t.Fatal(err)
		}
		lit := quote(s)
		for i := 0; i < len(lit); i++ {
			if lit[i] >= utf8.RuneSelf || lit[i] == '\n' || lit[i] == '\r' {
				t.Fatalf("literal %q is not one line of ASCII", lit)
			}
		}
		got, err := r.eval(lit)
		if err != nil || got != want(s, false) {
			t.Fatalf("%s: %q quoted as %s reads back as %q, %v", argv[0], s, lit, got, err)
		}
	})
}

type repl struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
}

func startREPL(argv ...string) (*repl, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "" // the package folder; nothing is written
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The process ends when the fuzz worker exits and stdin closes.
	return &repl{in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (r *repl) eval(lit string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := io.WriteString(r.in, lit+"\n"); err != nil {
		return "", err
	}
	line, err := r.out.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\n")
	if !strings.HasPrefix(line, "OK ") {
		return "", fmt.Errorf("interpreter: %s", line)
	}
	b, err := hex.DecodeString(line[3:])
	return string(b), err
}

// decodeJavaLiteral reads a Java string literal as javac does: \uXXXX
// escapes are translated first, anywhere in the source (a \u0022 closes
// the literal), then the escape sequences, then UTF-16 to UTF-8.
func decodeJavaLiteral(lit string) (string, error) {
	// JLS 3.3: a \ preceded by an odd number of backslashes is not the start
	// of a Unicode escape.
	var units []uint16
	for i := 0; i < len(lit); {
		if lit[i] == '\\' {
			run := 0
			for j := i; j < len(lit) && lit[j] == '\\'; j++ {
				run++
			}
			// Every pair of backslashes stands for itself; an odd one may start \u.
			for k := 0; k+1 < run; k += 2 {
				units = append(units, '\\', '\\')
			}
			i += run - run%2
			if run%2 == 0 {
				continue
			}
			if i+1 < len(lit) && lit[i+1] == 'u' {
				j := i + 1
				for j < len(lit) && lit[j] == 'u' {
					j++
				}
				if j+4 > len(lit) {
					return "", fmt.Errorf("short \\u escape")
				}
				v, err := strconv.ParseUint(lit[j:j+4], 16, 16)
				if err != nil {
					return "", fmt.Errorf("bad \\u escape %q", lit[j:j+4])
				}
				units = append(units, uint16(v))
				i = j + 4
				continue
			}
			units = append(units, '\\')
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(lit[i:])
		units = append(units, utf16.Encode([]rune{r})...)
		i += n
	}
	// JLS 3.10.5 and 3.10.7 on the translated text.
	if len(units) < 2 || units[0] != '"' || units[len(units)-1] != '"' {
		return "", fmt.Errorf("not a string literal")
	}
	body := units[1 : len(units)-1]
	var out []uint16
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"' || c == '\n' || c == '\r':
			return "", fmt.Errorf("unescaped %q inside the literal", rune(c))
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("literal ends in a backslash")
		}
		switch e := body[i]; e {
		case 'b':
			out = append(out, '\b')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'f':
			out = append(out, '\f')
		case 'r':
			out = append(out, '\r')
		case 's':
			out = append(out, ' ')
		case '"', '\'', '\\':
			out = append(out, e)
		default:
			if e < '0' || e > '7' {
				return "", fmt.Errorf("bad escape \\%c", rune(e))
			}
			// Octal: up to three digits, the first 0-3 when there are three.
			max := 2
			if e <= '3' {
				max = 3
			}
			v := 0
			j := i
			for ; j < len(body) && j-i < max && body[j] >= '0' && body[j] <= '7'; j++ {
				v = v*8 + int(body[j]-'0')
			}
			out = append(out, uint16(v))
			i = j - 1
		}
	}
	return string(utf16.Decode(out)), nil
}

// TestDecodeJavaLiteral: the decoder knows the rule that makes Java
// quoting hard: a \u escape is translated before the literal is read.
func TestDecodeJavaLiteral(t *testing.T) {
	for lit, want := range map[string]string{
		`"a\"b"`:          `a"b`,
		`"\u0041\\u0041"`: `A\u0041`,
		`"\101\7\0"`:      "A\a\x00",
		`"\ud83d\ude00"`:  "\U0001F600",
		`"é"`:             "é",
	} {
		if got, err := decodeJavaLiteral(lit); err != nil || got != want {
			t.Errorf("decodeJavaLiteral(%s) = %q, %v; want %q", lit, got, err, want)
		}
	}
	for _, bad := range []string{`"\u0022"`, `"a`, `"\q"`, "\"a\nb\""} {
		if got, err := decodeJavaLiteral(bad); err == nil {
			t.Errorf("decodeJavaLiteral(%q) = %q, want an error", bad, got)
		}
	}
}
