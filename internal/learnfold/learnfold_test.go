package learnfold

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
)

// TestTrainSideBySide: models trained side by side, sharing one
// contract, are byte for byte the models trained one after another, in
// fold order (under -race in make test, which is the point: the
// leave-one-out test that calls Train runs without the detector).
func TestTrainSideBySide(t *testing.T) {
	c, err := contract.Load(filepath.Join("..", "..", "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	all := []copylint.LearnedSample{
		{Text: "Our client retries forever until the payout succeeds.", Family: "retry-duration"},
		{Text: "Every endpoint is idempotent, so retry anything.", Family: "api-idempotent"},
		{Text: "You can resend a transfer without an idempotency key.", Family: "keyless-retry"},
		{Text: "The client retries up to 3 times within 60 seconds.", Family: ""},
		{Text: "Send the same Idempotency-Key when you retry a transfer.", Family: ""},
		{Text: "Archiving a report twice archives it once.", Family: ""},
	}
	var folds [][]copylint.LearnedSample
	for i := range all {
		folds = append(folds, append(append([]copylint.LearnedSample(nil), all[:i]...), all[i+1:]...))
	}
	o := copylint.LearnedTrainOptions{Epochs: 50, MinCount: 1}
	got := Train(c, folds, o)
	if len(got) != len(folds) {
		t.Fatalf("%d models for %d folds", len(got), len(folds))
	}
	for i, f := range folds {
		want := copylint.TrainLearned(c, f, o).Encode()
		if got[i] == nil || !bytes.Equal(got[i].Encode(), want) {
			t.Errorf("fold %d: the model trained side by side differs from the one trained alone", i)
		}
	}
}
