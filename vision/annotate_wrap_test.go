package vision

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"gocv.io/x/gocv"

	"tearcam/judge"
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

// TestDashed: a template placement is drawn in dashes of 4 mm with gaps of 2 mm, so about
// two thirds of its outline is inked and the rest is not (a letter's outline is solid).
func TestDashed(t *testing.T) {
	const ppm = 4.0
	img := gocv.NewMatWithSize(200, 200, gocv.MatTypeCV8UC3)
	defer img.Close()
	sq := []judge.Point{{X: 5, Y: 5}, {X: 41, Y: 5}, {X: 41, Y: 41}, {X: 5, Y: 41}} // 144 mm around
	dashed(&img, sq, ppm, colTplPaper, 1)
	inked, along := 0, 0
	for x := 5 * ppm; x <= 41*ppm; x++ { // the top side, y = 5 mm
		along++
		if v := img.GetVecbAt(int(5*ppm), int(x)); v[0] != 0 || v[1] != 0 || v[2] != 0 {
			inked++
		}
	}
	frac := float64(inked) / float64(along)
	assert.InDelta(t, 4.0/6, frac, 0.06, "inked fraction of a side")
	// The dashes start at the first corner and follow each other round the corners.
	assert.NotEqual(t, uint8(0), img.GetVecbAt(int(5*ppm), int(5*ppm))[2])
	assert.Equal(t, uint8(0), img.GetVecbAt(int(5*ppm), int(5*ppm+5*ppm))[2], "5 mm along: in the gap")
}
