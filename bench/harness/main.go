// Command harness measures retryspec against the tools teams run today, on
// the same data in the same run, and draws its cost curves. bench/run
// builds retryspec, installs the peers into bench/.cache and runs it.
//
// Each comparison runs its tools alternately (A B A B ...) after a warm-up
// round and reports per tool the median wall time, CPU time (user+system)
// and peak RSS from the kernel's rusage, and per pair the ratio. A
// retryspec command this build does not have yet is reported as not
// available, never with a figure.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type config struct {
	root, data, cache string
	quick, write      bool
	reps, curveReps   int
	timeout           time.Duration
	only              string
	retryspec         string
	// valeMB, when above 0, is the size of the copy pair's corpus in MB:
	// no probes, so that two runs (with and without a flag of
	// retryspec's) compare on the same corpus.
	valeMB float64
}

func main() {
	if os.Getenv(spawnerEnv) != "" {
		if err := serveSpawner(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench spawner: %v\n", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.StringVar(&c.root, "root", ".", "repository root")
	flag.StringVar(&c.data, "data", "", "shared data folder (default ROOT/../shared/data)")
	flag.StringVar(&c.cache, "cache", "", "cache folder with bin/, npm/ and the prepared data (default ROOT/bench/.cache)")
	flag.BoolVar(&c.quick, "quick", false, "smoke run: small inputs, one repetition")
	flag.BoolVar(&c.write, "write", false, "regenerate BENCHMARKS.md and bench/plots/*.svg")
	flag.IntVar(&c.reps, "reps", 0, "timed repetitions per comparison (default 5, 1 with -quick)")
	flag.IntVar(&c.curveReps, "curve-reps", 0, "timed repetitions per curve point (default 5, 1 with -quick)")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "limit for one run of one tool")
	flag.StringVar(&c.retryspec, "retryspec", "", "retryspec binary to measure (default CACHE/bin/retryspec, which bench/run builds)")
	flag.StringVar(&c.only, "only", "", "comma-separated subset: copy,openapi,build,diff,curves")
	flag.Float64Var(&c.valeMB, "vale-mb", 0, "run the copy pair on this many MB of the corpus instead of sizing it by Vale's probes")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// sizes are the inputs of one run; -quick shrinks them all.
type sizes struct {
	pairCorpusMB   int64
	copyCurveMB    []float64
	checkEndpoints []int
	buildEndpoints []int
	buildContract  int
}

func sizesFor(quick bool) sizes {
	if quick {
		return sizes{pairCorpusMB: 5, copyCurveMB: []float64{1, 2, 4}, checkEndpoints: []int{100, 1000, 5000}, buildEndpoints: []int{50, 100, 200}, buildContract: 200}
	}
	return sizes{
		pairCorpusMB:   100,
		copyCurveMB:    []float64{10, 100, 400},
		checkEndpoints: []int{100, 1000, 5000, 10000, 50000},
		buildEndpoints: []int{100, 1000, 10000, 50000},
		buildContract:  200,
	}
}

func run(c config) error {
	// First, while this process is small: see spawner.go.
	sp, err := startSpawner()
	if err != nil {
		return fmt.Errorf("starting the spawner: %w", err)
	}
	defer sp.Close()
	if c.root, err = filepath.Abs(c.root); err != nil {
		return err
	}
	if c.data == "" {
		c.data = filepath.Join(c.root, "..", "shared", "data")
	}
	if c.cache == "" {
		c.cache = filepath.Join(c.root, "bench", ".cache")
	}
	if c.data, err = filepath.Abs(c.data); err != nil {
		return err
	}
	if c.cache, err = filepath.Abs(c.cache); err != nil {
		return err
	}
	if c.reps == 0 {
		c.reps = 5
		if c.quick {
			c.reps = 1
		}
	}
	if c.curveReps == 0 {
		c.curveReps = 5
		if c.quick {
			c.curveReps = 1
		}
	}
	b := &bench{cfg: c, sz: sizesFor(c.quick), runner: &Runner{Timeout: c.timeout, Log: logf, exec: sp.exec}, started: time.Now().UTC()}
	b.bins = binaries(c.cache)
	if c.retryspec != "" {
		if b.bins.retryspec, err = filepath.Abs(c.retryspec); err != nil {
			return err
		}
	}
	if _, err := os.Stat(b.bins.retryspec); err != nil {
		return fmt.Errorf("retryspec is not built at %s: run bench/run, which builds it", b.bins.retryspec)
	}
	for _, d := range []string{b.work(), b.out()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	b.machine = readMachine()
	b.commit = gitCommit(c.root)
	b.versions = b.toolVersions()
	if s, _, err := sp.exec(context.Background(), Tool{Argv: []string{"/bin/true"}}); err == nil {
		b.rssFloor = s.MaxRSS
	}
	if b.selected("copy") {
		if err := b.copyVsVale(); err != nil {
			return fmt.Errorf("copy comparison: %w", err)
		}
	}
	if b.selected("openapi") {
		if err := b.openapiVsLinters(); err != nil {
			return fmt.Errorf("OpenAPI comparison: %w", err)
		}
	}
	if b.selected("build") {
		if err := b.buildVsRedocly(); err != nil {
			return fmt.Errorf("build comparison: %w", err)
		}
	}
	if b.selected("diff") {
		if err := b.diffVsOasdiff(); err != nil {
			return fmt.Errorf("diff comparison: %w", err)
		}
	}
	if b.selected("curves") {
		if err := b.curves(); err != nil {
			return fmt.Errorf("cost curves: %w", err)
		}
	}
	b.finished = time.Now().UTC()
	return b.report()
}

// bins are the programs the harness runs.
type bins struct {
	retryspec, vale, redocly, spectral, oasdiff string
}

func binaries(cache string) bins {
	return bins{
		retryspec: filepath.Join(cache, "bin", "retryspec"),
		vale:      filepath.Join(cache, "bin", "vale"),
		redocly:   filepath.Join(cache, "npm", "node_modules", ".bin", "redocly"),
		spectral:  filepath.Join(cache, "npm", "node_modules", ".bin", "spectral"),
		oasdiff:   filepath.Join(cache, "bin", "oasdiff"),
	}
}

// bench holds one run's configuration and everything it measured.
type bench struct {
	cfg     config
	sz      sizes
	runner  *Runner
	bins    bins
	machine Machine
	// versions of every tool, in report order.
	versions          [][2]string
	commit            string
	started, finished time.Time
	// rssFloor is the peak RSS the spawner reports for /bin/true: no
	// figure can be below it.
	rssFloor int64

	sections []*Section
	curveSet []*Curve
}

func (b *bench) work() string { return filepath.Join(b.cfg.cache, "work") }
func (b *bench) out() string  { return filepath.Join(b.cfg.cache, "out") }

func (b *bench) selected(name string) bool {
	if b.cfg.only == "" {
		return true
	}
	for _, s := range strings.Split(b.cfg.only, ",") {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

// peerEnv keeps the Node tools quiet and offline: no telemetry, no update
// check (the machine reaches only the package registries).
var peerEnv = []string{
	"NO_COLOR=1",
	"REDOCLY_TELEMETRY=off",
	"REDOCLY_SUPPRESS_UPDATE_NOTICE=true",
	"SCARF_ANALYTICS=false",
	"DO_NOT_TRACK=1",
}

func (b *bench) ours(name string, args ...string) Tool {
	return Tool{Name: name, Argv: append([]string{b.bins.retryspec}, args...), Dir: b.work(), Env: []string{"NO_COLOR=1"}, Ours: true}
}

func (b *bench) peer(name, prog string, args ...string) Tool {
	if _, err := os.Stat(prog); err != nil {
		prog = ""
	}
	return Tool{Name: name, Argv: append([]string{prog}, args...), Dir: b.work(), Env: peerEnv}
}

// toolVersions reads each tool's version: Go programs from their build
// info (go install leaves the -version text at "master"), npm packages from
// their package.json, the others from their own --version.
func (b *bench) toolVersions() [][2]string {
	ask := func(prog string, args ...string) string {
		if _, err := os.Stat(prog); err != nil {
			return "not installed"
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, prog, args...)
		cmd.Env = append(os.Environ(), peerEnv...)
		cmd.Dir = b.work()
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return firstLine(string(out))
	}
	goMod := func(prog string) string {
		if _, err := os.Stat(prog); err != nil {
			return "not installed"
		}
		out, err := exec.Command("go", "version", "-m", prog).Output()
		if err != nil {
			return "unknown"
		}
		return goModVersion(string(out))
	}
	npm := func(pkg string) string {
		data, err := os.ReadFile(filepath.Join(b.cfg.cache, "npm", "node_modules", filepath.FromSlash(pkg), "package.json"))
		if err != nil {
			return "not installed"
		}
		var p struct{ Version string }
		if json.Unmarshal(data, &p) != nil || p.Version == "" {
			return "unknown"
		}
		return pkg + " " + p.Version
	}
	rs := ask(b.bins.retryspec, "version")
	if rs == "" {
		rs = "(this build has no `version` command yet)"
	}
	built := ", built from commit " + b.commit
	if b.cfg.retryspec != "" {
		built = ", the binary given with -retryspec (" + b.bins.retryspec + ")"
	}
	node := ask("/usr/bin/env", "node", "--version")
	if node == "" {
		node = "not installed"
	}
	return [][2]string{
		{"retryspec", rs + built},
		{"Vale", goMod(b.bins.vale)},
		{"Redocly CLI", npm("@redocly/cli")},
		{"Spectral CLI", npm("@stoplight/spectral-cli")},
		{"Node.js (runs Redocly and Spectral)", node},
		{"oasdiff", goMod(b.bins.oasdiff)},
		{"cat", ask("/usr/bin/cat", "--version")},
	}
}

// goModVersion picks the main module and version from `go version -m`.
func goModVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "mod" {
			return f[1] + " " + f[2]
		}
	}
	return "unknown"
}

func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
