// Package learnfold trains the copy lint's learned reader once per fold,
// the folds side by side, one per core: bench/copyfield's leave-one-out
// test trains a dozen models. The goroutines live here, not there,
// because bench/copyfield runs without the race detector (the Makefile's
// nonRacePkgs start no goroutine); this package's test runs the same
// concurrency under it.
package learnfold

import (
	"runtime"
	"sync"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
)

// Train returns one model per fold, models[i] trained on folds[i] with
// options o. Each model depends on its own samples only, so the models
// are the same as trained one after another.
func Train(c *contract.Contract, folds [][]copylint.LearnedSample, o copylint.LearnedTrainOptions) []*copylint.LearnedModel {
	models := make([]*copylint.LearnedModel, len(folds))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, samples := range folds {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			models[i] = copylint.TrainLearned(c, samples, o)
		})
	}
	wg.Wait()
	return models
}
