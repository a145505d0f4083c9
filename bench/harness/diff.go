package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// diffVsOasdiff: the breaking-change gate a CI job runs on a pull request.
// retryspec diff compares two versions of the contract, oasdiff breaking two
// versions of the spec; both versions describe the same operations, and the
// new one drops the same operation from both. The check is that each tool
// reports the dropped operation.
func (b *bench) diffVsOasdiff() error {
	spec, _, doc, err := b.largestSpecDoc()
	if err != nil {
		return err
	}
	ops := flatten(SpecOps(doc))
	if len(ops) < 2 {
		return fmt.Errorf("%s has %d operations; the diff comparison needs two", spec, len(ops))
	}
	gone := ops[len(ops)-1]
	if !dropOperation(doc, gone) {
		return fmt.Errorf("could not drop %s %s from %s", gone.Method, gone.Path, spec)
	}
	var newSpec bytes.Buffer
	enc := yaml.NewEncoder(&newSpec)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	enc.Close()

	// The old side is the spec as published, read in place.
	files := map[string][]byte{
		"diff-old.yaml":      ContractYAML(ops),
		"diff-new.yaml":      ContractYAML(ops[:len(ops)-1]),
		"diff-new-spec.yaml": newSpec.Bytes(),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(b.work(), name), data, 0o644); err != nil {
			return err
		}
	}
	rel, _ := filepath.Rel(b.cfg.data, spec)
	oursOut, peerOut := filepath.Join(b.out(), "diff.json"), filepath.Join(b.out(), "oasdiff.txt")
	sec := &Section{
		ID:    "diff",
		Title: "Breaking-change gate: retryspec diff vs oasdiff breaking",
		Data: []string{
			fmt.Sprintf("`%s` (%d operations) and a generated contract classifying them, each against a new version without `%s %s`", rel, len(ops), gone.Method, gone.Path),
			"retryspec compares the two contracts (JSON output), oasdiff the two specs (`oasdiff breaking`, text output): each is the whole job of a CI gate on its own file, but the files differ (a contract of tens of kB, a spec of MBs), so the ratio is what each gate costs a pipeline, not two speeds at one task",
		},
		Ceiling: -1,
	}
	ours := b.ours("retryspec diff", "diff", "diff-old.yaml", "diff-new.yaml", "--format", "json")
	ours.Stdout = oursOut
	peer := b.peer("oasdiff breaking", b.bins.oasdiff, "breaking", spec, filepath.Join(b.work(), "diff-new-spec.yaml"))
	peer.Stdout = peerOut
	logf("diff group, %d rounds after a warm-up", b.cfg.reps)
	b.measure(sec, []Tool{ours, peer})
	sec.Pairs = [][2]int{{0, 1}}
	for i, out := range []string{oursOut, peerOut} {
		if !sec.Results[i].OK() {
			continue
		}
		data, _ := os.ReadFile(out)
		if bytes.Contains(data, []byte(gone.Path)) {
			sec.Checks = append(sec.Checks, fmt.Sprintf("%s reports the dropped operation", sec.Results[i].Tool.Name))
		} else {
			sec.Void = fmt.Sprintf("%s did not report the dropped operation %s %s", sec.Results[i].Tool.Name, gone.Method, gone.Path)
		}
	}
	b.sections = append(b.sections, sec)
	return nil
}

// dropOperation removes op from the spec document, and its path when no
// operation is left under it.
func dropOperation(doc *yaml.Node, op Op) bool {
	paths := mapValue(doc.Content[0], "paths")
	if paths == nil {
		return false
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		if paths.Content[i].Value != op.Path {
			continue
		}
		item := paths.Content[i+1]
		left := 0
		dropped := false
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j].Value
			if strings.EqualFold(k, op.Method) && isMethod(k) {
				item.Content = append(item.Content[:j], item.Content[j+2:]...)
				j -= 2
				dropped = true
			} else if isMethod(k) {
				left++
			}
		}
		if dropped && left == 0 {
			paths.Content = append(paths.Content[:i], paths.Content[i+2:]...)
		}
		return dropped
	}
	return false
}
