package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Section is one side-by-side comparison on one input.
type Section struct {
	ID, Title string
	Data      []string // what the input is, one line each
	Results   []*Result
	Pairs     [][2]int // indexes into Results: ours, peer
	// Bytes of input, for throughput; 0 when throughput means nothing.
	Bytes int64
	// Ceiling is the index of the plain-read baseline, or -1.
	Ceiling int
	// Checks are the comparison's validity checks, one line each.
	Checks []string
	// Void, when not empty, says why the ratios of this section do not
	// stand (the tools did not find the same things).
	Void string
	// Load is the 1-minute load average before and after the runs.
	Load [2]float64
}

// measure runs the section's tools and records the machine's load.
func (b *bench) measure(sec *Section, tools []Tool) {
	sec.Load[0] = loadAvg()
	sec.Results = b.runner.Measure(tools, 1, b.cfg.reps)
	sec.Load[1] = loadAvg()
}

func (b *bench) exampleContract() string {
	return filepath.Join(b.cfg.root, "examples", "payouts", "retryspec.yaml")
}

// corpus prepares (or reuses) the replicated corpus of size MB. Corpora
// are deterministic: a smaller one is the first files of a bigger one.
func (b *bench) corpus(size float64) (*Corpus, error) {
	dst := filepath.Join(b.cfg.cache, "data", fmt.Sprintf("corpus-%gMB", size))
	logf("preparing %g MB Markdown corpus in %s", size, dst)
	return Replicate(filepath.Join(b.cfg.data, "corpus"), dst, int64(size*1e6))
}

func (b *bench) copyTool(c *Corpus, out string) Tool {
	t := b.ours("retryspec copy", "copy", "-c", b.exampleContract(), "--format", "json", c.Root)
	t.Stdout = out
	return t
}

// Vale sizing. Vale with the exported style can be far slower than a
// plain-word style (regular expressions with look-around run on a
// backtracking engine), and its speed has changed by an order of
// magnitude as the export evolved. Two probes, on 0.2 and 1 MB, fit its
// start-up cost and its time per MB; the pair then runs on the largest
// size from valeSizes whose predicted Vale run fits the per-run budget,
// both tools on the same files.
var valeSizes = []float64{100, 50, 20, 10, 5, 2, 1, 0.5, 0.2}

var valeProbes = [2]float64{0.2, 1}

// valeModel predicts a run's wall time from the probes: a fixed start-up
// cost plus a cost per MB. With one probe the whole time counts per MB.
type valeModel struct {
	fixed time.Duration
	perMB time.Duration
}

func fitVale(sizes []float64, walls []time.Duration) valeModel {
	if len(walls) >= 2 && sizes[1] > sizes[0] && walls[1] > walls[0] {
		per := time.Duration(float64(walls[1]-walls[0]) / (sizes[1] - sizes[0]))
		fixed := walls[0] - time.Duration(float64(per)*sizes[0])
		if fixed < 0 {
			fixed = 0
		}
		return valeModel{fixed: fixed, perMB: per}
	}
	n := len(walls) - 1
	return valeModel{perMB: time.Duration(float64(walls[n]) / sizes[n])}
}

func (m valeModel) predict(mb float64) time.Duration {
	return m.fixed + time.Duration(float64(m.perMB)*mb)
}

// pickValeSize is the largest size (at most max) whose predicted Vale
// time fits budget; the smallest probe size when none does.
func pickValeSize(m valeModel, budget time.Duration, max float64) float64 {
	for _, s := range valeSizes {
		if s <= max && m.predict(s) <= budget {
			return s
		}
	}
	return valeProbes[0]
}

// sizeValePair probes Vale and picks the pair's corpus size, with a line
// for the report.
func (b *bench) sizeValePair(ini string, full float64) (float64, string, error) {
	var sizes []float64
	var walls []time.Duration
	for _, size := range valeProbes {
		if len(walls) > 0 && fitVale(sizes, walls).predict(size) > b.valeBudget() {
			break // the next probe alone would blow the budget
		}
		probe, err := b.corpus(size)
		if err != nil {
			return 0, "", err
		}
		logf("probing Vale's speed on %g MB", size)
		t := b.peer("vale (probe)", b.bins.vale, "--config", ini, "--output", "JSON", "--no-exit", probe.Root)
		res := (&Runner{Timeout: b.valeBudget() * 5, exec: b.runner.exec}).Measure([]Tool{t}, 0, 1)[0]
		if !res.OK() {
			if len(walls) == 0 {
				return valeProbes[0], fmt.Sprintf("Vale's %g MB probe did not finish (%s: %s); the pair runs on that probe size", size, res.Status, res.Note), nil
			}
			break
		}
		sizes = append(sizes, size)
		walls = append(walls, res.Samples[0].Wall)
	}
	m := fitVale(sizes, walls)
	pick := pickValeSize(m, b.valeBudget(), full)
	var probes []string
	for i := range sizes {
		probes = append(probes, fmt.Sprintf("%s on %g MB", fmtDur(walls[i]), sizes[i]))
	}
	line := fmt.Sprintf("Vale's probes took %s (start-up about %s, then %s per MB); to keep each Vale run within about %s, the pair runs on the first %g MB of the corpus",
		strings.Join(probes, " and "), fmtDur(m.fixed), fmtDur(m.perMB), fmtDur(b.valeBudget()), pick)
	return pick, line, nil
}

