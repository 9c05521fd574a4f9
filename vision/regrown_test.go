package vision

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestRegrown: paper on the after-mask that the before-mask lacks, with the areas drawn here
// (4 px/mm, so 1 mm² is 16 px).
func TestRegrown(t *testing.T) {
	const ppm = 4.0
	w, h := 210*4, 297*4
	// sheet is a paper mask with the given rectangles (mm, half-open) not paper, set pixel by
	// pixel so that the areas are exact.
	sheet := func(holes ...image.Rectangle) *SheetImage {
		b := make([]byte, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				b[y*w+x] = 255
				for _, r := range holes {
					if (image.Point{x / 4, y / 4}).In(r) {
						b[y*w+x] = 0
					}
				}
			}
		}
		m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, b)
		require.NoError(t, err)
		return &SheetImage{Mask: m, PxPerMM: ppm}
	}
	mm := image.Rect

	// A 20 x 30 mm corner torn off before, back after: 600 mm² (the opening
	// rounds the patch's corners by under 1 mm²).
	before := sheet(mm(0, 0, 20, 30))
	defer before.Mask.Close()
	full := sheet()
	defer full.Mask.Close()
	got, err := Regrown(before, full)
	require.NoError(t, err)
	assert.InDelta(t, 600, got, 1)

	// In order (full, then torn): nothing regrown.
	got, err = Regrown(full, before)
	require.NoError(t, err)
	assert.Zero(t, got)

	// A 1 mm strip along an edge (registration slop) and a 6 x 6 mm speck: under the floor.
	slop := sheet(mm(0, 100, 1, 200), mm(100, 100, 106, 106))
	defer slop.Mask.Close()
	got, err = Regrown(slop, full)
	require.NoError(t, err)
	assert.Zero(t, got)

	// Masks of different frames: an error, not a guess.
	small := &SheetImage{Mask: gocv.NewMatWithSize(10, 10, gocv.MatTypeCV8UC1), PxPerMM: ppm}
	defer small.Mask.Close()
	_, err = Regrown(small, full)
	assert.ErrorIs(t, err, ErrBadInput)
}
