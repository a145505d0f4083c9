package copylint

import (
	"math"
	"slices"
	"strings"
)

// learnedIndex is a model's features by token: every token a feature
// holds gets an id, so reading a sentence looks each token up once, by
// its string, and each bigram by the pair of its tokens' ids, where the
// model's own map would hash every unigram and every joined bigram.
type learnedIndex struct {
	ids map[string]uint32    // token: its id, from 1 (0: no feature holds it)
	uni [][]float64          // by id: the unigram's weights, nil for none
	bi  map[uint64][]float64 // pairKey of a bigram's ids: its weights
}

// pairKey is the key of the bigram of the tokens with ids a and b.
func pairKey(a, b uint32) uint64 { return uint64(a)<<32 | uint64(b) }

// index is the model's index, built on its first reading. A model is not
// changed once it reads (TrainLearned and DecodeLearnedModel return it
// whole), so the index stays true to its weights.
func (m *LearnedModel) index() *learnedIndex {
	m.indexOnce.Do(func() { m.ix = newLearnedIndex(m) })
	return m.ix
}

func newLearnedIndex(m *LearnedModel) *learnedIndex {
	ix := &learnedIndex{ids: map[string]uint32{}, uni: [][]float64{nil}, bi: map[uint64][]float64{}}
	id := func(t string) uint32 {
		if n, ok := ix.ids[t]; ok {
			return n
		}
		n := uint32(len(ix.uni))
		ix.ids[t] = n
		ix.uni = append(ix.uni, nil)
		return n
	}
	for f, ws := range m.Weights {
		// A token holds no space: a feature with one is a bigram.
		if a, b, ok := strings.Cut(f, " "); ok {
			ix.bi[pairKey(id(a), id(b))] = ws
		} else {
			ix.uni[id(f)] = ws
		}
	}
	return ix
}

// predictTokens reads a sentence's tokens. It sums the weights of
// learnedFeatures(toks) in the same order, without building them: each
// token is looked up once, a bigram by its tokens' ids, and a feature
// seen before in the sentence is skipped by comparing keys
// (TestPredictTokensMatchesFeatures holds the sum, bit for bit, to the
// built features').
func (m *LearnedModel) predictTokens(toks []string) (string, float64) {
	var pBuf [16]float64
	return m.reading(m.classProbs(toks, pBuf[:0]))
}

// classProbs appends to dst the probability of each of the model's
// classes (in m.Classes' order) for a sentence's tokens.
func (m *LearnedModel) classProbs(toks []string, dst []float64) []float64 {
	ix := m.index()
	var idBuf, keyBuf [64]uint32
	ids, keys := idBuf[:0], keyBuf[:0]
	for _, t := range toks {
		ids = append(ids, ix.ids[t])
	}
	keys = tokenKeys(toks, ids, uint32(len(ix.uni)), keys)
	var seenBuf [128]bool
	seen := seenBuf[:0] // unigram i at 2i, bigram ending at i at 2i+1
	n := 0
	for i := range keys {
		u := slices.Contains(keys[:i], keys[i])
		b := i == 0 || pairSeen(keys, i)
		seen = append(seen, u, b)
		if !u {
			n++
		}
		if !b {
			n++
		}
	}
	K := len(m.Classes)
	p := append(dst, m.Bias...)
	v := 1 / math.Sqrt(float64(max(n, 1)))
	add := func(ws []float64) {
		for k := range K {
			p[k] += float64(ws[k] * v)
		}
	}
	for i, id := range ids {
		if !seen[2*i] && id != 0 && ix.uni[id] != nil {
			add(ix.uni[id])
		}
		if !seen[2*i+1] && id != 0 && ids[i-1] != 0 {
			if ws, ok := ix.bi[pairKey(ids[i-1], id)]; ok {
				add(ws)
			}
		}
	}
	softmax(p)
	return p
}

// reading is the model's reading of a sentence's class probabilities:
// the most likely class and its probability.
func (m *LearnedModel) reading(scores []float64) (string, float64) {
	best := 0
	for k := range scores {
		if scores[k] > scores[best] {
			best = k
		}
	}
	return m.Classes[best], scores[best]
}

// tokenKeys appends to keys one key per token, equal for equal tokens: a
// token's id where the model knows it, else a number past every id,
// shared by the token's earlier copies.
func tokenKeys(toks []string, ids []uint32, past uint32, keys []uint32) []uint32 {
	for i, id := range ids {
		if id == 0 {
			id = past + uint32(i)
			for j := range i {
				if ids[j] == 0 && toks[j] == toks[i] {
					id = keys[j]
					break
				}
			}
		}
		keys = append(keys, id)
	}
	return keys
}

// pairSeen reports whether the pair of keys ending at i came earlier.
func pairSeen(keys []uint32, i int) bool {
	for j := 1; j < i; j++ {
		if keys[j] == keys[i] && keys[j-1] == keys[i-1] {
			return true
		}
	}
	return false
}