// copyVsVale: retryspec copy against Vale running the style retryspec
// exports, on the same planted corpus, and against cat as the ceiling.
func (b *bench) copyVsVale() error {
	full := float64(b.sz.pairCorpusMB)
	styleDir := filepath.Join(b.work(), "vale-export")
	ini, note := b.exportVale(styleDir)

	pairSize, sizing := full, ""
	switch {
	case b.cfg.valeMB > 0:
		pairSize = b.cfg.valeMB
		sizing = fmt.Sprintf("the pair runs on the first %g MB of the corpus, as asked (-vale-mb)", pairSize)
	case ini != "":
		var err error
		if pairSize, sizing, err = b.sizeValePair(ini, full); err != nil {
			return err
		}
	}

	c, err := b.corpus(pairSize)
	if err != nil {
		return err
	}
	copyOut := filepath.Join(b.out(), "copy.json")
	valeOut := filepath.Join(b.out(), "vale.json")
	ours := b.copyTool(c, copyOut)
	vale := Tool{Name: "vale (exported style)"}
	if ini != "" {
		vale = b.peer("vale (exported style)", b.bins.vale, "--config", ini, "--output", "JSON", "--no-exit", c.Root)
		vale.Stdout = valeOut
	}
	cat := b.catTool(c)
	sec := &Section{
		ID:    "copy",
		Title: fmt.Sprintf("retryspec copy vs Vale (%g MB of Markdown)", pairSize),
		Data: []string{
			fmt.Sprintf("%s bytes in %s files: the Markdown of the shared corpora (NATS, NServiceBus, SendGrid docs) replicated, with %d claims planted, each as the first paragraph of a file (%d phrasings, one per copy rule Vale can express)",
				commas(c.Bytes), commas(int64(c.Files)), len(c.Plants), len(plantedClaims)),
			"retryspec runs with all rules on (the example contract, so contract-aware checks run too); Vale runs the style `retryspec copy --export-vale` writes; both print JSON",
		},
		Bytes:   c.Bytes,
		Ceiling: -1,
	}
	if sizing != "" {
		sec.Data = append(sec.Data, sizing)
	}
	tools := []Tool{ours, vale}
	if pairSize == full {
		tools = append(tools, cat)
		sec.Ceiling = 2
	}
	logf("copy vs Vale, %d rounds after a warm-up", b.cfg.reps)
	b.measure(sec, tools)
	sec.Pairs = [][2]int{{0, 1}}
	if ini == "" {
		sec.Results[1].Status, sec.Results[1].Note = StatusUnavailable, note
	}
	sec.Checks, sec.Void = b.verifyClaims(c, sec.Results[0], sec.Results[1], copyOut, valeOut)
	b.sections = append(b.sections, sec)
	if pairSize == full {
		return nil
	}

	// The ceiling on the full corpus, without Vale.
	c, err = b.corpus(full)
	if err != nil {
		return err
	}
	ceil := &Section{
		ID:      "copy-ceiling",
		Title:   fmt.Sprintf("retryspec copy vs plain reading (%g MB of Markdown)", full),
		Data:    []string{fmt.Sprintf("%s bytes in %s files, the full replicated corpus (the pair above uses its first %g MB)", commas(c.Bytes), commas(int64(c.Files)), pairSize)},
		Bytes:   c.Bytes,
		Ceiling: 1,
	}
	logf("copy vs cat, %d rounds after a warm-up", b.cfg.reps)
	b.measure(ceil, []Tool{b.copyTool(c, filepath.Join(b.out(), "copy-full.json")), b.catTool(c)})
	b.sections = append(b.sections, ceil)
	return nil
}

// catTool reads every file of the corpus once: the ceiling for any linter.
func (b *bench) catTool(c *Corpus) Tool {
	return Tool{Name: "cat (ceiling)", Argv: []string{"/usr/bin/find", c.Root, "-name", ".git", "-prune", "-o", "-type", "f", "-exec", "/usr/bin/cat", "{}", "+"}, Dir: b.work()}
}

// valeBudget is the time one Vale run may take in the pair.
func (b *bench) valeBudget() time.Duration {
	if b.cfg.quick {
		return 5 * time.Second
	}
	return 60 * time.Second
}

