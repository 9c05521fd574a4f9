package vision

import (
	"errors"
	"fmt"
	"math"

	"tearcam/template"
)

// ErrPaperSize: the sheet's shape in the photo does not match the declared paper size.
var ErrPaperSize = errors.New("sheet's shape does not match the paper size")

// paperSizeTolerance is how far the estimated width:height ratio may stray from the declared
// paper's before Fresh refuses the sheet. Corner errors of a few pixels and a principal point
// off the image centre move the estimate by a few per cent; A4 and US letter differ by 9%, so
// they are not told apart, but a square or a half sheet declared as A4 is.
const paperSizeTolerance = 0.2

// aspectMinPerspective: below this convergence (k-1) of either pair of sides, a few pixels
// of corner error swing the focal length estimate, and it is not used.
const aspectMinPerspective = 0.05

// rectAspect estimates the width:height ratio of the rectangle whose corners the photo shows
// at q (photo pixels, in the order (0,0), (W,0), (W,H), (0,H) of the rectangle), for a
// pinhole camera with square pixels, its principal point at the image centre c and an unknown
// focal length (Zhang and He, "Whiteboard scanning and image enhancement", Digital Signal
// Processing 17(2), 2007, section 2). When both pairs of sides converge clearly, the focal
// length follows from the corners and lo == hi; otherwise it is not determined, and [lo, hi]
// is the range of ratios over focal lengths of 0.4 to 2.5 image diagonals (what phones and
// webcams have).
func rectAspect(q [4]pt, c pt) (lo, hi float64) {
	h := func(p pt) [3]float64 { return [3]float64{p.X - c.X, p.Y - c.Y, 1} }
	m1, m2, m3, m4 := h(q[0]), h(q[1]), h(q[3]), h(q[2])
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	affine := (dist(q[0], q[1]) + dist(q[3], q[2])) / (dist(q[0], q[3]) + dist(q[1], q[2]))
	m14 := cross(m1, m4)
	d2, d3 := dot(cross(m2, m4), m3), dot(cross(m3, m4), m2)
	if d2 == 0 || d3 == 0 {
		return affine, affine
	}
	k2, k3 := dot(m14, m3)/d2, dot(m14, m2)/d3
	var n2, n3 [3]float64
	for i := range n2 {
		n2[i] = k2*m2[i] - m1[i]
		n3[i] = k3*m3[i] - m1[i]
	}
	ratio := func(f2 float64) float64 {
		num := (n2[0]*n2[0]+n2[1]*n2[1])/f2 + n2[2]*n2[2]
		den := (n3[0]*n3[0]+n3[1]*n3[1])/f2 + n3[2]*n3[2]
		if den <= 0 || num <= 0 {
			return affine
		}
		return math.Sqrt(num / den)
	}
	// n2z and n3z are k2-1 and k3-1: near 0 when a pair of opposite sides is parallel in the
	// photo, and then the focal length is not determined.
	diag := math.Hypot(2*c.X, 2*c.Y)
	if math.Abs(n2[2]) > aspectMinPerspective && math.Abs(n3[2]) > aspectMinPerspective {
		if e := -(n2[0]*n3[0] + n2[1]*n3[1]) / (n2[2] * n3[2]); e > (0.3*diag)*(0.3*diag) && e < (4*diag)*(4*diag) {
			r := ratio(e)
			return r, r
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, k := range []float64{0.4, 0.5, 0.6, 0.7, 0.85, 1, 1.2, 1.4, 1.7, 2, 2.5} {
		r := ratio(k * k * diag * diag)
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	return lo, hi
}

// checkPaperSize returns an error wrapping ErrPaperSize when the sheet at q (photo pixels,
// corners as in rectAspect) in a photo of w x h pixels cannot be the paper: its ratio is
// more than paperSizeTolerance away from every ratio a plausible camera could give.
func checkPaperSize(q [4]pt, w, h int, paper template.Paper) error {
	lo, hi := rectAspect(q, pt{float64(w) / 2, float64(h) / 2})
	want := paper.WidthMM / paper.HeightMM
	if want < lo*(1-paperSizeTolerance) || want > hi/(1-paperSizeTolerance) {
		got := (lo + hi) / 2
		return fmt.Errorf("%w: the sheet is %.2f:1 (width:height), paper %s is %.2f:1", ErrPaperSize, got, paper.Name, want)
	}
	return nil
}
