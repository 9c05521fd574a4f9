package vision

import (
	"image"
	"math"
	"math/rand"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// TestWarpWindowsMatchWarp: every window warpWindows makes is bit for bit the same part of
// warpToFrame's whole frame, for turned, tilted, shrunk and enlarged sheets, windows anywhere
// (across block boundaries, at the frame's edges, off the photo).
func TestWarpWindowsMatchWarp(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	photo := gocv.NewMatWithSize(1200, 1600, gocv.MatTypeCV8UC1)
	defer photo.Close()
	gocv.RandU(&photo, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(256, 0, 0, 0))
	gocv.GaussianBlur(photo, &photo, image.Pt(5, 5), 0, 0, gocv.BorderReflect101)
	paper := template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297}
	const ppm = 4.0
	sz := frameSize(paper, ppm)
	bad := 0
	for n := 0; n < 40; n++ {
		// Sheet mm -> photo px: scale, turn, shift, perspective.
		a := rng.Float64() * 2 * math.Pi
		s := 2.5 + 2*rng.Float64()
		c, sn := math.Cos(a)*s, math.Sin(a)*s
		h := homog{c, -sn, 800 + 200*rng.NormFloat64(), sn, c, 600 + 150*rng.NormFloat64(),
			2e-4 * rng.NormFloat64(), 2e-4 * rng.NormFloat64(), 1}
		whole := warpToFrame(photo, h, paper, ppm, 0)
		var wins []image.Rectangle
		for k := 0; k < 30; k++ {
			wd, ht := 1+rng.Intn(60), 1+rng.Intn(60)
			x, y := rng.Intn(sz.X-wd+1), rng.Intn(sz.Y-ht+1)
			wins = append(wins, image.Rect(x, y, x+wd, y+ht))
		}
		wins = append(wins, image.Rect(0, 0, sz.X, 20), image.Rect(sz.X-70, sz.Y-70, sz.X, sz.Y))
		got, offs := warpWindows(photo, frameMatrix(h, ppm, 0), sz.X, sz.Y, wins)
		for k, r := range wins {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					if a, b := whole.GetUCharAt(y, x), got.GetUCharAt(offs[k]+y-r.Min.Y, x-r.Min.X); a != b {
						if bad < 5 {
							t.Errorf("case %d window %v at (%d, %d): warp %d, window %d", n, r, x, y, a, b)
						}
						bad++
					}
				}
			}
		}
		got.Close()
		whole.Close()
	}
	if bad > 0 {
		t.Errorf("%d pixels differ", bad)
	}
}
