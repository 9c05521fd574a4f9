package vision

import (
	"math"
	"testing"
)

// dltFit is the reference for looResiduals: the linear least-squares homography (h33 = 1)
// fitted directly, in the same normalisation (zero mean, unit RMS radius per side).
func dltFit(src, dst []pt, ms pt, rs float64, md pt, rd float64) (homog, bool) {
	var AtA [8][8]float64
	var Atb [8]float64
	for i := range src {
		x, y := (src[i].X-ms.X)/rs, (src[i].Y-ms.Y)/rs
		u, v := (dst[i].X-md.X)/rd, (dst[i].Y-md.Y)/rd
		for _, r := range []struct {
			a [8]float64
			b float64
		}{{[8]float64{x, y, 1, 0, 0, 0, -u * x, -u * y}, u}, {[8]float64{0, 0, 0, x, y, 1, -v * x, -v * y}, v}} {
			for a := 0; a < 8; a++ {
				Atb[a] += r.a[a] * r.b
				for c := 0; c < 8; c++ {
					AtA[a][c] += r.a[a] * r.a[c]
				}
			}
		}
	}
	C, ok := invSPD8(AtA)
	if !ok {
		return homog{}, false
	}
	var h homog
	for a := 0; a < 8; a++ {
		for c := 0; c < 8; c++ {
			h[a] += C[a][c] * Atb[c]
		}
	}
	h[8] = 1
	return h, true
}

// patchSet is 20 patch positions (frame px) in two words, seen through a slight perspective,
// each a few hundredths of a pixel off (deterministic), and one patch locked onto the wrong
// stroke 1.5 px away.
func patchSet() (src, dst []pt, bad int) {
	h := homog{1.01, 0.02, 3, -0.015, 0.99, -2, 2e-5, -1e-5, 1}
	for i := 0; i < 20; i++ {
		p := pt{float64(100 + 19*(i%10)), float64(300 + 23*(i/10) + 7*(i%3))}
		q := h.apply(p).add(pt{0.03 * math.Sin(float64(i)), 0.03 * math.Cos(float64(3*i))})
		src, dst = append(src, p), append(dst, q)
	}
	bad = 13
	dst[bad] = dst[bad].add(pt{1.2, -0.9})
	return src, dst, bad
}

// TestLooResiduals: the hat-matrix leave-one-out residuals equal those of refitting without
// each point (the linear fit's algebraic residual, which the perspective divisor w, within a
// few thousandths of 1 here, tells from the distance in the image); the wrong patch is as far off as it was put (1.5 px), the others are not.
func TestLooResiduals(t *testing.T) {
	src, dst, bad := patchSet()
	got, lev, ok := looResiduals(src, dst)
	if !ok {
		t.Fatal("no fit")
	}
	var mean = func(p []pt) (pt, float64) {
		var m pt
		for _, q := range p {
			m = m.add(q)
		}
		m = m.mul(1 / float64(len(p)))
		r := 0.0
		for _, q := range p {
			r += q.sub(m).dot(q.sub(m))
		}
		return m, math.Sqrt(r / float64(len(p)))
	}
	ms, rs := mean(src)
	md, rd := mean(dst)
	for i := range src {
		s := append(append([]pt(nil), src[:i]...), src[i+1:]...)
		d := append(append([]pt(nil), dst[:i]...), dst[i+1:]...)
		h, ok := dltFit(s, d, ms, rs, md, rd)
		if !ok {
			t.Fatalf("reference fit without %d failed", i)
		}
		// The algebraic residual of the linear fit, w (u - u'), w = h7 x + h8 y + 1.
		x, y := (src[i].X-ms.X)/rs, (src[i].Y-ms.Y)/rs
		q := h.apply(pt{x, y})
		w := h[6]*x + h[7]*y + 1
		want := w * math.Hypot(q.X-(dst[i].X-md.X)/rd, q.Y-(dst[i].Y-md.Y)/rd) * rd
		if math.Abs(got[i]-want) > 1e-6 {
			t.Errorf("point %d: leave-one-out residual %.6f px, refit gives %.6f", i, got[i], want)
		}
		if lev[i] <= 0 || lev[i] >= 1 {
			t.Errorf("point %d: leverage %.3f, want within (0, 1)", i, lev[i])
		}
		if i == bad && (got[i] < 1.3 || got[i] > 1.7) {
			t.Errorf("the wrong patch: %.3f px, want about 1.5", got[i])
		}
		if i != bad && got[i] > 0.5 {
			t.Errorf("patch %d: %.3f px, want under 0.5", i, got[i])
		}
	}
}

// TestTrimPatches: the wrong patch is dropped, and only it; the re-fitted correction then
// maps the others within a tenth of a pixel. A set with no wrong patch is left whole.
func TestTrimPatches(t *testing.T) {
	src, dst, bad := patchSet()
	c0, ok := lsqHomography(src, dst)
	if !ok {
		t.Fatal("no fit")
	}
	c, is, id := trimPatches(c0, src, dst)
	if len(is) != len(src)-1 {
		t.Fatalf("kept %d of %d, want all but the wrong one", len(is), len(src))
	}
	for i, p := range is {
		if p == src[bad] {
			t.Fatalf("the wrong patch was kept")
		}
		if e := dist(c.apply(p), id[i]); e > 0.1 {
			t.Errorf("patch at %v: %.3f px off the re-fit", p, e)
		}
	}
	dst[bad] = dst[bad].sub(pt{1.2, -0.9})
	if _, is, _ := trimPatches(c0, src, dst); len(is) != len(src) {
		t.Errorf("no wrong patch: kept %d of %d", len(is), len(src))
	}
}
