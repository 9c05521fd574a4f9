package ocr

import (
	"fmt"
	"math"
)

// crop is a region's ink rendered upright (dark on white) for Tesseract, with the map from
// crop pixels back to the region's (u, v) frame.
type crop struct {
	w, h   int
	pix    []uint8
	scale  float64 // crop px per sheet px
	margin float64
	u0, v0 float64
	// shear, when not 0, draws the writing sheared upright: crop column x shows
	// u' = u + shear*v (see estimateShear), u0 is then the least u' of the ink.
	shear float64
}

// targetHeight is the height, in crop pixels, the ink of a word is scaled to: letters about
// 40 px tall, which the LSTM model reads best (user_defined_dpi 300).
var targetHeight = 72.0

// render draws the region's own ink (other words' ink left out) in its reading frame.
func (im *inkMap) render(rg *region) *crop { return im.renderAt(rg, 1) }

// renderAt is render with the letters zoom times the size Tesseract reads best.
func (im *inkMap) renderAt(rg *region, zoom float64) *crop {
	return im.renderSheared(rg, zoom, im.readShear(rg))
}

// deslant is the fraction of a word's slant (estimateShear: the shear making its strokes
// most vertical) taken out of the crops Tesseract reads, which reads slanted handwriting
// poorly. Only a clear slant is taken out: at least deslantMin (run over rise) and making
// the column projection at least deslantGain times as sharp as upright.
//
// Measured on the written skills of 40 rendered sheets (seed 100), each read in its
// estimated direction in both modes with every word sheared (TestReadVariants): the dkg
// fonts (49 skills; dkgIt leans 0.45-0.6) read 68% like their names as drawn and 77% sheared
// by 0.7 of their slant (76% by all of it), reads under 60% like the name 18 against 10; the
// other fonts 94.3% against 95.6%; the likeness to the sheet's other names stayed 0.34. On the
// fresh photos of seeds 10-13 (474 skills) 66% against 70% for the dkg fonts, 93.2% against
// 93.6%. The bars: sheared when their writing leaned less, real handwriting (the bundled
// sample's "by", read at 100%, read "ny") and upright capitals (Humor-Sans "COOKING", found
// 0.6, only 1.05 times as sharp) read worse. Located end to end (TestWeakDiag, the fresh
// photos of seeds 10-13 and the project set, 534 skills): weak locations 60 to 56, those
// leaving a tear for them undecided 25 to 23 (dkgIt 13 to 10), letters right 455 to 454.
var (
	deslant     = 0.7
	deslantMin  = 0.3
	deslantGain = 1.15
)

// readShear is the shear renderAt draws rg's writing with (see deslant); 0 for writing
// nearly upright, and for a short word (under squareWords times as long as high, read at
// several angles): its strokes are too few to measure a slant by.
func (im *inkMap) readShear(rg *region) float64 {
	if deslant == 0 || rg.u1-rg.u0 < squareWords*(rg.v1-rg.v0) {
		return 0
	}
	s := estimateShear(im, rg)
	if math.Abs(s) < deslantMin || columnSharpness(im, rg, s) < deslantGain*columnSharpness(im, rg, 0) {
		return 0
	}
	return deslant * s
}

// columnSharpness is the sum of squares of rg's column projection (columns of u + shear*v,
// one px wide): larger when its strokes line up with the columns.
func columnSharpness(im *inkMap, rg *region, shear float64) float64 {
	cols := map[int]float64{}
	for _, p := range rg.pix {
		u, v := rg.toUV(float64(int(p)%im.w), float64(int(p)/im.w))
		cols[int(math.Floor(u+shear*v))]++
	}
	e := 0.0
	for _, c := range cols {
		e += c * c
	}
	return e
}

