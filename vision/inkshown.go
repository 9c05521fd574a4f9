package vision

import (
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"
)

// A removed piece that still shows the fresh sheet's writing or ruling in the after photo is
// paper the after mask missed (a shaded corner whose lighting the change test mispredicted, seen
// on held-out synthetic sets: a spurious second piece, several_pieces ruled for certain). The
// table seen through a real gap shows no such pattern. inkShownCheck compares, inside the piece
// (eroded by inkShownInsetMM, against registration slop at its outline), the fresh sheet's ink
// with what the after photo shows as ink there (darker than the piece itself around it, not
// than the paper beyond its rim), against the same rate away from the ink (a textured table
// shows "ink" everywhere alike); a piece with too little of either gives no evidence.
const (
	inkShownInsetMM = 1.5
	inkShownMinMM2  = 3.0 // fresh ink (mm²) a piece needs inside for any evidence
	inkShownFrac    = 0.8 // share of that ink the after photo must show (paper: 99-100% on seed 6; felt through a real gap: 51-55%)
	inkShownRatio   = 3.0 // ... and that many times its rate away from the ink
	inkShownAwayMM  = 2.0 // "away from the ink": this far from any
)

// inkShownCheck reports whether the removed piece pm (frame layout w x h, non-zero; inside
// box) still shows the fresh sheet's ink in the after photo: g0 is the fresh sheet's grey image
// (w x h), ai the after photo's BGR bytes (3 x w x h), both in the sheet frame; ppm pixels per
// millimetre. Only box and 4 mm around it are read. The ink is found as freshInk and inkMissing find it
// (OpenCV's adaptive threshold over a 6 mm window). It also returns the fresh ink area inside
// the piece (mm²) and the share of it shown.
func inkShownCheck(g0, ai, pm []byte, box image.Rectangle, w, h int, ppm float64) (bool, float64, float64) {
	if len(g0) != w*h || len(ai) != 3*w*h || len(pm) != w*h {
		return false, 0, 0
	}
	pad := int(math.Ceil(4 * ppm))
	r := image.Rect(box.Min.X-pad, box.Min.Y-pad, box.Max.X+pad, box.Max.Y+pad).Intersect(image.Rect(0, 0, w, h))
	rw, rh := r.Dx(), r.Dy()
	if rw < 3 || rh < 3 {
		return false, 0, 0
	}
	crop := func(b []byte) gocv.Mat {
		sub := make([]byte, rw*rh)
		for y := 0; y < rh; y++ {
			copy(sub[y*rw:(y+1)*rw], b[(r.Min.Y+y)*w+r.Min.X:(r.Min.Y+y)*w+r.Max.X])
		}
		return newMask(rw, rh, sub)
	}
	disk := func(mm float64) gocv.Mat {
		e := 2*int(math.Round(mm*ppm)) + 1
		return gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
	}
	shape := func(src gocv.Mat, mm float64, grow bool) []byte {
		k := disk(mm)
		defer k.Close()
		dst := gocv.NewMat()
		defer dst.Close()
		if grow {
			gocv.Dilate(src, &dst, k)
		} else {
			gocv.Erode(src, &dst, k) // outside the crop counts as piece: an edge piece keeps its edge
		}
		return dst.ToBytes()
	}
	afterGrey := func() gocv.Mat {
		sub := make([]byte, 3*rw*rh)
		for y := 0; y < rh; y++ {
			copy(sub[3*y*rw:3*(y+1)*rw], ai[3*((r.Min.Y+y)*w+r.Min.X):3*((r.Min.Y+y)*w+r.Max.X)])
		}
		m, err := gocv.NewMatFromBytes(rh, rw, gocv.MatTypeCV8UC3, sub)
		if err != nil {
			panic(fmt.Sprintf("vision: NewMatFromBytes %dx%d: %v", rw, rh, err)) // programming error
		}
		defer m.Close()
		g := gocv.NewMat()
		gocv.CvtColor(m, &g, gocv.ColorBGRToGray)
		return g
	}
	ink := func(g gocv.Mat, c float32) gocv.Mat {
		defer g.Close()
		th := gocv.NewMat()
		gocv.AdaptiveThreshold(g, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*ppm)|1, c)
		return th
	}
	pc := crop(pm)
	defer pc.Close()
	core := shape(pc, inkShownInsetMM, false)
	fm := ink(crop(g0), 20) // the fresh sheet's ink, as freshInk
	defer fm.Close()
	// What the after photo shows as ink, as inkMissing does but against the mean of the
	// piece's own pixels around it: the paper around a gap would make the table near the
	// gap's rim read as "ink" wherever it is darker than the paper (held-out seed 11 case-004
	// chidi-4: dark cloth through a 328 mm² gap showed 90% of a letter's place as ink, the
	// cloth there no darker than elsewhere in the gap, grey 35 against 33).
	ag := afterGrey()
	am := newMask(rw, rh, inkWithin(ag.ToBytes(), pc.ToBytes(), rw, rh, int(6*ppm)|1, 8))
	ag.Close()
	defer am.Close()
	fi := fm.ToBytes()
	seen := shape(am, 1, true) // registration and blur
	away := shape(fm, inkShownAwayMM, true)
	var nInk, sInk, nCtl, sCtl int
	for i := range core {
		if core[i] == 0 {
			continue
		}
		switch {
		case fi[i] != 0:
			nInk++
			if seen[i] != 0 {
				sInk++
			}
		case away[i] == 0:
			nCtl++
			if seen[i] != 0 {
				sCtl++
			}
		}
	}
	inkMM2 := float64(nInk) / (ppm * ppm)
	if inkMM2 < inkShownMinMM2 {
		return false, inkMM2, 0
	}
	frac := float64(sInk) / float64(nInk)
	if float64(nCtl)/(ppm*ppm) < inkShownMinMM2 {
		// Too little of the piece away from the ink to tell writing from a grainy table
		// (a small hole through a word, wood seen through it).
		return false, inkMM2, frac
	}
	ctl := float64(sCtl) / float64(nCtl)
	return frac >= inkShownFrac && frac >= inkShownRatio*ctl, inkMM2, frac
}