// exportVale has retryspec write its Vale style and writes a .vale.ini that
// runs it on Markdown. It returns the ini path, or "" and why not.
func (b *bench) exportVale(dir string) (ini, why string) {
	if err := os.RemoveAll(dir); err != nil {
		return "", err.Error()
	}
	t := b.ours("retryspec copy --export-vale", "copy", "-c", b.exampleContract(), "--export-vale", dir)
	res := (&Runner{Timeout: b.cfg.timeout, exec: b.runner.exec}).Measure([]Tool{t}, 0, 1)[0]
	if !res.OK() {
		return "", fmt.Sprintf("`retryspec copy --export-vale`: %s (%s)", res.Status, res.Note)
	}
	stylesPath, styles, err := valeStyles(dir)
	if err != nil {
		return "", "`retryspec copy --export-vale` wrote no usable style: " + err.Error()
	}
	ini = filepath.Join(b.work(), "vale.ini")
	body := fmt.Sprintf("StylesPath = %s\nMinAlertLevel = suggestion\n\n[*.{md,mdx,markdown}]\nBasedOnStyles = %s\n", stylesPath, strings.Join(styles, ", "))
	if err := os.WriteFile(ini, []byte(body), 0o644); err != nil {
		return "", err.Error()
	}
	return ini, ""
}

// valeStyles finds the styles in an exported folder: either the folder is
// itself a style (rule files inside) or it is a StylesPath holding styles.
func valeStyles(dir string) (stylesPath string, styles []string, err error) {
	hasRules := func(d string) bool {
		ents, err := os.ReadDir(d)
		if err != nil {
			return false
		}
		for _, e := range ents {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".yaml")) {
				return true
			}
		}
		return false
	}
	if hasRules(dir) {
		return filepath.Dir(dir), []string{filepath.Base(dir)}, nil
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && hasRules(p) && filepath.Dir(p) == dir {
			styles = append(styles, d.Name())
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if len(styles) == 0 {
		return "", nil, fmt.Errorf("no rule files (.yml) in %s or its folders", dir)
	}
	sort.Strings(styles)
	return dir, styles, nil
}

// verifyClaims reads both tools' last output and checks each found every
// planted claim. A miss on either side makes the comparison void: a faster
// tool that finds less proves nothing.
func (b *bench) verifyClaims(c *Corpus, ours, peer *Result, oursOut, peerOut string) (checks []string, void string) {
	if !ours.OK() || !peer.OK() {
		return nil, "not run on both sides: " + sideNote(ours) + "; " + sideNote(peer)
	}
	dir := b.work()
	var misses []string
	for _, side := range []struct {
		name, out string
		read      func([]byte, string, string) (Found, int, error)
	}{
		{"retryspec copy", oursOut, retryspecFound},
		{"Vale", peerOut, valeFound},
	} {
		data, err := os.ReadFile(side.out)
		if err != nil {
			return checks, err.Error()
		}
		found, total, err := side.read(data, c.Root, dir)
		if err != nil {
			return checks, err.Error()
		}
		missed := Verify(c.Plants, found)
		checks = append(checks, fmt.Sprintf("%s: %d of %d planted claims found (%s findings in all)", side.name, len(c.Plants)-len(missed), len(c.Plants), commas(int64(total))))
		if len(missed) > 0 {
			byRule := map[string]int{}
			for _, m := range missed {
				byRule[m.Rule]++
			}
			var parts []string
			for _, cl := range plantedClaims {
				if n := byRule[cl.Rule]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s x%d (%q)", cl.Rule, n, cl.Text))
				}
			}
			misses = append(misses, fmt.Sprintf("%s missed %s, e.g. %s:%d", side.name, strings.Join(parts, ", "), missed[0].File, missed[0].Line))
		}
	}
	if len(misses) > 0 {
		return checks, strings.Join(misses, "; ")
	}
	return checks, ""
}

func sideNote(r *Result) string {
	if r.OK() {
		return r.Tool.Name + " ran"
	}
	return fmt.Sprintf("%s %s (%s)", r.Tool.Name, r.Status, r.Note)
}

// largestSpec is the biggest OpenAPI file under data/specs.
func (b *bench) largestSpec() (string, int64, error) {
	var best string
	var size int64
	err := filepath.WalkDir(filepath.Join(b.cfg.data, "specs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > size {
			best, size = p, info.Size()
		}
		return nil
	})
	if best == "" && err == nil {
		err = fmt.Errorf("no OpenAPI files under %s", filepath.Join(b.cfg.data, "specs"))
	}
	return best, size, err
}

