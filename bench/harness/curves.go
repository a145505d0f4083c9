package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// curves measures each retryspec command against input size. A point
// runs one warm-up and curveReps timed runs; a command that is not
// available stops its curve at the first point.
func (b *bench) curves() error {
	reps := b.cfg.curveReps

	check := &Curve{ID: "check-endpoints", Title: "retryspec check: time and memory vs endpoints", XLabel: "endpoints in the contract", XUnit: "endpoints"}
	checkSpec := &Curve{ID: "check-openapi-endpoints", Title: "retryspec check --openapi: time and memory vs endpoints", XLabel: "endpoints (contract and spec)", XUnit: "endpoints"}
	for _, n := range b.sz.checkEndpoints {
		ops := SyntheticOps(n)
		contract := filepath.Join(b.work(), fmt.Sprintf("contract-%d.yaml", n))
		if err := os.WriteFile(contract, ContractYAML(ops), 0o644); err != nil {
			return err
		}
		specJSON, err := SyntheticSpec(ops)
		if err != nil {
			return err
		}
		spec := filepath.Join(b.work(), fmt.Sprintf("spec-%d.json", n))
		if err := os.WriteFile(spec, specJSON, 0o644); err != nil {
			return err
		}
		if b.curveOpen(check) {
			logf("curve %s at %d", check.ID, n)
			t := b.ours("retryspec check", "check", "-c", contract, "--format", "json")
			check.Points = append(check.Points, Point{X: float64(n), Result: b.runner.Measure([]Tool{t}, 1, reps)[0]})
		}
		if b.curveOpen(checkSpec) {
			logf("curve %s at %d", checkSpec.ID, n)
			t := b.ours("retryspec check --openapi", "check", "-c", contract, "--openapi", spec, "--format", "json")
			checkSpec.Points = append(checkSpec.Points, Point{X: float64(n), Result: b.runner.Measure([]Tool{t}, 1, reps)[0]})
		}
	}

	build := &Curve{ID: "build-endpoints", Title: "retryspec build: time and memory vs endpoints", XLabel: "endpoints in the contract", XUnit: "endpoints"}
	for _, n := range b.sz.buildEndpoints {
		if !b.curveOpen(build) {
			break
		}
		contract := filepath.Join(b.work(), fmt.Sprintf("contract-%d.yaml", n))
		if err := os.WriteFile(contract, ContractYAML(SyntheticOps(n)), 0o644); err != nil {
			return err
		}
		site := filepath.Join(b.out(), fmt.Sprintf("site-%d", n))
		t := b.ours("retryspec build", "build", "-c", contract, "--out", site)
		t.Before = func() error { return os.RemoveAll(site) }
		logf("curve %s at %d", build.ID, n)
		build.Points = append(build.Points, Point{X: float64(n), Result: b.runner.Measure([]Tool{t}, 1, reps)[0]})
		os.RemoveAll(site)
	}

	cp := &Curve{ID: "copy-corpus", Title: "retryspec copy: time and memory vs corpus size", XLabel: "corpus size (MB)", XUnit: "MB", FlatMemory: true}
	for _, size := range b.sz.copyCurveMB {
		if !b.curveOpen(cp) {
			break
		}
		c, err := b.corpus(size)
		if err != nil {
			return err
		}
		logf("curve %s at %g MB", cp.ID, size)
		t := b.copyTool(c, filepath.Join(b.out(), fmt.Sprintf("copy-%gMB.json", size)))
		cp.Points = append(cp.Points, Point{X: float64(c.Bytes) / 1e6, Result: b.runner.Measure([]Tool{t}, 1, reps)[0]})
		// The biggest corpus is only for this curve: give the disk back.
		if size > float64(b.sz.pairCorpusMB) {
			if err := c.Remove(); err != nil {
				return err
			}
		}
	}
	b.curveSet = append(b.curveSet, check, checkSpec, build, cp)
	return nil
}

// curveOpen is false once a curve's command proved missing or broken:
// bigger inputs would only repeat the same message.
func (b *bench) curveOpen(c *Curve) bool {
	for _, p := range c.Points {
		if p.Result != nil && (p.Result.Status == StatusUnavailable || p.Result.Status == StatusMissing) {
			return false
		}
	}
	return true
}