// writingShown reports whether the photo si (BGR bytes, frame layout w x h) of a sheet
// registered to s's fresh sheet shows the fresh sheet's writing or ruling on the piece pm
// (inside box): inkShownCheck.
func writingShown(s *SheetImage, si, pm []byte, box image.Rectangle, w, h int, ppm float64) bool {
	ok, _, _ := inkShownCheck(freshGray(s), si, pm, box, w, h, ppm)
	return ok
}

// inkWithin returns, over a w x h grey image g (bytes), 255 where g is in the region (in,
// non-zero) and at least c darker than the mean of the region's pixels in the win x win
// window around it (AdaptiveThreshold's mean rule, with the window's mean taken over the
// region only), else 0.
func inkWithin(g, in []byte, w, h, win int, c float64) []byte {
	// Integral sums of the region's grey and of its pixel count, (w+1) x (h+1).
	sg, sn := make([]int64, (w+1)*(h+1)), make([]int32, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var rg int64
		var rn int32
		for x := 0; x < w; x++ {
			if i := y*w + x; in[i] != 0 {
				rg += int64(g[i])
				rn++
			}
			o := (y+1)*(w+1) + x + 1
			sg[o], sn[o] = sg[o-w-1]+rg, sn[o-w-1]+rn
		}
	}
	r := win / 2
	out := make([]byte, w*h)
	for y := 0; y < h; y++ {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := 0; x < w; x++ {
			i := y*w + x
			if in[i] == 0 {
				continue
			}
			x0, x1 := max(0, x-r), min(w, x+r+1)
			a, b, cc, d := y0*(w+1)+x0, y0*(w+1)+x1, y1*(w+1)+x0, y1*(w+1)+x1
			n := sn[d] - sn[b] - sn[cc] + sn[a]
			if m := float64(sg[d]-sg[b]-sg[cc]+sg[a]) / float64(n); float64(g[i]) <= m-c {
				out[i] = 255
			}
		}
	}
	return out
}
