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

// LearnedDefault says whether the copy command and build's self-lint
// read with the learned reader (the LearnedFieldFamilies, at
// LearnedThreshold) when nothing says otherwise; `retryspec copy
// --learned` and --learned=false override it (Options.Learned). Off:
// with its wide veto copylint's own tests of the rules fail on
// hand-written claims it vetoes; with its sure veto they pass, but copy
// runs under 40 times Vale's throughput (README.md, "A sure veto, and a
// reader too slow to turn on").
const LearnedDefault = false

var shipped = sync.OnceValues(func() (*LearnedModel, error) { return DecodeLearnedModel(learnedModelJSON) })

// ShippedLearnedModel is the embedded model.
func ShippedLearnedModel() (*LearnedModel, error) { return shipped() }

// LearnedVetoDefault says whether the learned reader, when on, runs
// its wide veto (LearnedVeto, method-idempotency findings included)
// rather than its sure veto (LearnedSureVeto) when nothing says
// otherwise; `retryspec copy --learned-veto` and --learned-veto=false
// override it (Options.LearnedVeto).
const LearnedVetoDefault = true

// shippedReader is the default reader of a linter with contract c.
func shippedReader(c *contract.Contract) *learnedReader {
	return readerFor(c, LearnedDefault, LearnedVetoDefault)
}

// readerFor is the shipped reader when on, with its wide veto or its
// sure veto, for a linter with contract c: none without a contract
// (every family it reports is judged by one).
func readerFor(c *contract.Contract, on, wide bool) *learnedReader {
	if !on || c == nil {
		return nil
	}
	m, err := shipped()
	if err != nil {
		panic("copylint: the embedded learned model does not decode: " + err.Error())
	}
	r := &learnedReader{m: m, threshold: LearnedThreshold, families: LearnedFieldFamilies, veto: LearnedSureVeto, vetoKeeps: sureVetoKeeps, terms: termsOf(c)}
	if wide {
		r.veto, r.vetoKeeps = LearnedVeto, nil
	}
	return r
}
