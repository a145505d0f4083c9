package hostiletest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// The bounds every command must keep on every hostile input. CPU time
// (user + system, from the kernel's rusage of the child), never wall time:
// the machine running the tests is shared. The product's target is 2 s of
// CPU for any command on a contract at the limits, measured on an idle
// machine by bench/run (BENCHMARKS.md); on a loaded machine the same runs
// take up to half as long again, so a test that bound them at 2 s would
// fail on load, not on a regression. The test bound is five times the
// target: a cost that grows with the input (a quadratic step, a retry
// loop) passes it by far more than that. The memory bound is set the
// same way, with room over the largest legitimate input (the contract at
// the endpoint limit, whose site has a page per endpoint and per rule):
// a copy per request or a quadratic table passes it by far more. The
// bound sits a quarter above the largest peak measured for that
// contract's build and serve (BENCHMARKS.md, "CI time"), which moves by
// 10 MiB or more with the collector's timing.
const (
	cpuBudget = 10 * time.Second
	rssBudget = 320 << 20
	// hangAfter is CPU time: a command that has burnt this much is caught
	// in a loop and killed. A command blocked without using CPU is left
	// to go test's -timeout; a wall-clock limit here failed on a loaded
	// machine (issue 28).
	hangAfter = 90 * time.Second
	// sentinel marks files outside the working tree: if it shows up in any
	// output, retryspec read a file it was not given.
	sentinel = "OUTSIDE-SENTINEL-7c1f"
	// pwned is the file a successful injection would create.
	pwned = "PWNED"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	scratch   string // shared folder for the binary and the generated huge inputs
)

