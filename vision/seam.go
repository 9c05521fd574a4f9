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
	areaMM2  float64 // its area
	at       pt      // its centre (frame px)
	contrast float64 // median gradient over the fresh sheet's there (after / fresh)
}

// seamLines finds the lines the after photo shows on what both masks call paper (bm, am,
// frame layout w x h, non-zero) that the fresh sheet does not show within seamSlackMM: ref is
// seamRef's (the fresh sheet's gradient, then its grey image, at 1/seamScale of the frame's
// resolution), photo the after photo in the sheet frame (BGR, w x h). The search runs at
// 1/seamScale of the frame's resolution too (a fourth of the work); the seams found are in
// frame pixels and millimetres. Longest first.
func seamLines(ref []byte, photo gocv.Mat, bm, am []byte, w, h int, ppm float64) []seam {
	W, H := w, h
	w, h, ppm = w/seamScale, h/seamScale, ppm/seamScale
	if len(ref) != 2*w*h || photo.Cols() != W || photo.Rows() != H || len(bm) != W*H || len(am) != W*H || w < 3 || h < 3 {
		return nil
	}
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(photo, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	ga := gocv.NewMat()
	defer ga.Close()
	if small.Channels() == 3 {
		gocv.CvtColor(small, &ga, gocv.ColorBGRToGray)
	} else {
		small.CopyTo(&ga)
	}
	// Inside both masks' paper by seamInsetMM (nor along the frame's edge, which erosion
	// alone would keep: the sheet's own edge); a pixel is paper when the frame pixels at two
	// opposite corners of its block are.
	both := make([]byte, w*h)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i0 := seamScale * (y*W + x)
			i1 := i0 + (seamScale-1)*(W+1)
			if bm[i0] != 0 && am[i0] != 0 && bm[i1] != 0 && am[i1] != 0 {
				both[y*w+x] = 255
			}
		}
	}
	bmm := newMask(w, h, both)
	defer bmm.Close()
	ei := 2*int(math.Round(seamInsetMM*ppm)) + 1
	ki := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(ei, ei))
	gocv.Erode(bmm, &bmm, ki)
	ki.Close()
	inside := u8view(bmm)
	// The after photo's paper level against the fresh sheet's (medians, every 7th pixel).
	gab := u8view(ga)
	var ha, hf [256]int
	nh := 0
	for i := 0; i < w*h; i += 7 {
		if inside[i] != 0 {
			ha[gab[i]]++
			hf[ref[w*h+i]]++ // (ref's second half: the fresh sheet's grey)
			nh++
		}
	}
	if nh < 100 {
		return nil
	}
	median := func(hist *[256]int) float64 {
		c := 0
		for v, k := range hist {
			if c += k; 2*c >= nh {
				return float64(v)
			}
		}
		return 255
	}
	gain := median(&ha) / math.Max(1, median(&hf))
	dx, dy := gocv.NewMat(), gocv.NewMat()
	defer dx.Close()
	defer dy.Close()
	gocv.Sobel(ga, &dx, gocv.MatTypeCV16S, 1, 0, 3, 1, 0, gocv.BorderReplicate)
	gocv.Sobel(ga, &dy, gocv.MatTypeCV16S, 0, 1, 3, 1, 0, gocv.BorderReplicate)
	sx, err1 := dx.DataPtrInt16()
	sy, err2 := dy.DataPtrInt16()
	if err1 != nil || err2 != nil || len(sx) != w*h || len(sy) != w*h {
		return nil
	}
	ab := make([]byte, w*h) // the after photo's gradient where inside and new
	nw := make([]byte, w*h)
	minM := int32(4 * seamMinGrad)
	for i, v := range inside {
		if v == 0 {
			continue
		}
		m := max(absI32(int32(sx[i])), absI32(int32(sy[i])))
		if m < minM {
			continue
		}
		a := float64(m) / 4
		if a >= seamRatio*gain*float64(ref[i]) {
			nw[i] = 255
			ab[i] = byte(min(255, m/4))
		}
	}
	fb := ref[:w*h]
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
		out = append(out, seam{lengthMM: lm, areaMM2: float64(cnt[l]) / (ppm * ppm), at: pt{float64(b.Min.X+b.Max.X) / 2 * seamScale, float64(b.Min.Y+b.Max.Y) / 2 * seamScale}, contrast: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lengthMM > out[j].lengthMM })
	return out
}

func (s seam) String() string {
	return fmt.Sprintf("%.1f mm (%.1f mm wide, contrast %.1f) at (%.0f, %.0f) px", s.lengthMM, s.areaMM2/s.lengthMM, s.contrast, s.at.X, s.at.Y)
}

const (
	seamSlackMM = 0.75 // the fresh sheet's edges count this far (misregistration, blur)
	seamInsetMM = 1.0  // inside both masks' paper by this much
	seamMinGrad = 8.0  // grey levels per pixel
	seamRatio   = 5.0  // times the fresh sheet's gradient nearby
	seamMinMM   = 4.0  // reported from this long
	seamScale   = 2    // the search runs at 1/seamScale of the frame's resolution
	seamLongMM  = 10.0 // a seam between two pieces of paper is this long
	seamWideMM  = 1.9  // ... and this wide on average (area / length)
)

// looseSeam returns the first of ss (longest first) long and wide enough to be the line
// between two pieces of paper, nil when none is.
func looseSeam(ss []seam) *seam {
	for i := range ss {
		s := &ss[i]
		if s.lengthMM >= seamLongMM && s.areaMM2 >= seamWideMM*s.lengthMM {
			return s
		}
	}
	return nil
}

func absI32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// seamGradient is a grey image's gradient (w x h): the larger of its Sobel x and y
// responses over 4, in grey levels per pixel.
func seamGradient(g gocv.Mat) gocv.Mat {
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

// seamRef is what seamLines compares a later photo with, made once for s's fresh sheet and
// every sheet registered to it (frame w x h at ppm): the fresh sheet's grey image at
// 1/seamScale of that resolution, its gradient (seamGradient) dilated by seamSlackMM, then
// the grey image itself (each w/seamScale x h/seamScale bytes).
func seamRef(s *SheetImage, w, h int, ppm float64) []byte {
	make1 := func() []byte {
		g0 := freshGray(s)
		if len(g0) != w*h {
			return nil
		}
		gf := newMask(w, h, g0)
		defer gf.Close()
		hw, hh, hp := w/seamScale, h/seamScale, ppm/seamScale
		small := gocv.NewMat()
		defer small.Close()
		gocv.Resize(gf, &small, image.Pt(hw, hh), 0, 0, gocv.InterpolationArea)
		gr := seamGradient(small)
		defer gr.Close()
		e := 2*int(math.Round(seamSlackMM*hp)) + 1
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(e, e))
		gocv.Dilate(gr, &gr, k)
		k.Close()
		return append(gr.ToBytes(), small.ToBytes()...)
	}
	zc := freshZone(s)
	zc.seamOnce.Do(func() { zc.seamW, zc.seamH, zc.seamPPM, zc.seam = w, h, ppm, make1() })
	if zc.seamW != w || zc.seamH != h || zc.seamPPM != ppm {
		return make1()
	}
	return zc.seam
}
