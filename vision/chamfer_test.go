package vision

import (
	"image"
	"math/rand"
	"slices"
	"testing"

	"gocv.io/x/gocv"
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
