package vision

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"gocv.io/x/gocv"
)

// TestWrapText: long verdict lines are wrapped at spaces so that every line fits the
// annotated image's width (a GM must be able to read the whole reason).
func TestWrapText(t *testing.T) {
	const fs, tk, width = 0.8, 2, 400
	long := strings.Repeat("letter 3 (a) of Tea Ceremony is too close to call; ", 8)
	got := wrapText(long, fs, tk, width)
	assert.Greater(t, len(got), 3, "a 400-character line needs several 400 px lines")
	assert.Equal(t, strings.Fields(long), strings.Fields(strings.Join(got, " ")), "no word lost or split")
	for _, l := range got {
		assert.LessOrEqual(t, gocv.GetTextSize(l, gocv.FontHersheySimplex, fs, tk).X, width, l)
	}
	assert.Equal(t, []string{"short"}, wrapText("short", fs, tk, width))
	assert.Equal(t, []string{""}, wrapText("", fs, tk, width))
	// A word wider than the width stays whole on its own line.
	huge := strings.Repeat("W", 60)
	assert.Equal(t, []string{"a", huge, "b"}, wrapText("a "+huge+" b", fs, tk, width))
}
