package vision

import (
	"bytes"
	"image"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// fillInkTwoBoxes is fillInk as it was: paper and table each counted over the window by a
// box filter of its own 0/255 mask, the table's mean compared with twice the paper's (the
// reference for TestFillInkOneBox).
func fillInkTwoBoxes(cp, ink, halo []byte, sz image.Point, ppm float64, edgeBand int) {
	pm, qm := gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV8UC1), gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV8UC1)
	defer pm.Close()
	defer qm.Close()
	p, q := u8view(pm), u8view(qm)
	for j := range cp {
		switch {
		case halo[j] != 0:
		case cp[j] != 0:
			p[j] = 255
		default:
			q[j] = 255
		}
	}
	pf, qf := gocv.NewMat(), gocv.NewMat()
	defer pf.Close()
	defer qf.Close()
	w := int(6*ppm) | 1
	gocv.BoxFilter(pm, &pf, int(gocv.MatTypeCV32F), image.Pt(w, w))
	gocv.BoxFilter(qm, &qf, int(gocv.MatTypeCV32F), image.Pt(w, w))
	pb, qb := f32view(pf), f32view(qf)
	for y := edgeBand; y < sz.Y-edgeBand; y++ {
		for x := edgeBand; x < sz.X-edgeBand; x++ {
			if j := y*sz.X + x; halo[j] != 0 && ink[j] == 0 && cp[j] != 0 && qb[j] > 2*pb[j] {
				cp[j] = 0
			}
		}
	}
	inkDecide(cp, ink, sz, ppm)
}

// TestFillInkOneBox: fillInk's one box filter of table minus twice paper settles the same
// pixels as the two box filters it replaced, on random sheets of paper and table with ink
// strokes, halos around them and the frame's edges in the window, at the window's tipping
// point too (table exactly twice the paper: a region of both in the ratio, counted).
func TestFillInkOneBox(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	ppm := DefaultPxPerMM
	changed := 0
	for trial := 0; trial < 60; trial++ {
		sz := image.Pt(60+rng.Intn(140), 60+rng.Intn(140))
		n := sz.X * sz.Y
		cp, ink, halo := make([]byte, n), make([]byte, n), make([]byte, n)
		// Paper on one side of a random line, table on the other, with speckle.
		a, b, c := rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()*float64(sz.X)
		for y := 0; y < sz.Y; y++ {
			for x := 0; x < sz.X; x++ {
				if a*float64(x)+b*float64(y)+c*0.3 > 0 != (rng.Intn(8) == 0) {
					cp[y*sz.X+x] = 255
				}
				if trial%3 == 0 && (x+y)%3 == 0 {
					cp[y*sz.X+x] = 255 // two parts table to one part paper along diagonals
				}
			}
		}
		for k := 0; k < 30; k++ { // strokes, their halos
			x, y := rng.Intn(sz.X), rng.Intn(sz.Y)
			for yy := max(0, y-6); yy < min(sz.Y, y+7); yy++ {
				for xx := max(0, x-6); xx < min(sz.X, x+7); xx++ {
					halo[yy*sz.X+xx] = 255
					if abs(xx-x) <= 1 && abs(yy-y) <= 3 {
						ink[yy*sz.X+xx] = 255
					}
				}
			}
		}
		want, got := append([]byte(nil), cp...), append([]byte(nil), cp...)
		fillInkTwoBoxes(want, ink, halo, sz, ppm, int(2*ppm))
		fillInk(got, ink, halo, sz, ppm, int(2*ppm))
		require.Equal(t, want, got, "trial %d", trial)
		if !bytes.Equal(want, cp) {
			changed++
		}
	}
	require.Greater(t, changed, 30, "trials where fillInk changed the mask")
}