// largestSpecDoc is largestSpec, parsed.
func (b *bench) largestSpecDoc() (string, int64, *yaml.Node, error) {
	spec, size, err := b.largestSpec()
	if err != nil {
		return "", 0, nil, err
	}
	doc, err := loadSpecNode(spec)
	return spec, size, doc, err
}

// openapiVsLinters: check --openapi and openapi --merged against redocly
// lint and spectral lint on the largest spec.
func (b *bench) openapiVsLinters() error {
	spec, size, doc, err := b.largestSpecDoc()
	if err != nil {
		return err
	}
	ops := flatten(SpecOps(doc))
	contract := filepath.Join(b.work(), "spec-contract.yaml")
	if err := os.WriteFile(contract, ContractYAML(ops), 0o644); err != nil {
		return err
	}
	ruleset := filepath.Join(b.work(), "spectral.yaml")
	if err := os.WriteFile(ruleset, []byte("extends: [\"spectral:oas\"]\n"), 0o644); err != nil {
		return err
	}
	rel, _ := filepath.Rel(b.cfg.data, spec)
	merged := filepath.Join(b.out(), "merged"+filepath.Ext(spec))
	sec := &Section{
		ID:    "openapi",
		Title: "OpenAPI: retryspec check --openapi and openapi --merged vs redocly lint and spectral lint",
		Data: []string{
			fmt.Sprintf("`%s`, the largest spec in the shared data: %s bytes, %d operations", rel, commas(size), len(ops)),
			fmt.Sprintf("a generated contract classifying all %d operations (no drift)", len(ops)),
			"Redocly with its default (recommended) rules, Spectral with `spectral:oas`; every tool prints JSON",
		},
		Ceiling: -1,
	}
	tools := []Tool{
		b.ours("retryspec check --openapi", "check", "-c", contract, "--openapi", spec, "--format", "json"),
		b.ours("retryspec openapi --merged", "openapi", "--spec", spec, "-c", contract, "--merged", merged),
		b.peer("redocly lint", b.bins.redocly, "lint", spec, "--format", "json"),
		b.peer("spectral lint", b.bins.spectral, "lint", spec, "--ruleset", ruleset, "--format", "json"),
	}
	logf("OpenAPI group, %d rounds after a warm-up", b.cfg.reps)
	b.measure(sec, tools)
	sec.Pairs = [][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}}
	b.sections = append(b.sections, sec)
	return nil
}

// buildVsRedocly: retryspec build (contract plus spec) against redocly
// build-docs on the same spec.
func (b *bench) buildVsRedocly() error {
	spec, _, doc, err := b.largestSpecDoc()
	if err != nil {
		return err
	}
	trimmed, ops, err := TrimSpec(doc, b.sz.buildContract)
	if err != nil {
		return err
	}
	specPath := filepath.Join(b.work(), fmt.Sprintf("spec-%d.yaml", len(ops)))
	if err := os.WriteFile(specPath, trimmed, 0o644); err != nil {
		return err
	}
	contract := filepath.Join(b.work(), fmt.Sprintf("build-contract-%d.yaml", len(ops)))
	if err := os.WriteFile(contract, ContractYAML(ops), 0o644); err != nil {
		return err
	}
	rel, _ := filepath.Rel(b.cfg.data, spec)
	site := filepath.Join(b.out(), "site")
	redocHTML := filepath.Join(b.out(), "redoc.html")
	sec := &Section{
		ID:    "build",
		Title: fmt.Sprintf("retryspec build vs redocly build-docs (%d-endpoint contract plus its spec)", len(ops)),
		Data: []string{
			fmt.Sprintf("`%s` cut to the whole paths whose operations fit in %d: %d operations, all components kept, %s bytes", rel, b.sz.buildContract, len(ops), commas(int64(len(trimmed)))),
			fmt.Sprintf("a generated contract classifying those %d operations; retryspec builds the Markdown, the site and the OpenAPI outputs, Redocly one HTML reference page", len(ops)),
		},
		Ceiling: -1,
	}
	clear := func() error { return os.RemoveAll(site) }
	ours := b.ours("retryspec build", "build", "-c", contract, "--openapi", specPath, "--out", site)
	ours.Before = clear
	// A build without --openapi yet still renders the contract's docs:
	// measured, and labelled as the narrower job it is.
	narrow := b.ours("retryspec build (contract only, no spec)", "build", "-c", contract, "--out", site)
	narrow.Before = clear
	ours.Fallback = &narrow
	peer := b.peer("redocly build-docs", b.bins.redocly, "build-docs", specPath, "--output", redocHTML)
	peer.Before = func() error { return removeIfExists(redocHTML) }
	logf("build group, %d rounds after a warm-up", b.cfg.reps)
	b.measure(sec, []Tool{ours, peer})
	sec.Pairs = [][2]int{{0, 1}}
	b.sections = append(b.sections, sec)
	return nil
}

func removeIfExists(p string) error {
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
