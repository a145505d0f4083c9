package copylint

import (
	_ "embed"
	"sync"

	"github.com/retryspec/retryspec/contract"
)

// learnedModelJSON is the model internal/learngen trained on every
// labelled set of bench/copyfield (go generate ./copylint).
//
//go:embed learned_model.json
var learnedModelJSON []byte

// learnedOn says whether the linter reads with the learned reader by
// default. Off: on the leave-one-set-out measurement (bench/copyfield,
// TestLearnedLeaveOneOut) the reader raised heldout7's recall but not at
// precision 0.95 with the families the hand labels allow (README.md,
// "The learned second reader").
const learnedOn = false

var shipped = sync.OnceValues(func() (*LearnedModel, error) { return DecodeLearnedModel(learnedModelJSON) })

// ShippedLearnedModel is the embedded model.
func ShippedLearnedModel() (*LearnedModel, error) { return shipped() }

// shippedReader is the default reader of a linter with contract c: none
// without a contract (every family it proposes is judged by one) or while
// learnedOn is false.
func shippedReader(c *contract.Contract) *learnedReader {
	if !learnedOn || c == nil {
		return nil
	}
	m, err := shipped()
	if err != nil {
		panic("copylint: the embedded learned model does not decode: " + err.Error())
	}
	return &learnedReader{m: m, threshold: LearnedThreshold, families: LearnedFieldFamilies}
}