// renderSheared is renderAt with the writing sheared by shear (u' = u + shear*v, in the
// region's frame): slanted strokes drawn upright.
func (im *inkMap) renderSheared(rg *region, zoom, shear float64) *crop {
	member := make(map[int32]bool, len(rg.comps))
	for _, c := range rg.comps {
		member[int32(c+1)] = true
	}
	hgt := rg.v1 - rg.v0 + 1
	// Scale on the core of the writing (the x-height band, where most ink rows are), so
	// that long ascenders and descenders do not shrink the letters.
	core := math.Max(im.coreHeight(rg), 0.3*hgt)
	s := math.Min(targetHeight/hgt*1.6, coreTarget/core)
	s = math.Max(s, targetHeight/hgt)
	s = math.Min(math.Max(s*zoom, 0.4), 6)
	// Very long words: keep the crop width bounded.
	if (rg.u1-rg.u0+1)*s > 3000 {
		s = 3000 / (rg.u1 - rg.u0 + 1)
	}
	u0, u1 := rg.u0, rg.u1
	if shear != 0 {
		u0, u1 = math.Inf(1), math.Inf(-1)
		for _, p := range rg.pix {
			u, v := rg.toUV(float64(int(p)%im.w), float64(int(p)/im.w))
			u0, u1 = math.Min(u0, u+shear*v), math.Max(u1, u+shear*v)
		}
		if (u1-u0+1)*s > 3000 {
			s = 3000 / (u1 - u0 + 1)
		}
	}
	m := 16.0
	cw := int(math.Ceil((u1-u0+1)*s + 2*m))
	ch := int(math.Ceil(hgt*s + 2*m))
	cr := &crop{w: cw, h: ch, pix: make([]uint8, cw*ch), scale: s, margin: m, u0: u0, v0: rg.v0, shear: shear}
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= im.w || y >= im.h {
			return 0
		}
		i := y*im.w + x
		if l := im.label[i]; l != 0 {
			if member[l] {
				return float64(im.dark[i])
			}
			return 0
		}
		// Anti-aliased fringe: keep it when next to this region's ink.
		for _, j := range [4]int{i - 1, i + 1, i - im.w, i + im.w} {
			if j >= 0 && j < len(im.label) && member[im.label[j]] {
				return float64(im.dark[i])
			}
		}
		return 0
	}
	for oy := 0; oy < ch; oy++ {
		for ox := 0; ox < cw; ox++ {
			u, v := cr.toUV(float64(ox), float64(oy))
			if rg.full != nil && v > rg.v1+1 {
				cr.pix[oy*cw+ox] = 255 // clipped off (see clipped)
				continue
			}
			x, y := rg.fromUV(u, v)
			x0, y0 := int(math.Floor(x)), int(math.Floor(y))
			fx, fy := x-float64(x0), y-float64(y0)
			d := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			cr.pix[oy*cw+ox] = uint8(255 - math.Min(255, d))
		}
	}
	return cr
}

// coreTarget is the height, in crop pixels, of the writing's core band (x-height).
var coreTarget = 36.0

// coreHeight is the height of the band of rows (across the reading direction) holding at
// least 40% of the busiest row's ink.
func (im *inkMap) coreHeight(rg *region) float64 {
	off := math.Floor(rg.v0)
	rows := make([]int, int(rg.v1-off)+2)
	for _, p := range rg.pix {
		_, v := rg.toUV(float64(int(p)%im.w), float64(int(p)/im.w))
		rows[int(v-off)]++
	}
	mx := 0
	for _, r := range rows {
		mx = max(mx, r)
	}
	a, b := -1, -1
	for i, r := range rows {
		if float64(r) >= 0.4*float64(mx) {
			if a < 0 {
				a = i
			}
			b = i
		}
	}
	return float64(b - a + 1)
}

func (c *crop) toUV(ox, oy float64) (u, v float64) {
	v = (oy-c.margin)/c.scale + c.v0
	return (ox-c.margin)/c.scale + c.u0 - c.shear*v, v
}

// pgm encodes the crop as a binary PGM, which Leptonica reads from memory.
func (c *crop) pgm() []byte {
	hdr := fmt.Sprintf("P5\n%d %d\n255\n", c.w, c.h)
	out := make([]byte, 0, len(hdr)+len(c.pix))
	out = append(out, hdr...)
	return append(out, c.pix...)
}
