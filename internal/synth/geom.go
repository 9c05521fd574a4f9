package synth

import (
	"math"
	"sort"

	"tearcam/judge"
)

// Pt is a point in millimetres (sheet frame) or pixels, as the context says.
type Pt struct{ X, Y float64 }

func (p Pt) add(q Pt) Pt               { return Pt{p.X + q.X, p.Y + q.Y} }
func (p Pt) sub(q Pt) Pt               { return Pt{p.X - q.X, p.Y - q.Y} }
func (p Pt) mul(k float64) Pt          { return Pt{p.X * k, p.Y * k} }
func (p Pt) dot(q Pt) float64          { return p.X*q.X + p.Y*q.Y }
func (p Pt) norm() float64             { return math.Hypot(p.X, p.Y) }
func (p Pt) rot(a float64) Pt          { s, c := math.Sincos(a); return Pt{c*p.X - s*p.Y, s*p.X + c*p.Y} }
func (p Pt) judge() judge.Point        { return judge.Point{X: round3(p.X), Y: round3(p.Y)} }
func unit(a float64) Pt                { s, c := math.Sincos(a); return Pt{c, s} }
func round3(v float64) float64         { return math.Round(v*1000) / 1000 }
func round2(v float64) float64         { return math.Round(v*100) / 100 }
func clampf(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// convexHull returns the convex hull of pts, counter-clockwise in a y-down frame is not
// promised: only that it is a simple convex polygon without repeated points.
func convexHull(pts []Pt) []Pt {
	if len(pts) < 3 {
		return append([]Pt(nil), pts...)
	}
	p := append([]Pt(nil), pts...)
	sort.Slice(p, func(i, j int) bool {
		if p[i].X != p[j].X {
			return p[i].X < p[j].X
		}
		return p[i].Y < p[j].Y
	})
	cross := func(o, a, b Pt) float64 { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }
	var h []Pt
	for _, q := range p {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lo := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		q := p[i]
		for len(h) >= lo && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1]
}

// Homography is a 3x3 projective transform, row-major.
type Homography [9]float64

// Apply maps p through h.
func (h Homography) Apply(p Pt) Pt {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Pt{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

func (h Homography) mul(g Homography) Homography {
	var r Homography
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[i*3+j] += h[i*3+k] * g[k*3+j]
			}
		}
	}
	return r
}

// homographyFrom4 solves the projective map taking src[i] to dst[i] (4 points, no three
// collinear) by Gaussian elimination on the usual 8x8 system.
func homographyFrom4(src, dst [4]Pt) Homography {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, v := src[i].X, src[i].Y, dst[i].X, dst[i].Y
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := 0; c < 8; c++ {
		piv := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for r := 0; r < 8; r++ {
			if r == c || a[c][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h Homography
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

func scaleH(sx, sy float64) Homography { return Homography{sx, 0, 0, 0, sy, 0, 0, 0, 1} }
func shiftH(dx, dy float64) Homography { return Homography{1, 0, dx, 0, 1, dy, 0, 0, 1} }

// polygonArea is the absolute shoelace area.
func polygonArea(p []Pt) float64 {
	s := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return math.Abs(s) / 2
}
