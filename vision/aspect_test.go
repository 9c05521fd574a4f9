package vision

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"tearcam/template"
)

// project is a pinhole camera: focal length f (px), principal point c, looking at the table
// plane from height d (mm) after tilting by tilt about the x axis and turning by yaw about
// the optical axis; p is a point on the table (mm, the sheet's centre at the origin).
func project(p pt, f, tilt, yaw, d float64, c pt) pt {
	// Camera frame: the table point rotated by yaw in its plane, then tilted.
	sy, cy := math.Sincos(yaw)
	x, y := cy*p.X-sy*p.Y, sy*p.X+cy*p.Y
	st, ct := math.Sincos(tilt)
	yc, zc := ct*y, d+st*y
	return pt{c.X + f*x/zc, c.Y + f*yc/zc}
}

func TestRectAspect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	c := pt{800, 600}
	var errs []float64 // relative error of the noise-free estimates
	for _, paper := range []template.Paper{{Name: "a4", WidthMM: 210, HeightMM: 297}, {Name: "100x100", WidthMM: 100, HeightMM: 100}, {Name: "300x150", WidthMM: 300, HeightMM: 150}} {
		W, H := paper.WidthMM, paper.HeightMM
		for i := 0; i < 200; i++ {
			f := 800 + 2000*rng.Float64()
			tilt := (rng.Float64()*2 - 1) * 40 * math.Pi / 180
			yaw := rng.Float64() * 2 * math.Pi
			d := f * math.Max(W, H) / 1000 // the sheet fills a good part of the frame
			var q [4]pt
			for k, v := range []pt{{-W / 2, -H / 2}, {W / 2, -H / 2}, {W / 2, H / 2}, {-W / 2, H / 2}} {
				q[k] = project(v, f, tilt, yaw, d, c)
			}
			lo, hi := rectAspect(q, c)
			// The true ratio lies in the range (up to rounding), and the range is narrow.
			assert.True(t, lo <= W/H*1.001 && hi >= W/H*0.999, "%s: %.3f..%.3f", paper.Name, lo, hi)
			errs = append(errs, hi/lo-1)
			assert.NoError(t, checkPaperSize(q, 1600, 1200, paper), "paper %s f %.0f tilt %.1f°", paper.Name, f, tilt*180/math.Pi)
			// With 2 px of corner noise, still within the tolerance.
			for k := range q {
				q[k] = q[k].add(pt{rng.NormFloat64() * 2, rng.NormFloat64() * 2})
			}
			assert.NoError(t, checkPaperSize(q, 1600, 1200, paper))
		}
	}
	// Most poses give the focal length and an exact ratio (a range of width 0).
	slices.Sort(errs)
	assert.Less(t, errs[len(errs)/2], 0.005, "median width of the range")
	// An A4 sheet declared as a square paper, or as 300 x 150, is refused.
	var q [4]pt
	for k, v := range []pt{{-105, -148.5}, {105, -148.5}, {105, 148.5}, {-105, 148.5}} {
		q[k] = project(v, 1500, 0.4, 0.3, 450, c)
	}
	for _, p := range []template.Paper{{Name: "100x100", WidthMM: 100, HeightMM: 100}, {Name: "300x150", WidthMM: 300, HeightMM: 150}} {
		err := checkPaperSize(q, 1600, 1200, p)
		assert.True(t, errors.Is(err, ErrPaperSize), "%s: %v", p.Name, err)
	}
}
