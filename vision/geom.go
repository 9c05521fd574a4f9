package vision

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// pt is a point in float64; photo pixels, frame pixels or millimetres depending on context.
type pt struct{ X, Y float64 }

func (p pt) sub(q pt) pt               { return pt{p.X - q.X, p.Y - q.Y} }
func (p pt) add(q pt) pt               { return pt{p.X + q.X, p.Y + q.Y} }
func (p pt) mul(k float64) pt          { return pt{p.X * k, p.Y * k} }
func (p pt) dot(q pt) float64          { return p.X*q.X + p.Y*q.Y }
func (p pt) cross(q pt) float64        { return p.X*q.Y - p.Y*q.X }
func (p pt) norm() float64             { return math.Hypot(p.X, p.Y) }
func (p pt) f32() gocv.Point2f         { return gocv.Point2f{X: float32(p.X), Y: float32(p.Y)} }
func ptOf(q gocv.Point2f) pt           { return pt{float64(q.X), float64(q.Y)} }
func ptI(q image.Point) pt             { return pt{float64(q.X), float64(q.Y)} }
func (p pt) img() image.Point          { return image.Pt(int(math.Round(p.X)), int(math.Round(p.Y))) }
func dist(p, q pt) float64             { return p.sub(q).norm() }
func lerp(p, q pt, t float64) pt       { return p.add(q.sub(p).mul(t)) }
func polyArea(p []pt) float64          { return math.Abs(signedArea(p)) }
func clampf(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func signedArea(p []pt) float64 {
	s := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return s / 2
}

// homog is a 3x3 homography, row-major.
type homog [9]float64

func (h homog) apply(p pt) pt {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return pt{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

func (h homog) mul(g homog) homog {
	var r homog
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[i*3+j] += h[i*3+k] * g[k*3+j]
			}
		}
	}
	return r
}

func (h homog) inv() homog {
	a, b, c, d, e, f, g, hh, i := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
	A := e*i - f*hh
	B := -(d*i - f*g)
	C := d*hh - e*g
	det := a*A + b*B + c*C
	if det == 0 {
		return homog{}
	}
	r := homog{
		A, -(b*i - c*hh), b*f - c*e,
		B, a*i - c*g, -(a*f - c*d),
		C, -(a*hh - b*g), a*e - b*d,
	}
	for k := range r {
		r[k] /= det
	}
	return r
}

func scaleH(sx, sy float64) homog { return homog{sx, 0, 0, 0, sy, 0, 0, 0, 1} }

func (h homog) mat() gocv.Mat {
	m := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	for i := 0; i < 9; i++ {
		m.SetDoubleAt(i/3, i%3, h[i])
	}
	return m
}

func homogOf(m gocv.Mat) (homog, bool) {
	var h homog
	if m.Empty() || m.Rows() != 3 || m.Cols() != 3 {
		return h, false
	}
	for i := 0; i < 9; i++ {
		h[i] = m.GetDoubleAt(i/3, i%3)
	}
	if h[8] == 0 {
		return h, false
	}
	for i := range h {
		h[i] /= h[8]
	}
	return h, true
}

// homographyFrom4 is the exact homography taking src[i] to dst[i] (OpenCV getPerspectiveTransform).
func homographyFrom4(src, dst [4]pt) homog {
	s := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{src[0].f32(), src[1].f32(), src[2].f32(), src[3].f32()})
	defer s.Close()
	d := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{dst[0].f32(), dst[1].f32(), dst[2].f32(), dst[3].f32()})
	defer d.Close()
	m := gocv.GetPerspectiveTransform2f(s, d)
	defer m.Close()
	h, _ := homogOf(m)
	return h
}

// convexHull is Andrew's monotone chain; counter-clockwise in a y-up sense.
func convexHull(in []pt) []pt {
	p := append([]pt(nil), in...)
	sort.Slice(p, func(i, j int) bool {
		if p[i].X != p[j].X {
			return p[i].X < p[j].X
		}
		return p[i].Y < p[j].Y
	})
	if len(p) < 3 {
		return p
	}
	h := make([]pt, 0, 2*len(p))
	for _, q := range p {
		for len(h) >= 2 && h[len(h)-1].sub(h[len(h)-2]).cross(q.sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lo := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		q := p[i]
		for len(h) >= lo && h[len(h)-1].sub(h[len(h)-2]).cross(q.sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1]
}

// segDist is the distance from p to segment ab.
func segDist(p, a, b pt) float64 {
	ab := b.sub(a)
	l2 := ab.dot(ab)
	if l2 == 0 {
		return dist(p, a)
	}
	t := clampf(p.sub(a).dot(ab)/l2, 0, 1)
	return dist(p, a.add(ab.mul(t)))
}

// line is n·p = c with |n| = 1.
type line struct {
	n pt
	c float64
}

// fitLineTLS fits a line to points by total least squares.
func fitLineTLS(p []pt) (line, bool) {
	if len(p) < 2 {
		return line{}, false
	}
	var m pt
	for _, q := range p {
		m = m.add(q)
	}
	m = m.mul(1 / float64(len(p)))
	var sxx, sxy, syy float64
	for _, q := range p {
		d := q.sub(m)
		sxx += d.X * d.X
		sxy += d.X * d.Y
		syy += d.Y * d.Y
	}
	// direction = principal eigenvector; normal is perpendicular.
	theta := 0.5 * math.Atan2(2*sxy, sxx-syy)
	dir := pt{math.Cos(theta), math.Sin(theta)}
	n := pt{-dir.Y, dir.X}
	return line{n, n.dot(m)}, true
}

func (l line) dist(p pt) float64 { return l.n.dot(p) - l.c }

func intersect(a, b line) (pt, bool) {
	det := a.n.X*b.n.Y - a.n.Y*b.n.X
	if math.Abs(det) < 1e-9 {
		return pt{}, false
	}
	return pt{(a.c*b.n.Y - b.c*a.n.Y) / det, (a.n.X*b.c - b.n.X*a.c) / det}, true
}

// pointInPoly is the even-odd rule.
func pointInPoly(p pt, poly []pt) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

func imagePt(x, y int) image.Point { return image.Pt(x, y) }
