package vision

import (
	"image"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

// TestChamferMatchesOpenCV: chamferDist equals OpenCV's 5x5 L2 distance transform bit for bit,
// on random blobs, noise, thin strokes and a mask without any zero pixel.
func TestChamferMatchesOpenCV(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 40; n++ {
		w, h := 3+rng.Intn(400), 3+rng.Intn(300)
		m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC1)
		switch n % 4 {
		case 0: // blobs
			for k := 0; k < 1+rng.Intn(6); k++ {
				gocv.Circle(&m, image.Pt(rng.Intn(w), rng.Intn(h)), 1+rng.Intn(max(w, h)), colorRGBA(255, 255, 255), -1)
			}
		case 1: // noise
			b := make([]byte, w*h)
			for i := range b {
				if rng.Intn(10) > 0 {
					b[i] = 255
				}
			}
			nm := newMask(w, h, b)
			nm.CopyTo(&m)
			nm.Close()
		case 2: // all paper but thin strokes of background
			m.SetTo(gocv.NewScalar(255, 0, 0, 0))
			for k := 0; k < 3; k++ {
				gocv.Line(&m, image.Pt(rng.Intn(w), rng.Intn(h)), image.Pt(rng.Intn(w), rng.Intn(h)), colorRGBA(0, 0, 0), 1)
			}
		case 3:
			if n == 3 {
				m.SetTo(gocv.NewScalar(255, 0, 0, 0)) // no zero pixel at all
			} else {
				gocv.Rectangle(&m, image.Rect(1, 1, w-1, h-1), colorRGBA(255, 255, 255), -1)
			}
		}
		dt, labels := gocv.NewMat(), gocv.NewMat()
		gocv.DistanceTransform(m, &dt, &labels, gocv.DistL2, gocv.DistanceTransformMasks(5), gocv.DistanceTransformLabelTypes(0))
		want := float32s(dt)
		got := chamferDist(m.ToBytes(), w, h)
		bad := 0
		for i := range want {
			if want[i] != got[i] {
				if bad < 3 {
					t.Errorf("case %d (%dx%d): pixel %d: OpenCV %v, chamferDist %v", n, w, h, i, want[i], got[i])
				}
				bad++
			}
		}
		dt.Close()
		labels.Close()
		m.Close()
	}
}

// TestKthSmallest: kthSmallest agrees with sorting, duplicates and all.
func TestKthSmallest(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for n := 1; n < 300; n++ {
		v := make([]float32, n)
		for i := range v {
			if n%3 == 0 {
				v[i] = float32(rng.Intn(4)) // many ties
			} else {
				v[i] = rng.Float32()
			}
		}
		s := append([]float32(nil), v...)
		slices.Sort(s)
		for _, k := range []int{0, n / 2, n - 1, rng.Intn(n)} {
			if got := kthSmallest(append([]float32(nil), v...), k); got != s[k] {
				t.Fatalf("n %d k %d: got %v want %v", n, k, got, s[k])
			}
		}
	}
}

// TestChamferWindowExact: the chamfer distance on a window of the mask grown by reach around
// a box equals the whole mask's inside the box wherever that is at most reach, and is more
// than reach wherever the whole mask's is (what outerDepthNear relies on).
func TestChamferWindowExact(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for n := 0; n < 60; n++ {
		w, h := 40+rng.Intn(300), 40+rng.Intn(300)
		m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC1)
		m.SetTo(gocv.NewScalar(255, 0, 0, 0))
		for k := 0; k < 1+rng.Intn(8); k++ { // holes and bites of non-paper
			gocv.Circle(&m, image.Pt(rng.Intn(w), rng.Intn(h)), 1+rng.Intn(40), colorRGBA(0, 0, 0), -1)
		}
		if n%3 == 0 { // speckle
			for k := 0; k < 200; k++ {
				gocv.Circle(&m, image.Pt(rng.Intn(w), rng.Intn(h)), 0, colorRGBA(0, 0, 0), -1)
			}
		}
		b := m.ToBytes()
		m.Close()
		full := chamferOf(b, w, h)
		reach := 1 + rng.Intn(40)
		for k := 0; k < 5; k++ {
			x0, y0 := rng.Intn(w), rng.Intn(h)
			x1, y1 := min(w, x0+1+rng.Intn(w)), min(h, y0+1+rng.Intn(h))
			bx0, by0 := max(0, x0-reach), max(0, y0-reach)
			bx1, by1 := min(w, x1+reach), min(h, y1+reach)
			bw, bh := bx1-bx0, by1-by0
			sub := make([]byte, bw*bh)
			for y := by0; y < by1; y++ {
				copy(sub[(y-by0)*bw:(y-by0+1)*bw], b[y*w+bx0:y*w+bx1])
			}
			win := chamferOf(sub, bw, bh)
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					f, g := full.at(x, y), win.at(x-bx0, y-by0)
					if (f <= float32(reach) && f != g) || (f > float32(reach) && g <= float32(reach)) {
						t.Fatalf("case %d reach %d at (%d, %d): whole %v, window %v", n, reach, x, y, f, g)
					}
				}
			}
		}
	}
}

// TestFitWithinMatchesWhole: fitTemplateWithin (the removed piece's window) gives the same
// answer, placement and near-fit doubt as FitTemplateDetail on the whole frame, for pieces
// in the middle and along every edge, fitting and not, with the default rectangle, a
// triangle (flips) and a thin bar.
func TestFitWithinMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	tpls := []template.Template{
		template.Default(),
		{Name: "tri", PolygonMM: [][2]float64{{0, 0}, {40, 0}, {10, 30}}},
		{Name: "bar", PolygonMM: [][2]float64{{0, 0}, {60, 0}, {60, 2}, {0, 2}}},
	}
	const ppm = 4.0
	w, h := 840, 1188
	var fits [2]int
	near := 0
	defer func() { t.Logf("fits %d, not %d, near %d", fits[1], fits[0], near) }()
	for n := 0; n < 16; n++ {
		m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC1)
		cx, cy := rng.Intn(w), rng.Intn(h)
		switch n % 4 {
		case 1:
			cx = rng.Intn(40)
		case 2:
			cy = h - 1 - rng.Intn(40)
		}
		ax, ay := 40+rng.Intn(160), 40+rng.Intn(160)
		gocv.Ellipse(&m, image.Pt(cx, cy), image.Pt(ax, ay), float64(rng.Intn(180)), 0, 360, colorRGBA(255, 255, 255), -1)
		gocv.Circle(&m, image.Pt(cx+rng.Intn(40)-20, cy+rng.Intn(40)-20), 8, colorRGBA(0, 0, 0), -1) // a hole
		b := m.ToBytes()
		box := image.Rectangle{Min: image.Pt(w, h)}
		for i, v := range b {
			if v != 0 {
				x, y := i%w, i/w
				box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
				box.Max.X, box.Max.Y = max(box.Max.X, x+1), max(box.Max.Y, y+1)
			}
		}
		for _, tp := range tpls {
			want, err := FitTemplateDetail(m, ppm, tp)
			require.NoError(t, err)
			got, err := fitTemplateWithin(m, ppm, tp, box, 0)
			require.NoError(t, err)
			if got != want {
				t.Errorf("case %d %s: window %+v, whole %+v", n, tp.Name, got, want)
			}
			fits[b2i(want.Fits)]++
			near += b2i(want.Near)
		}
		m.Close()
	}
}
