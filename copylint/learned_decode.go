package copylint

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// encodedModel is the JSON Encode writes, before the weights are scaled
// back.
type encodedModel struct {
	Classes []string             `json:"classes"`
	Scale   float64              `json:"scale"`
	Bias    []float64            `json:"bias"`
	Weights map[string][]float64 `json:"weights"`
}

// scanEncoded reads the exact layout Encode writes, a line per feature,
// without encoding/json's reflection: the embedded model is decoded on
// every run with the reader on, and the general decoder took a large
// share of a short run's time. Anything else (another layout, a model
// edited by hand) reports false, and DecodeLearnedModel decodes it with
// encoding/json (TestScanEncodedMatchesJSON compares the two).
func scanEncoded(data []byte) (encodedModel, bool) {
	var m encodedModel
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) < 8 || string(lines[0]) != "{" {
		return m, false
	}
	head := [...]string{`"classes": `, `"scale": `, `"bias": `}
	vals := make([][]byte, len(head))
	for i, h := range head {
		v, ok := bytes.CutPrefix(lines[i+1], []byte(h))
		v, comma := bytes.CutSuffix(v, []byte(","))
		if !ok || !comma {
			return m, false
		}
		vals[i] = v
	}
	if json.Unmarshal(vals[0], &m.Classes) != nil || json.Unmarshal(vals[1], &m.Scale) != nil {
		return m, false
	}
	var ok bool
	if m.Bias, ok = scanInts(vals[2]); !ok || string(lines[4]) != `"weights": {` {
		return m, false
	}
	n := len(lines)
	if string(lines[n-3]) != "}" || string(lines[n-2]) != "}" || len(lines[n-1]) != 0 {
		return m, false
	}
	m.Weights = make(map[string][]float64, n-8)
	for i, line := range lines[5 : n-3] {
		line, comma := bytes.CutSuffix(line, []byte(","))
		if comma == (i == n-9) { // every feature line but the last ends with a comma
			return m, false
		}
		if !scanFeature(line, m.Weights) {
			return m, false
		}
	}
	return m, true
}

// scanFeature reads one `"feature": [ints]` line into ws.
func scanFeature(line []byte, ws map[string][]float64) bool {
	i := bytes.Index(line, []byte(`": [`))
	if len(line) < 2 || line[0] != '"' || i < 1 {
		return false
	}
	key := string(line[1:i])
	if bytes.IndexByte(line[:i+1], '\\') >= 0 {
		// An escaped feature name: let encoding/json read the string.
		if json.Unmarshal(line[:i+1], &key) != nil {
			return false
		}
	}
	v, ok := scanInts(line[i+3:])
	if _, dup := ws[key]; !ok || dup {
		return false
	}
	ws[key] = v
	return true
}

// scanInts reads a JSON array of integers, "[1,-2,3]", as float64s.
func scanInts(b []byte) ([]float64, bool) {
	b, ok := bytes.CutPrefix(b, []byte("["))
	if b, ok2 := bytes.CutSuffix(b, []byte("]")); ok && ok2 && len(b) > 0 {
		out := make([]float64, 0, bytes.Count(b, []byte(","))+1)
		for f := range bytes.SplitSeq(b, []byte(",")) {
			n, err := strconv.ParseInt(string(f), 10, 64)
			if err != nil {
				return nil, false
			}
			out = append(out, float64(n))
		}
		return out, true
	}
	return nil, false
}
