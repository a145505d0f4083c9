package main

import (
	"bytes"
	"encoding/xml"
	"path/filepath"

	"github.com/retryspec/retryspec/internal/golden"
	"testing"
)

func TestPlotSVGGolden(t *testing.T) {
	got := PlotSVG("check <vs> endpoints", "endpoints", []float64{100, 1000, 10000, 50000},
		[]Panel{{"wall time (s)", []float64{0.012, 0.05, 0.4, 2.1}}, {"peak RSS (MB)", []float64{20, 24, 60, 250}}})
	golden.Check(t, filepath.Join("testdata", "plot.svg"), got)
	// Well-formed XML, and the title's markup is escaped.
	d := xml.NewDecoder(bytes.NewReader(got))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed: %v", err)
			}
			break
		}
	}
	if bytes.Contains(got, []byte("<vs>")) {
		t.Error("title not escaped")
	}
}

func TestDecades(t *testing.T) {
	if lo, hi := decades([]float64{100, 50000}); lo != 2 || hi != 5 {
		t.Errorf("decades = %d..%d, want 2..5", lo, hi)
	}
	if lo, hi := decades([]float64{30, 30}); lo != 1 || hi != 2 {
		t.Errorf("decades = %d..%d, want 1..2 (at least one decade)", lo, hi)
	}
}
