package vision

import (
	"math"
	"testing"
)

// TestRansacAffine: matches from one affine map (rotated 30°, 3 px/mm, a little shear) among
// outliers are found exactly, the map recovered; a mirrored map is no plausible alignment.
func TestRansacAffine(t *testing.T) {
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	want := affine2{3 * c, -3 * s * 1.1, 400, 3 * s, 3 * c, 250}
	var src, dst []pt
	var inl []int
	for i := 0; i < 20; i++ {
		p := pt{float64(10 + 13*(i%5)), float64(20 + 17*(i/5))}
		q := want.apply(p)
		if i%5 == 3 { // every fifth match is wrong: 40-80 px off
			q = q.add(pt{40 + 2*float64(i), -30 - float64(i)})
		} else {
			inl = append(inl, i)
		}
		src, dst = append(src, p), append(dst, q)
	}
	got, gi, ok := ransacAffine(src, dst, 1)
	if !ok || len(gi) != len(inl) {
		t.Fatalf("inliers %v (ok %v), want %v", gi, ok, inl)
	}
	for k, i := range gi {
		if i != inl[k] {
			t.Fatalf("inliers %v, want %v", gi, inl)
		}
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-6 {
			t.Fatalf("map %v, want %v", got, want)
		}
	}
	mirror := affine2{-3, 0, 900, 0, 3, 100}
	for i := range dst {
		dst[i] = mirror.apply(src[i])
	}
	if _, gi, ok := ransacAffine(src, dst, 1); ok && len(gi) >= 3 {
		t.Fatalf("mirrored map taken: %d inliers", len(gi))
	}
}

// TestAlignSigma: ink patches all over the sheet pin the alignment everywhere; a word's worth
// in one corner leaves the far corner free by millimetres; the untorn outline all round pins
// it again.
func TestAlignSigma(t *testing.T) {
	const W, H = 210.0, 297.0
	h := homog{4, 0.3, 300, -0.2, 3.8, 100, 1e-5, 2e-5, 1} // mm -> photo px, slight perspective
	far := []pt{{W, H}}
	corners := []pt{{0, 0}, {W, 0}, {W, H}, {0, H}}
	var spread, word []pair
	for y := 20.0; y < H; y += 60 {
		for x := 20.0; x < W; x += 50 {
			spread = append(spread, pair{u: pt{x, y}, v: h.apply(pt{x, y})})
		}
	}
	for x := 20.0; x <= 60; x += 5 {
		for _, y := range []float64{30, 36} {
			word = append(word, pair{u: pt{x, y}, v: h.apply(pt{x, y})})
		}
	}
	var outline []edgeSample
	for x := 5.0; x < W-5; x++ {
		outline = append(outline, edgeSample{side: 0, v: h.apply(pt{x, 0})}, edgeSample{side: 2, v: h.apply(pt{x, H})})
	}
	for y := 5.0; y < H-5; y++ {
		outline = append(outline, edgeSample{side: 3, v: h.apply(pt{0, y})}, edgeSample{side: 1, v: h.apply(pt{W, y})})
	}
	all := alignSigmaMM(h, spread, nil, corners, W, H, 1600, 1200)
	alone := alignSigmaMM(h, word, nil, far, W, H, 1600, 1200)
	near := alignSigmaMM(h, word, nil, []pt{{40, 33}}, W, H, 1600, 1200)
	withOutline := alignSigmaMM(h, word, outline, corners, W, H, 1600, 1200)
	t.Logf("spread %.3f, word at the far corner %.3f, near it %.3f, word and outline %.3f mm", all, alone, near, withOutline)
	// 20 patches of 0.05 mm each: about 0.05 mm (more at the corners, outside them).
	if all > 0.1 || near > 0.05 {
		t.Errorf("patches all over: %.3f mm at the corners (want under 0.1), a word at itself %.3f mm (want under 0.05)", all, near)
	}
	if alone < 1 {
		t.Errorf("a word alone: %.3f mm at the far corner, want over 1", alone)
	}
	if withOutline > maxRemnantSigmaMM {
		t.Errorf("a word and the whole outline: %.3f mm at the corners, want under %.2f", withOutline, maxRemnantSigmaMM)
	}
	if s := alignSigmaMM(h, word[:3], nil, far, W, H, 1600, 1200); !math.IsInf(s, 1) {
		t.Errorf("three patches (6 equations for 8 unknowns): %.3f mm, want undetermined", s)
	}
}
