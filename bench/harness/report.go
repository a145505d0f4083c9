package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func fmtDur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 0.01:
		return fmt.Sprintf("%.0f ms", s*1000)
	default:
		return fmt.Sprintf("%.1f ms", s*1000)
	}
}

// fmtRate prints MB/s with three significant digits, so a slow tool's
// 0.00472 MB/s does not print as 0.0.
func fmtRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f MB/s", r)
	}
	return fmt.Sprintf("%.3g MB/s", r)
}

func fmtMB(b int64) string { return fmt.Sprintf("%.1f MB", mb(b)) }

func fmtRatio(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// throughput in MB/s of bytes over the median wall time.
func throughput(bytes int64, r *Result) float64 {
	if bytes == 0 || !r.OK() || r.Summary.Wall <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / r.Summary.Wall.Seconds()
}

func statusCell(r *Result) string {
	if r.OK() {
		if r.Note != "" {
			return "ok; " + mdEscape(r.Note)
		}
		return "ok"
	}
	return fmt.Sprintf("%s: %s", r.Status, mdEscape(r.Note))
}

// mdEscape keeps a tool's message from breaking a table row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

// renderSection writes one comparison as Markdown.
func renderSection(b *strings.Builder, s *Section) {
	fmt.Fprintf(b, "### %s\n\n", s.Title)
	for _, d := range s.Data {
		fmt.Fprintf(b, "- %s\n", d)
	}
	if s.Load[0] >= 0 && s.Load[1] >= 0 {
		fmt.Fprintf(b, "- machine load (1-minute average) %.1f before and %.1f after these runs: wall times include waiting for a core; CPU times do not\n", s.Load[0], s.Load[1])
	}
	b.WriteString("\n| tool | timed runs | median wall | median CPU (user+sys) | median peak RSS |")
	if s.Bytes > 0 {
		b.WriteString(" throughput |")
	}
	b.WriteString(" status |\n|---|---|---|---|---|")
	if s.Bytes > 0 {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, r := range s.Results {
		if r.OK() {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s |", r.Tool.Name, r.Summary.N, fmtDur(r.Summary.Wall), fmtDur(r.Summary.CPU), fmtMB(r.Summary.MaxRSS))
			if s.Bytes > 0 {
				fmt.Fprintf(b, " %s |", fmtRate(throughput(s.Bytes, r)))
			}
		} else {
			b.WriteString("| " + r.Tool.Name + " | 0 | - | - | - |")
			if s.Bytes > 0 {
				b.WriteString(" - |")
			}
		}
		fmt.Fprintf(b, " %s |\n", statusCell(r))
	}
	b.WriteString("\n")
	for _, c := range s.Checks {
		fmt.Fprintf(b, "- Check: %s\n", c)
	}
	if s.Void != "" {
		fmt.Fprintf(b, "- **Comparison void**: %s. The ratio below is not a result.\n", mdEscape(s.Void))
	}
	if len(s.Pairs) > 0 {
		b.WriteString("\n| pair (A vs B) | wall B/A | CPU B/A | peak RSS B/A |\n|---|---|---|---|\n")
		for _, p := range s.Pairs {
			a, o := s.Results[p[0]], s.Results[p[1]]
			if !a.OK() || !o.OK() {
				fmt.Fprintf(b, "| %s vs %s | not measured: %s | | |\n", a.Tool.Name, o.Tool.Name, mdEscape(whyNot(a, o)))
				continue
			}
			suffix := ""
			if s.Void != "" {
				suffix = " (void)"
			}
			fmt.Fprintf(b, "| %s vs %s | %s%s | %s | %s |\n", a.Tool.Name, o.Tool.Name,
				fmtRatio(ratio(o.Summary.Wall, a.Summary.Wall)), suffix,
				fmtRatio(ratio(o.Summary.CPU, a.Summary.CPU)),
				fmtRatio(ratio(o.Summary.MaxRSS, a.Summary.MaxRSS)))
		}
		b.WriteString("\nB/A above 1 means retryspec (A) takes that many times less than the peer (B).\n")
	}
	if s.Ceiling >= 0 {
		cat, ours := s.Results[s.Ceiling], s.Results[0]
		if cat.OK() && ours.OK() {
			ct, ot := throughput(s.Bytes, cat), throughput(s.Bytes, ours)
			fmt.Fprintf(b, "\nCeiling: plain reading (`find | cat`, warm cache) runs at %s; retryspec copy at %s is %.1f%% of it.\n", fmtRate(ct), fmtRate(ot), 100*ot/ct)
		} else {
			fmt.Fprintf(b, "\nCeiling: not measured (%s).\n", mdEscape(whyNot(ours, cat)))
		}
	}
	b.WriteString("\n")
}

func whyNot(rs ...*Result) string {
	var parts []string
	for _, r := range rs {
		if !r.OK() {
			parts = append(parts, fmt.Sprintf("%s %s", r.Tool.Name, r.Status))
		}
	}
	return strings.Join(parts, ", ")
}

// renderCurve writes a curve's table and verdict.
func renderCurve(b *strings.Builder, c *Curve, plot string) {
	fmt.Fprintf(b, "### %s\n\n", c.Title)
	perLabel := "time per 1,000 endpoints"
	if c.XUnit == "MB" {
		perLabel = "throughput"
	}
	fmt.Fprintf(b, "| %s | timed runs | median wall | median CPU | median peak RSS | %s | status |\n|---|---|---|---|---|---|---|\n", c.XLabel, perLabel)
	for _, p := range c.Points {
		r := p.Result
		x := fmtNum(p.X)
		if c.XUnit == "MB" {
			x = fmt.Sprintf("%.1f", p.X)
		}
		if !r.OK() {
			fmt.Fprintf(b, "| %s | 0 | - | - | - | - | %s |\n", x, statusCell(r))
			continue
		}
		per := ""
		if c.XUnit == "MB" {
			per = fmtRate(p.X / r.Summary.Wall.Seconds())
		} else {
			per = fmtDur(time.Duration(float64(r.Summary.Wall) * 1000 / p.X))
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | ok |\n", x, r.Summary.N, fmtDur(r.Summary.Wall), fmtDur(r.Summary.CPU), fmtMB(r.Summary.MaxRSS), per)
	}
	fmt.Fprintf(b, "\nGrowth: %s.\n\n", c.Verdict())
	if plot != "" {
		fmt.Fprintf(b, "![%s](%s)\n\n", c.Title, plot)
	}
}

// plotCurve draws a curve's measured points; nil with fewer than two.
func plotCurve(c *Curve) []byte {
	xs, wall, cpu, rss := c.measured()
	if len(xs) < 2 {
		return nil
	}
	secs := make([]float64, len(wall))
	cpus := make([]float64, len(wall))
	mbs := make([]float64, len(rss))
	for i := range wall {
		secs[i], cpus[i], mbs[i] = wall[i].Seconds(), cpu[i].Seconds(), mb(rss[i])
	}
	return PlotSVG(c.Title, c.XLabel, xs, []Panel{{"median wall time (s)", secs}, {"median CPU time (s)", cpus}, {"median peak RSS (MB)", mbs}})
}

// target is one goal of the issue and how this run did against it.
type target struct{ goal, measured, verdict string }

func (b *bench) targets() []target {
	var ts []target
	sec := func(id string) *Section {
		for _, s := range b.sections {
			if s.ID == id {
				return s
			}
		}
		return nil
	}
	pairTarget := func(goal string, s *Section, ai, bi int, want float64) {
		if s == nil {
			ts = append(ts, target{goal, "not run", "-"})
			return
		}
		a, o := s.Results[ai], s.Results[bi]
		if !a.OK() || !o.OK() {
			ts = append(ts, target{goal, "not measured: " + whyNot(a, o), "-"})
			return
		}
		if s.Void != "" {
			ts = append(ts, target{goal, "comparison void (see above)", "-"})
			return
		}
		r := ratio(o.Summary.Wall, a.Summary.Wall)
		m := fmt.Sprintf("wall %s vs %s: %s; CPU %s vs %s: %s", fmtDur(a.Summary.Wall), fmtDur(o.Summary.Wall), fmtRatio(r),
			fmtDur(a.Summary.CPU), fmtDur(o.Summary.CPU), fmtRatio(ratio(o.Summary.CPU, a.Summary.CPU)))
		if a.Fallback {
			ts = append(ts, target{goal, m + " (" + a.Tool.Name + ": not the command the target names)", "not judged"})
			return
		}
		if r >= want {
			ts = append(ts, target{goal, m, "met"})
		} else {
			ts = append(ts, target{goal, m, fmt.Sprintf("missed: %.2fx short of %.0fx", want-r, want)})
		}
	}
	pairTarget("copy: at least 20x Vale's throughput", sec("copy"), 0, 1, 20)
	copySec := sec("copy-ceiling")
	if copySec == nil {
		copySec = sec("copy")
	}
	if copySec != nil && copySec.Ceiling < 0 {
		copySec = nil
	}
	if copySec != nil {
		ours, cat := copySec.Results[0], copySec.Results[copySec.Ceiling]
		if ours.OK() && cat.OK() {
			f := throughput(copySec.Bytes, ours) / throughput(copySec.Bytes, cat)
			m := fmt.Sprintf("%.1f%% of cat", 100*f)
			v := "met"
			if f < 0.30 {
				v = fmt.Sprintf("missed by %.1f points", 100*(0.30-f))
			}
			ts = append(ts, target{"copy: at least 30% of the cat ceiling", m, v})
		} else {
			ts = append(ts, target{"copy: at least 30% of the cat ceiling", "not measured: " + whyNot(ours, cat), "-"})
		}
	}
	oa := sec("openapi")
	pairTarget("check --openapi faster than redocly lint", oa, 0, 2, 1)
	pairTarget("check --openapi faster than spectral lint", oa, 0, 3, 1)
	pairTarget("openapi --merged faster than redocly lint", oa, 1, 2, 1)
	pairTarget("build faster than redocly build-docs", sec("build"), 0, 1, 1)
	for _, c := range b.curveSet {
		xs, _, _, _ := c.measured()
		v := c.Verdict()
		verdict := "met"
		switch {
		case len(xs) < 2:
			verdict = "-"
		case strings.Contains(v, "CLIFF") || strings.Contains(v, "MEMORY GROWS"):
			verdict = "missed"
		}
		ts = append(ts, target{c.ID + ": linear or better, no cliff", v, verdict})
	}
	return ts
}

// markdown is the whole report; BENCHMARKS.md when written.
func (b *bench) markdown(plots map[string]string) string {
	var s strings.Builder
	mode := "full run"
	if b.cfg.quick {
		mode = "quick smoke run (`--quick`: small inputs, one repetition; not for publishing)"
	}
	s.WriteString("# Benchmarks\n\n")
	s.WriteString("retryspec measured against the tools a team would otherwise run, side by side on the same data in the same run, and its cost curves. ")
	s.WriteString("Every figure below was measured by `bench/run`; a command this build does not have yet is listed as not available, with no figure.\n\n")
	fmt.Fprintf(&s, "- Run: %s, %s UTC to %s UTC, commit `%s`, %d timed rounds per comparison (after one warm-up round), %d per curve point.\n",
		mode, b.started.Format("2006-01-02 15:04"), b.finished.Format("15:04"), b.commit, b.cfg.reps, b.cfg.curveReps)
	s.WriteString("\n## Machine\n\n")
	fmt.Fprintf(&s, "- CPU: %s, %d cores\n- Memory: %.1f GiB\n- OS: %s\n- Go: %s\n", b.machine.CPU, b.machine.Cores, float64(b.machine.MemBytes)/(1<<30), b.machine.Kernel, b.machine.Go)
	s.WriteString("\nThe machine is shared (other builds and tests may run at the same time); alternating the tools round by round spreads that noise over all of them, and medians drop the outliers.\n")
	s.WriteString("\n## Tools\n\n| tool | version |\n|---|---|\n")
	for _, v := range b.versions {
		fmt.Fprintf(&s, "| %s | %s |\n", v[0], mdEscape(v[1]))
	}
	s.WriteString("\n## Method\n\n")
	s.WriteString("- Each comparison runs its tools alternately (A B A B ..., or A B C D for four) after one warm-up round of each, so both the page cache and a noisy neighbour affect every tool alike.\n")
	s.WriteString("- Wall time is measured around the child process; CPU time is user plus system time and peak RSS is `ru_maxrss`, both from the kernel's rusage of the child and the descendants it waited for (Node launchers included).\n")
	fmt.Fprintf(&s, "- The tools are started by a small spawner process, not by the harness itself: on Linux a child's `ru_maxrss` includes the peak of the address space it was started from, so a harness that has parsed a large spec would inflate every later figure. The spawner's floor, measured on `/bin/true` in this run, is %s; no peak RSS below can be lower.\n", fmtMB(b.rssFloor))
	s.WriteString("- Each figure is the median of the timed runs. A ratio B/A above 1 means retryspec takes that many times less.\n")
	s.WriteString("- The copy comparison is valid only when both tools report every planted claim; otherwise it is declared void.\n")
	s.WriteString("- Cost curves are judged on CPU time, which waiting for a core on the shared machine does not inflate: a segment is a cliff when its elasticity (log time ratio over log size ratio; 1 is linear) is above 1.3 and it adds more than 50 ms beyond linear growth. Copy memory must stay within 1.5x (+32 MB) of the smallest corpus's.\n")

	s.WriteString("\n## Side by side\n\n")
	if len(b.sections) == 0 {
		s.WriteString("Not run in this invocation.\n\n")
	}
	for _, sec := range b.sections {
		renderSection(&s, sec)
	}
	s.WriteString("## Targets\n\n| target | measured | verdict |\n|---|---|---|\n")
	for _, t := range b.targets() {
		fmt.Fprintf(&s, "| %s | %s | %s |\n", t.goal, mdEscape(t.measured), t.verdict)
	}
	s.WriteString("\n## Cost curves\n\n")
	if len(b.curveSet) == 0 {
		s.WriteString("Not run in this invocation.\n\n")
	}
	for _, c := range b.curveSet {
		renderCurve(&s, c, plots[c.ID])
	}
	// bench/server measures the idempotency middleware on databases the
	// harness does not start; its last written results are included as is.
	if res, err := os.ReadFile(filepath.Join(b.cfg.root, "bench", "server-results.md")); err == nil {
		s.WriteString("## The idempotency middleware (bench/server)\n\n")
		s.Write(res)
		s.WriteString("\n")
	}
	s.WriteString("## How to reproduce\n\n")
	s.WriteString("```sh\n")
	s.WriteString("bench/run            # builds retryspec, installs the peers into bench/.cache, prepares the data, prints this report\n")
	s.WriteString("bench/run --write    # also rewrites BENCHMARKS.md and bench/plots/*.svg\n")
	s.WriteString("bench/run --quick    # smoke run: small inputs, one repetition (a few minutes)\n")
	s.WriteString("bench/gobench        # every package's Go benchmarks, once each (go test -bench . -benchtime 1x)\n")
	s.WriteString("bench/server --write # the idempotency middleware on SQLite and PostgreSQL, into bench/server-results.md\n")
	s.WriteString("```\n\n")
	s.WriteString("The data comes from `../shared/data` (the corpora and specs, read in place) and is generated into `bench/.cache` (gitignored): the replicated corpora, the contracts and the trimmed spec. ")
	s.WriteString("The peers are pinned by bench/run: Vale v3.22.0 (`go install`), `@redocly/cli` and `@stoplight/spectral-cli` (npm, into `bench/.cache/npm`), oasdiff (`go install`). ")
	s.WriteString("Flags after bench/run go to the harness (`go run ./bench/harness -h`): `--only copy,openapi,build,diff,curves`, `--reps N`, `--curve-reps N`, `--timeout D`, `--vale-mb N` (the copy pair on N MB, without sizing it by Vale's probes).\n")
	return s.String()
}

// report prints the Markdown report and, with -write, writes BENCHMARKS.md
// and the plots into the repository.
func (b *bench) report() error {
	plotDir := filepath.Join(b.out(), "plots")
	if b.cfg.write {
		plotDir = filepath.Join(b.cfg.root, "bench", "plots")
		if old, err := filepath.Glob(filepath.Join(plotDir, "*.svg")); err == nil {
			for _, p := range old {
				os.Remove(p)
			}
		}
	}
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return err
	}
	plots := map[string]string{}
	for _, c := range b.curveSet {
		svg := plotCurve(c)
		if svg == nil {
			continue
		}
		p := filepath.Join(plotDir, c.ID+".svg")
		if err := os.WriteFile(p, svg, 0o644); err != nil {
			return err
		}
		plots[c.ID] = filepath.ToSlash(filepath.Join("bench", "plots", c.ID+".svg"))
		if !b.cfg.write {
			plots[c.ID] = p
		}
	}
	md := b.markdown(plots)
	fmt.Print(md)
	if b.cfg.write {
		p := filepath.Join(b.cfg.root, "BENCHMARKS.md")
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			return err
		}
		logf("wrote %s and %s", p, plotDir)
	}
	return nil
}
