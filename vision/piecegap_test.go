package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPieceGapDoubt: two removed pieces 4 mm apart are in doubt as two pieces when nothing
// but a gap in the paper, or a strip of paper thinner than the masks resolve, lies between
// them, and not when solid paper does, nor when they lie farther apart than PieceGapMM.
func TestPieceGapDoubt(t *testing.T) {
	const ppm, w, h = 4.0, 200, 120
	build := func(gapPx int, between func(x, y int) bool) ([]int32, []byte) {
		lb := make([]int32, w*h)
		am := make([]byte, w*h)
		for y := range h {
			for x := range w {
				i := y*w + x
				switch {
				case y >= 10 && y < 50 && x >= 10 && x < 50:
					lb[i] = 1
				case y >= 10 && y < 50 && x >= 50+gapPx && x < 50+gapPx+40:
					lb[i] = 2
				case x >= 50 && x < 50+gapPx && y >= 10 && y < 50:
					if between(x, y) {
						am[i] = 255
					}
				default:
					am[i] = 255 // the paper left elsewhere
				}
			}
		}
		return lb, am
	}
	paper := func(x, y int) bool { return true }
	none := func(x, y int) bool { return false }
	thin := func(x, y int) bool { return y == 30 || y == 31 } // 0.5 mm of paper

	lb, am := build(16, paper)
	assert.Empty(t, pieceGapDoubt(lb, []int{1, 2}, am, w, h, ppm, 0), "4 mm of solid paper between them: two pieces")
	lb, am = build(16, none)
	assert.Contains(t, pieceGapDoubt(lb, []int{1, 2}, am, w, h, ppm, 0), "within 4.2 mm of each other at (14, 2) mm", "pixel centres 17 px apart, midway between (49, 10) and (66, 10)")
	lb, am = build(16, thin)
	assert.NotEmpty(t, pieceGapDoubt(lb, []int{1, 2}, am, w, h, ppm, 0), "0.5 mm of paper between them is not solid")
	lb, am = build(24, none)
	assert.Empty(t, pieceGapDoubt(lb, []int{1, 2}, am, w, h, ppm, 0), "6 mm apart: farther than PieceGapMM")
	assert.Empty(t, pieceGapDoubt(lb, []int{1}, am, w, h, ppm, 0), "one piece")

	gap, a, b, ok := pieceGap(lb, []int{1, 2}, w, h, 100)
	assert.True(t, ok)
	assert.InDelta(t, 25, gap, 0.5, "from x=49 to x=74")
	assert.Equal(t, 49, a.X)
	assert.Equal(t, 74, b.X)
}
