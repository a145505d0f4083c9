package main

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		want int64
	}{
		{"empty", nil, 0},
		{"one", []int64{7}, 7},
		{"odd unsorted", []int64{9, 1, 5}, 5},
		{"even takes the mean of the middle two", []int64{4, 1, 3, 2}, 2},
		{"outlier does not move it", []int64{10, 11, 12, 13, 900}, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]int64(nil), tt.in...)
			if got := median(tt.in); got != tt.want {
				t.Errorf("median(%v) = %d, want %d", in, got, tt.want)
			}
			for i := range in {
				if in[i] != tt.in[i] {
					t.Fatalf("median reordered its input: %v, was %v", tt.in, in)
				}
			}
		})
	}
}

func TestSummarizeTakesMedianPerMeasure(t *testing.T) {
	s := Summarize([]Sample{
		{Wall: 3 * time.Second, CPU: 1 * time.Second, MaxRSS: 300},
		{Wall: 1 * time.Second, CPU: 5 * time.Second, MaxRSS: 100},
		{Wall: 2 * time.Second, CPU: 3 * time.Second, MaxRSS: 900},
	})
	want := Summary{N: 3, Wall: 2 * time.Second, CPU: 3 * time.Second, MaxRSS: 300}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		peer, ours time.Duration
		want       float64
	}{
		{10 * time.Second, 1 * time.Second, 10},
		{1 * time.Second, 4 * time.Second, 0.25},
		{0, time.Second, 0},
		{time.Second, 0, 0},
	}
	for _, tt := range tests {
		if got := ratio(tt.peer, tt.ours); got != tt.want {
			t.Errorf("ratio(%v, %v) = %v, want %v", tt.peer, tt.ours, got, tt.want)
		}
	}
}