func TestMain(m *testing.M) {
	if os.Getenv(spawnerEnv) != "" {
		if err := serveSpawner(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "spawner:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// First, while this process is small: see spawner_test.go.
	if err := startSpawner(); err != nil {
		fmt.Fprintln(os.Stderr, "starting the spawner:", err)
		os.Exit(1)
	}
	code := m.Run()
	if scratch != "" {
		os.RemoveAll(scratch)
	}
	os.Exit(code)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func scratchDir(t testing.TB) string {
	t.Helper()
	if scratch == "" {
		dir, err := os.MkdirTemp("", "retryspec-hostile-")
		if err != nil {
			t.Fatal(err)
		}
		scratch = dir
	}
	return scratch
}

// binary builds cmd/retryspec once per test process.
func binary(t testing.TB) string {
	t.Helper()
	dir := scratchDir(t)
	buildOnce.Do(func() {
		binPath = filepath.Join(dir, "retryspec")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/retryspec")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// sandbox is one run's little world: work is the working directory (the
// only place a command may write, besides paths it is given), outside
// holds sentinel files a command must never read, tmp and home are the
// child's TMPDIR and HOME.
type sandbox struct {
	root, work, outside, tmp, home string
	// env is added to the child's minimal environment.
	env []string
}

const soundContract = "examples/payouts/retryspec.yaml"

// soundSpec is a small OpenAPI spec matching the payouts example.
const soundSpec = `openapi: 3.0.3
info:
  title: Lumapay
  version: "1"
paths:
  /v1/transfers:
    post:
      operationId: createTransfer
      responses:
        "201":
          description: created
  /v1/transfers/{id}:
    get:
      operationId: getTransfer
      parameters:
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses:
        "200":
          description: ok
  /v1/reports/{id}/archive:
    post:
      operationId: archiveReport
      parameters:
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses:
        "200":
          description: ok
`

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	root := t.TempDir()
	sb := &sandbox{
		root:    root,
		work:    filepath.Join(root, "work"),
		outside: filepath.Join(root, "outside"),
		tmp:     filepath.Join(root, "tmp"),
		home:    filepath.Join(root, "home"),
	}
	contract, err := os.ReadFile(filepath.Join(repoRoot(), soundContract))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"outside/secret.md": "# Secret\n\nWe guarantee exactly-once delivery. " + sentinel + "\n",
		"outside/secret.yaml": "Secret:\n  type: string\n  description: " + sentinel + "\n" +
			"paths:\n  /steal:\n    post:\n      description: " + sentinel + "\n      responses: {'200': {description: " + sentinel + "}}\n",
		"work/retryspec.yaml":     string(contract),
		"work/spec.yaml":          soundSpec,
		"work/marketing/intro.md": "# Payouts\n\nRetry safely with an idempotency key.\n",
		"work/docs/guide.mdx":     "# Guide\n\nKeys are kept for 24 hours.\n",
		"home/.keep":              "",
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(sb.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return sb
}

// entry describes one file system entry for before/after comparisons.
type entry struct {
	kind string // "file", "dir", "link"
	sum  string // content hash for files, target for links
	size int64
}

// snapshot records every entry under dir without following symlinks.
func snapshot(t testing.TB, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = entry{kind: "link", sum: target}
		case d.IsDir():
			out[rel] = entry{kind: "dir"}
		default:
			out[rel] = entry{kind: "file", sum: hashFile(t, p), size: info.Size()}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hashFile(t testing.TB, p string) string {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := bufio.NewReader(f).WriteTo(h); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// capped keeps the first max bytes written and counts the rest, so a
// command that floods its output cannot exhaust the test's memory.
type capped struct {
	buf bytes.Buffer
	n   int64
	max int
	// ready, when set, is closed once the output holds readyMark.
	ready     chan struct{}
	readyMark []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	if c.ready != nil && bytes.Contains(c.buf.Bytes(), c.readyMark) {
		close(c.ready)
		c.ready = nil
	}
	return len(p), nil
}

// servingMark is what `serve` logs once its signal handler is installed
// and the site is built: the stop signal waits for it, so a start slowed
// by a loaded machine is never killed by a SIGINT it cannot handle yet.
var servingMark = []byte("retryspec: serving ")

type result struct {
	code           int
	stdout, stderr string
	outBytes       int64
	errBytes       int64
	cpu            time.Duration
	rss            int64
	measured       bool
	wall           time.Duration
	signaled       bool
}

// run starts the binary in sb.work with a minimal environment. With
// stopAfter > 0 (serve), the process gets SIGINT after that long if it is
// still running.
func run(t testing.TB, sb *sandbox, stopAfter time.Duration, args ...string) result {
	t.Helper()
	return runFor(t, sb, stopAfter, hangAfter, args...)
}

// runFor is run with its own hang limit. The process is started by the
// spawner (spawner_test.go), so its peak memory is its own.
func runFor(t testing.TB, sb *sandbox, stopAfter, hang time.Duration, args ...string) result {
	t.Helper()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + sb.home,
		"TMPDIR=" + sb.tmp,
		"NO_COLOR=1",
		"LANG=C.UTF-8",
	}
	req := spawnRequest{
		Argv:      append([]string{binary(t)}, args...),
		Dir:       sb.work,
		Env:       append(env, sb.env...),
		StopAfter: stopAfter,
		Hang:      hang,
	}
	rep, err := spawn(req)
	if err != nil {
		t.Fatal(err)
	}
	r := result{
		code:     rep.Code,
		stdout:   string(rep.Stdout),
		stderr:   string(rep.Stderr),
		outBytes: rep.OutBytes,
		errBytes: rep.ErrBytes,
		wall:     rep.Wall,
		signaled: rep.Signaled,
		cpu:      rep.CPU,
		rss:      rep.RSS,
		measured: rep.Measured,
	}
	if rep.Hung {
		t.Errorf("retryspec %s: still running after %v of CPU time (killed)", strings.Join(args, " "), hang)
	}
	return r
}

// runProcess runs one request in this process (the spawner): the child's
// output is capped at 1 MiB a stream, so a command that floods its output
// cannot exhaust the spawner's memory either.
func runProcess(req spawnRequest) (spawnReply, error) {
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Dir = req.Dir
	cmd.Env = req.Env
	var stdout, stderr capped
	stdout.max, stderr.max = 1<<20, 1<<20
	serving := make(chan struct{})
	stderr.ready, stderr.readyMark = serving, servingMark
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return spawnReply{}, err
	}
	done := make(chan struct{})
	var hung atomic.Bool
	go func() {
		tick := time.NewTicker(100 * time.Millisecond) // how often to look, not a bound
		defer tick.Stop()
		var stop <-chan time.Time
		if req.StopAfter == 0 {
			serving = nil // no stop signal: only the hang watchdog runs
		}
		for {
			select {
			case <-done:
				return
			case <-serving:
				// StopAfter is how long the command serves before Ctrl-C,
				// counted from its own "serving" line, not from its start.
				serving = nil
				stop = time.After(req.StopAfter)
			case <-stop:
				stop = nil
				cmd.Process.Signal(syscall.SIGINT)
			case <-tick.C:
				if cpu, ok := runningCPU(cmd.Process.Pid); ok && cpu >= req.Hang {
					hung.Store(true)
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	cmd.Wait()
	close(done)
	rep := spawnReply{
		Code:     cmd.ProcessState.ExitCode(),
		Stdout:   stdout.buf.Bytes(),
		Stderr:   stderr.buf.Bytes(),
		OutBytes: stdout.n,
		ErrBytes: stderr.n,
		Wall:     time.Since(start),
		Hung:     hung.Load(),
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		rep.Signaled = ws.Signaled()
	}
	rep.CPU, rep.RSS, rep.Measured = usage(cmd.ProcessState)
	return rep, nil
}

// checkBounds fails the test when a run broke the CPU or memory budget.
func checkBounds(t testing.TB, what string, r result) {
	t.Helper()
	if !r.measured {
		return
	}
	if r.cpu > cpuBudget {
		t.Errorf("%s: %v CPU time, budget %v", what, r.cpu.Round(time.Millisecond), cpuBudget)
	}
	if r.rss > rssBudget {
		t.Errorf("%s: peak RSS %d MiB, budget %d MiB", what, r.rss>>20, rssBudget>>20)
	}
}

// checkNoCrash fails on a Go panic or runtime crash in the output.
func checkNoCrash(t testing.TB, what string, r result) {
	t.Helper()
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") || strings.Contains(s, "fatal error:") {
			t.Errorf("%s: crashed:\n%.2000s", what, s)
		}
	}
	if r.signaled {
		t.Errorf("%s: killed by a signal", what)
	}
}

// checkContained compares the sandbox before and after a run: nothing
// outside work changed, nothing is left in TMPDIR, no input changed, no
// injected command left its marker, no output carries a sentinel.
func checkContained(t testing.TB, what string, sb *sandbox, before map[string]entry, r result) {
	t.Helper()
	after := snapshot(t, sb.root)
	var changed []string
	for p, e := range after {
		if p == "work" || strings.HasPrefix(p, "work"+string(filepath.Separator)) {
			if b, ok := before[p]; ok && b != e && e.kind == "file" {
				changed = append(changed, "changed input "+p)
			}
			if filepath.Base(p) == pwned {
				changed = append(changed, "injected command ran: "+p)
			}
			if _, ok := before[p]; !ok && e.kind == "file" {
				checkOutputFile(t, what, filepath.Join(sb.root, p))
			}
			continue
		}
		if p == "tmp" {
			continue
		}
		if b, ok := before[p]; !ok {
			changed = append(changed, "created "+p)
		} else if b != e {
			changed = append(changed, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, "removed "+p)
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Errorf("%s: touched files outside its outputs:\n  %s", what, strings.Join(changed, "\n  "))
	}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, sentinel) {
			t.Errorf("%s: printed the content of a file outside the working tree", what)
		}
		if strings.Contains(s, "root:x:0:0") {
			t.Errorf("%s: printed /etc/passwd", what)
		}
	}
}

// checkOutputFile scans a file a command wrote: no sentinel, no
// /etc/passwd, and in markup no live script or event handler from input.
func checkOutputFile(t testing.TB, what, p string) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil || info.Size() > 64<<20 {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	if bytes.Contains(data, []byte(sentinel)) || bytes.Contains(data, []byte("root:x:0:0")) {
		t.Errorf("%s: output %s carries a file from outside the working tree", what, p)
	}
	switch filepath.Ext(p) {
	case ".html", ".htm", ".svg", ".xml":
		for _, bad := range liveMarkup(data) {
			t.Errorf("%s: output %s carries live markup from the input: %s", what, p, bad)
		}
	case ".md", ".mdx":
		// Markdown is rendered by docs platforms that keep raw HTML.
		var page bytes.Buffer
		if err := markdownPlatform.Convert(data, &page); err != nil {
			t.Errorf("%s: output %s does not render: %v", what, p, err)
			return
		}
		for _, bad := range liveMarkup(page.Bytes()) {
			t.Errorf("%s: output %s, rendered as Markdown, carries live markup from the input: %s", what, p, bad)
		}
	}
}

// markdownPlatform renders Markdown as a docs platform does: GFM, raw
// HTML passed through.
var markdownPlatform = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))

// liveMarkup tokenizes a page as a browser would and reports what input
// strings became markup: a script whose text came from the input, an event
// handler attribute, a javascript: URL, the corpus's <img src=x>. Escaped
// text (&lt;img onerror=...&gt;) is text and passes.
func liveMarkup(data []byte) []string {
	var bad []string
	z := html.NewTokenizer(bytes.NewReader(data))
	inScript := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return bad
		case html.TextToken:
			if inScript {
				txt := string(z.Text())
				for _, marker := range []string{"alert(", pwned, "process.exit", "document.cookie"} {
					if strings.Contains(txt, marker) {
						bad = append(bad, fmt.Sprintf("script text containing %q", marker))
					}
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "script" {
				inScript = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "script" && tt == html.StartTagToken {
				inScript = true
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				key, val := string(k), strings.ToLower(strings.TrimSpace(string(v)))
				switch {
				case strings.HasPrefix(key, "on"):
					bad = append(bad, fmt.Sprintf("<%s %s=%q>", name, key, v))
				case strings.HasPrefix(val, "javascript:"):
					bad = append(bad, fmt.Sprintf("<%s %s=%q>", name, key, v))
				case string(name) == "img" && key == "src" && val == "x":
					bad = append(bad, "<img src=x>")
				}
			}
		}
	}
}
