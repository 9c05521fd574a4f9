package vision

import (
	"image"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestSheetInkZoneShared: the fresh sheet's inkZone is computed once and shared with the
// sheets registered to it (Measure asks for it on every tear): the fresh sheet and a sheet
// registered to it return the same bytes (the same slice), equal to inkZone computed afresh
// from the fresh sheet's grey image; a frame of another size is computed afresh, not cached.
func TestSheetInkZoneShared(t *testing.T) {
	fresh, photo := tornOn(t, "wood")
	defer fresh.Close()
	defer photo.Close()
	s, err := Register(fresh, photo)
	require.NoError(t, err)
	defer s.Close()
	w, h, ppm := fresh.Mask.Cols(), fresh.Mask.Rows(), fresh.PxPerMM
	want := inkZone(freshGray(fresh), w, h, ppm)
	require.Len(t, want, w*h)
	n := 0
	for _, v := range want {
		if v != 0 {
			n++
		}
	}
	assert.Greater(t, n, w*h/100, "ink zone pixels (the sheet's writing, grown by 1.5 mm)")
	a := sheetInkZone(s, w, h, ppm)
	b := sheetInkZone(fresh, w, h, ppm)
	assert.Equal(t, want, a)
	assert.Same(t, &a[0], &b[0], "one zone for the fresh sheet and the sheet registered to it")
	assert.Nil(t, sheetInkZone(s, w-1, h, ppm), "a frame of another size: inkZone of a grey image of the wrong size is nil")
}

// TestOpenInMatchesWholeFrame: openIn, which opens only the box around a mask's pixels,
// gives the bytes an opening of the whole frame gives (OpenCV's morphologyEx, the same
// elliptic element), on random specks and blobs in boxes anywhere, the frame's edges and
// corners included.
func TestOpenInMatchesWholeFrame(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	w, h := 300, 200
	for trial := 0; trial < 40; trial++ {
		d := []int{3, 5, 9, 13}[trial%4]
		x0, y0 := rng.Intn(w), rng.Intn(h)
		box := image.Rect(x0, y0, min(w, x0+1+rng.Intn(120)), min(h, y0+1+rng.Intn(80)))
		if trial%5 == 0 {
			box = image.Rect(0, 0, w, h) // the whole frame
		}
		b := make([]byte, w*h)
		for k := 0; k < 60; k++ {
			x, y := box.Min.X+rng.Intn(box.Dx()), box.Min.Y+rng.Intn(box.Dy())
			rx, ry := rng.Intn(8), rng.Intn(8)
			for yy := max(box.Min.Y, y-ry); yy < min(box.Max.Y, y+ry+1); yy++ {
				for xx := max(box.Min.X, x-rx); xx < min(box.Max.X, x+rx+1); xx++ {
					b[yy*w+xx] = 255
				}
			}
		}
		m := newMask(w, h, b)
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(d, d))
		gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
		want := m.ToBytes()
		k.Close()
		m.Close()
		openIn(b, w, h, d, box)
		require.Equal(t, want, b, "trial %d: box %v, d %d", trial, box, d)
	}
}

// TestErodeIntoMatchesCopies: erodeInto, which erodes a mask straight into a frame with a
// margin, writes what changePaper wrote before: the mask copied into a Mat, eroded there,
// and its rows copied into the frame; the margin stays as it was.
func TestErodeIntoMatchesCopies(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 12; trial++ {
		sz := image.Pt(50+rng.Intn(200), 40+rng.Intn(150))
		off := rng.Intn(20)
		fw := sz.X + 2*off
		k := []int{3, 9, 13}[trial%3]
		src := make([]byte, sz.X*sz.Y)
		for i := range src {
			if rng.Intn(10) > 0 {
				src[i] = 255
			}
		}
		want := make([]byte, fw*(sz.Y+2*off))
		for i := range want {
			want[i] = byte(rng.Intn(256)) // whatever the frame held
		}
		got := append([]byte(nil), want...)
		m := newMask(sz.X, sz.Y, src)
		km := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k))
		gocv.Erode(m, &m, km)
		km.Close()
		eb := u8view(m)
		for y := 0; y < sz.Y; y++ {
			copy(want[(y+off)*fw+off:(y+off)*fw+off+sz.X], eb[y*sz.X:(y+1)*sz.X])
		}
		m.Close()
		erodeInto(got, fw, off, src, sz, k)
		require.Equal(t, want, got, "trial %d: %v at a margin of %d, k %d", trial, sz, off, k)
	}
}
