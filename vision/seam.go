package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// seam is a line the after photo shows on its paper that the fresh sheet does not have.
type seam struct {
	lengthMM float64 // the longer side of its bounding box
	px       int     // its pixels
	at       pt      // its centre (frame px)
	contrast float64 // median gradient over the fresh sheet's there (after / fresh)
}

// seamLines finds the lines the after photo shows on what both masks call paper (bm, am,
// frame layout w x h, non-zero) that the fresh sheet's grey image g0 does not show within
// seamSlackMM: ai is the after photo's BGR bytes (3 x w x h). Longest first.
func seamLines(g0, ai, bm, am []byte, w, h int, ppm float64) []seam {
	if len(g0) != w*h || len(ai) != 3*w*h {
		return nil
	}
	am3, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, ai)
	if err != nil {
		return nil
	}
	defer am3.Close()
	ga := gocv.NewMat()
	defer ga.Close()
	gocv.CvtColor(am3, &ga, gocv.ColorBGRToGray)
	gf := newMask(w, h, g0)
	defer gf.Close()
	grad := func(g gocv.Mat) gocv.Mat {
		dx, dy := gocv.NewMat(), gocv.NewMat()
		defer dx.Close()
		defer dy.Close()
		gocv.Sobel(g, &dx, gocv.MatTypeCV16S, 1, 0, 3, 1, 0, gocv.BorderReplicate)
		gocv.Sobel(g, &dy, gocv.MatTypeCV16S, 0, 1, 3, 1, 0, gocv.BorderReplicate)
		ax, ay := gocv.NewMat(), gocv.NewMat()
		defer ax.Close()
		defer ay.Close()
		gocv.ConvertScaleAbs(dx, &ax, 0.25, 0)
		gocv.ConvertScaleAbs(dy, &ay, 0.25, 0)
		out := gocv.NewMat()
		gocv.Max(ax, ay, &out)
		return out
	}
	gA, gF := grad(ga), grad(gf)
	defer gA.Close()
	defer gF.Close()
	e := 2*int(math.Round(seamSlackMM*ppm)) + 1
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(e, e))
	gocv.Dilate(gF, &gF, k)
	k.Close()
	// Inside both masks' paper by seamInsetMM.
	// (Nor along the frame's edge, which erosion alone would keep: the sheet's own edge.)
	both := make([]byte, w*h)
	for i := range both {
		if x, y := i%w, i/w; bm[i] != 0 && am[i] != 0 && x > 0 && y > 0 && x < w-1 && y < h-1 {
			both[i] = 255
		}
	}
	bmm := newMask(w, h, both)
	defer bmm.Close()
	ei := 2*int(math.Round(seamInsetMM*ppm)) + 1
	ki := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(ei, ei))
	gocv.Erode(bmm, &bmm, ki)
	ki.Close()
	inside := bmm.ToBytes()
	// The after photo's paper level against the fresh sheet's.
	gab, gfb := ga.ToBytes(), g0
	var la, lf []int
	for i := 0; i < w*h; i += 7 {
		if inside[i] != 0 {
			la, lf = append(la, int(gab[i])), append(lf, int(gfb[i]))
		}
	}
	if len(la) < 100 {
		return nil
	}
	sort.Ints(la)
	sort.Ints(lf)
	gain := float64(la[len(la)/2]) / math.Max(1, float64(lf[len(lf)/2]))
	ab, fb := gA.ToBytes(), gF.ToBytes()
	nw := make([]byte, w*h)
	for i, v := range inside {
		if v == 0 {
			continue
		}
		a, f := float64(ab[i]), gain*float64(fb[i])
		if a >= seamMinGrad && a >= seamRatio*f {
			nw[i] = 255
		}
	}
	nm := newMask(w, h, nw)
	defer nm.Close()
	morph(&nm, 0, 3)
	lb, n := newMaskRuns(u8view(nm), w, h, true).labels(w, h, true)
	if n <= 1 {
		return nil
	}
	boxes := make([]image.Rectangle, n)
	cnt := make([]int, n)
	var sums [][]float64 = make([][]float64, n)
	for i, l := range lb {
		if l == 0 {
			continue
		}
		x, y := i%w, i/w
		if cnt[l] == 0 {
			boxes[l] = image.Rect(x, y, x+1, y+1)
		} else {
			boxes[l] = boxes[l].Union(image.Rect(x, y, x+1, y+1))
		}
		cnt[l]++
		if nw[i] != 0 {
			sums[l] = append(sums[l], float64(ab[i])/math.Max(1, gain*float64(fb[i])))
		}
	}
	var out []seam
	for l := 1; l < n; l++ {
		b := boxes[l]
		lm := float64(max(b.Dx(), b.Dy())) / ppm
		if lm < seamMinMM {
			continue
		}
		sort.Float64s(sums[l])
		c := 0.0
		if len(sums[l]) > 0 {
			c = sums[l][len(sums[l])/2]
		}
		out = append(out, seam{lengthMM: lm, px: cnt[l], at: pt{float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2}, contrast: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lengthMM > out[j].lengthMM })
	return out
}

func (s seam) String() string {
	return fmt.Sprintf("%.1f mm (%d px, contrast %.1f) at (%.0f, %.0f) px", s.lengthMM, s.px, s.contrast, s.at.X, s.at.Y)
}

const (
	seamSlackMM = 0.75 // the fresh sheet's edges count this far (misregistration, blur)
	seamInsetMM = 1.0  // inside both masks' paper by this much
	seamMinGrad = 8.0  // grey levels per pixel
	seamRatio   = 5.0  // times the fresh sheet's gradient nearby
	seamMinMM   = 4.0  // reported from this long
	seamLongMM  = 10.0 // a seam between two pieces of paper is this long
	seamWideMM  = 1.5  // ... and this wide on average (area / length)
)

// looseSeam returns the first of ss (longest first) long and wide enough to be the line
// between two pieces of paper, nil when none is.
func looseSeam(ss []seam, ppm float64) *seam {
	for i := range ss {
		s := &ss[i]
		if s.lengthMM >= seamLongMM && float64(s.px)/(ppm*ppm) >= seamWideMM*s.lengthMM {
			return s
		}
	}
	return nil
}
