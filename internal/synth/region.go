package synth

import (
	"math"
	"math/rand"
)

// region is a set of points of the sheet frame (mm) a tear takes away.
type region interface {
	contains(p Pt) bool
}

// halfPlane is everything beyond a jagged line: n.(p-o) > profile(u.(p-o)).
type halfPlane struct {
	o, n, u Pt
	prof    table
}

func (h halfPlane) contains(p Pt) bool {
	d := p.sub(h.o)
	return h.n.dot(d) > h.prof.at(h.u.dot(d))
}

// blob is a jagged ellipse: centre c, semi-axes a (along u) and b, radial profile prof (mm).
type blob struct {
	c, u Pt
	a, b float64
	prof table // over the angle in [0, 2 pi)
}

func (e blob) contains(p Pt) bool {
	d := p.sub(e.c)
	x := e.u.dot(d)
	y := -e.u.Y*d.X + e.u.X*d.Y
	r := math.Hypot(x/e.a, y/e.b)
	th := math.Atan2(y/e.b, x/e.a)
	if th < 0 {
		th += 2 * math.Pi
	}
	return r < 1+e.prof.at(th)/math.Min(e.a, e.b)
}

// union is the union of its regions.
type union []region

func (u union) contains(p Pt) bool {
	for _, r := range u {
		if r.contains(p) {
			return true
		}
	}
	return false
}

// intersect is the intersection of its regions.
type intersect []region

func (n intersect) contains(p Pt) bool {
	for _, r := range n {
		if !r.contains(p) {
			return false
		}
	}
	return true
}

type empty struct{}

func (empty) contains(Pt) bool { return false }

// table is a sampled 1-D function on [t0, t0+step*len) (clamped outside).
type table struct {
	t0, step float64
	v        []float64
}

func (t table) at(x float64) float64 {
	f := (x - t.t0) / t.step
	if f <= 0 {
		return t.v[0]
	}
	i := int(f)
	if i >= len(t.v)-1 {
		return t.v[len(t.v)-1]
	}
	a := f - float64(i)
	return t.v[i]*(1-a) + t.v[i+1]*a
}

// lineTable samples a fresh torn-line profile over [-span, span] mm.
func lineTable(rng *rand.Rand, span, rough float64) table {
	j := newJag(rng, -span, 2*span, rough)
	t := table{t0: -span, step: 0.05}
	n := int(2*span/t.step) + 2
	t.v = make([]float64, n)
	for i := range t.v {
		t.v[i] = j.At(t.t0 + float64(i)*t.step)
	}
	return t
}

// ringTable samples a fresh closed torn profile around an ellipse of mean radius r.
func ringTable(rng *rand.Rand, r, rough float64) table {
	j := newRingJag(rng, r, rough)
	n := int(2*math.Pi*r/0.05) + 2
	if n < 64 {
		n = 64
	}
	t := table{t0: 0, step: 2 * math.Pi / float64(n-1)}
	t.v = make([]float64, n)
	for i := range t.v {
		t.v[i] = j.At(float64(i) * t.step)
	}
	return t
}

// bounded regions know a box (mm) outside which they contain nothing.
type bounded interface {
	box() (minX, minY, maxX, maxY float64, ok bool)
}

func (e blob) box() (float64, float64, float64, float64, bool) {
	m := 0.0
	for _, v := range e.prof.v {
		m = math.Max(m, v)
	}
	r := math.Max(e.a, e.b) * (1 + m/math.Min(e.a, e.b))
	return e.c.X - r, e.c.Y - r, e.c.X + r, e.c.Y + r, true
}

func (h halfPlane) box() (float64, float64, float64, float64, bool) { return 0, 0, 0, 0, false }

func (empty) box() (float64, float64, float64, float64, bool) { return 0, 0, 0, 0, true }

func (u union) box() (float64, float64, float64, float64, bool) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range u {
		b, ok := r.(bounded)
		if !ok {
			return 0, 0, 0, 0, false
		}
		x0, y0, x1, y1, ok := b.box()
		if !ok {
			return 0, 0, 0, 0, false
		}
		minX, minY = math.Min(minX, x0), math.Min(minY, y0)
		maxX, maxY = math.Max(maxX, x1), math.Max(maxY, y1)
	}
	return minX, minY, maxX, maxY, true
}
