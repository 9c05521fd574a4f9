package main

import (
	"bytes"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{"defaults", []string{"--out", "d"}, options{out: "d", seed: 1, cases: 10, size: image.Pt(1600, 1200)}, ""},
		{"all flags", []string{"--out", "d", "--seed", "7", "--cases", "40", "--size", "1920x1080"}, options{out: "d", seed: 7, cases: 40, size: image.Pt(1920, 1080)}, ""},
		{"sample", []string{"--out", "s", "--sample", "p.jpg"}, options{out: "s", seed: 1, cases: 10, size: image.Pt(1600, 1200), sample: "p.jpg"}, ""},
		{"no out", []string{"--seed", "1"}, options{}, "--out is required"},
		{"bad size", []string{"--out", "d", "--size", "big"}, options{}, "--size"},
		{"no cases", []string{"--out", "d", "--cases", "0"}, options{}, "--cases"},
		{"stray argument", []string{"--out", "d", "x"}, options{}, "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := parse(tc.args, &stderr)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRunBadUsage(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 2, run([]string{"--size", "1x1"}, &stderr))
	assert.Contains(t, stderr.String(), "tearcam-synth:")
}
