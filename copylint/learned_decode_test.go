package copylint

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanEncodedMatchesJSON: the line scanner reads the embedded model,
// and a model whose feature names need escaping, exactly as
// encoding/json does, and leaves any other layout to it.
func TestScanEncodedMatchesJSON(t *testing.T) {
	odd := &LearnedModel{
		Classes: []string{learnedNone, "exactly-once"},
		Bias:    []float64{1, -1},
		Weights: map[string][]float64{`a"b`: {1, 2}, `c\d`: {-3, 0}, "<e> &f": {0.5, 0.25}, "é g": {-0.0001, 7}, "h": {9, -9}},
	}
	indented := new(bytes.Buffer)
	if err := json.Indent(indented, odd.Encode(), "", "  "); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		layout bool // written by Encode, so the scanner reads it
	}{
		{"embedded model", learnedModelJSON, true},
		{"escaped names", odd.Encode(), true},
		{"no features", (&LearnedModel{Classes: []string{learnedNone}, Bias: []float64{0}}).Encode(), true},
		{"indented", indented.Bytes(), false},
		{"last feature with a comma", bytes.Replace(odd.Encode(), []byte("]\n}\n}"), []byte("],\n}\n}"), 1), false},
		{"another name for the scale", bytes.Replace(odd.Encode(), []byte(`"scale": `), []byte(`"unit": `), 1), false},
		{"a feature twice", bytes.Replace(odd.Encode(), []byte(`"h": [`), []byte(`"<e> &f": [`), 1), false},
	} {
		got, ok := scanEncoded(tc.data)
		if ok != tc.layout {
			t.Errorf("%s: scanEncoded read it: %v, want %v", tc.name, ok, tc.layout)
		}
		if !ok {
			continue
		}
		var want encodedModel
		if err := json.Unmarshal(tc.data, &want); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: scanEncoded differs from encoding/json (-json +scan):\n%s", tc.name, d)
		}
	}
	if _, err := DecodeLearnedModel(indented.Bytes()); err != nil {
		t.Errorf("an indented model no longer decodes: %v", err)
	}
}
