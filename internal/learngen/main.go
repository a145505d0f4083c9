// Command learngen trains the copy lint's learned reader on every
// labelled set of bench/copyfield and its neutral training set
// (copyset.TrainingSets), against the contract they are
// labelled with (examples/payouts/retryspec.yaml), and writes the model
// copylint embeds. Run by `go generate ./copylint`; deterministic: the
// same sets give the same bytes. It imports contract, copylint and
// internal/copyset.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/internal/copyset"
)

func main() {
	out := flag.String("o", "learned_model.json", "where to write the model")
	root := flag.String("root", "..", "the repository root")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "learngen:", err)
		os.Exit(2)
	}
}

func run(root, out string) error {
	m, err := train(root, copyset.TrainingSets())
	if err != nil {
		return err
	}
	return os.WriteFile(out, m.Encode(), 0o644)
}

// train trains the reader on the named sets of root's bench/copyfield.
func train(root string, sets []string) (*copylint.LearnedModel, error) {
	c, err := contract.Load(filepath.Join(root, "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		return nil, err
	}
	return copylint.TrainLearnedSets(c, filepath.Join(root, "bench", "copyfield"), sets)
}
