package vision

import (
	"bytes"
	"cmp"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// Edge evidence for the paper mask.
//
// On a pale desk, shaded paper and the desk have the same colour, so neither the colour test
// nor the change test separates them, and the mask's boundary can run through smooth paper
// or smooth desk millimetres away from the tear line (seed 2 case-003 fatima-1: 191 mm² of
// paper lost and 93 mm² of desk called paper beside one tear line). But where paper meets the
// table the photo has a sharp step in brightness (the torn paper's whitened rim, the sheet's
// shadow on the table), while shading, on paper or table, is smooth. So the pixels near the
// mask's boundary are re-decided by flooding: from the paper and the table farther away
// (the mask's own labels, taken as right there), each pixel near the boundary takes the label
// of the side that reaches it over the lowest barrier, the barrier of a path being the
// strongest brightness step it crosses (a watershed with markers, minimax paths). The new
// boundary then lies on the strongest step between the two sides.
//
// The band is a few percent of the frame: after the seeds (two erosions of the mask), every
// step works on the band's pixels only, as runs along the rows (spans.go), and gives what the
// same steps over the whole frame gave, bit for bit (edgemask_ref_test.go keeps them as they
// were; TestEdgeRefineMatchesReference).

const (
	// edgeBandMM: mask pixels within this distance of the mask's paper/table boundary are
	// re-decided; the rest are the flood's seeds.
	edgeBandMM = 4.0
	// edgeFrameMM: the mask within this distance of the frame's edge is re-decided too
	// (Register calls paper there what either of its tests calls paper).
	edgeFrameMM = 2.0
	// edgeStripRows: edgeSeeds erodes the mask by strips of this many rows.
	edgeStripRows = 64
)

// edgeSeeds returns the flood's labels before it runs (w x h): floodPaper and floodTable for
// the mask's paper and table farther than edgeBandMM from the other (along both axes: a
// square erosion) and than edgeFrameMM from the frame's edge, -1 for unknown pixels (frame
// layout, or nil), which take no part, and 0 for the pixels the flood decides. mb is mask's
// bytes. The erosions are made by strips of edgeStripRows rows, each on the columns within
// edgeBandMM of the table near it only: elsewhere the strip is paper with no table near.
func edgeSeeds(mask gocv.Mat, mb, unknown []byte, w, h int, ppm float64) []int8 {
	r := int(math.Round(edgeBandMM * ppm))
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(2*r+1, 2*r+1))
	defer k.Close()
	// Each row's table: its first and last column (-1: none).
	first, last := make([]int, h), make([]int, h)
	for y := 0; y < h; y++ {
		row := mb[y*w : (y+1)*w]
		if first[y] = bytes.IndexByte(row, 0); first[y] >= 0 {
			last[y] = bytes.LastIndexByte(row, 0) // (a byte at a time: only on rows with table)
		}
	}
	lab := make([]int8, w*h)
	paperRow := bytes.Repeat([]byte{floodPaper}, w)
	lb := i8bytes(lab)
	for y0 := 0; y0 < h; y0 += edgeStripRows {
		y1 := min(y0+edgeStripRows, h)
		x0, x1 := w, -1 // the table's columns within r of the strip
		for y := max(y0-r, 0); y < min(y1+r, h); y++ {
			if first[y] >= 0 {
				x0, x1 = min(x0, first[y]), max(x1, last[y])
			}
		}
		c0, c1 := w, w // the columns eroded
		if x1 >= 0 {
			c0, c1 = max(x0-r, 0), min(x1+r+1, w)
		}
		for y := y0; y < y1; y++ {
			copy(lb[y*w:y*w+c0], paperRow)
			copy(lb[y*w+c1:(y+1)*w], paperRow)
		}
		if c0 >= c1 {
			continue
		}
		// The erosions of the strip's columns see r farther.
		src := image.Rect(max(c0-r, 0), max(y0-r, 0), min(c1+r, w), min(y1+r, h))
		reg := mask.Region(src)
		paper := reg.Clone()
		reg.Close()
		notPaper, pe, te := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
		gocv.BitwiseNot(paper, &notPaper)
		gocv.Erode(paper, &pe, k)
		gocv.Erode(notPaper, &te, k)
		pb, tb, sw := u8view(pe), u8view(te), src.Dx()
		for y := y0; y < y1; y++ {
			o := (y-src.Min.Y)*sw - src.Min.X
			for x := c0; x < c1; x++ {
				if pb[o+x] != 0 {
					lab[y*w+x] = floodPaper
				} else if tb[o+x] != 0 {
					lab[y*w+x] = floodTable
				}
			}
		}
		paper.Close()
		notPaper.Close()
		pe.Close()
		te.Close()
	}
	clearFrameEdge(lab, w, h, int(edgeFrameMM*ppm))
	if len(unknown) == w*h {
		for i, v := range unknown {
			if v != 0 {
				lab[i] = -1
			}
		}
	}
	keepSeedless(lab, mb, w, h)
	return lab
}

// keepSeedless makes seeds of every connected part (8-connected) of the mask's paper (mb
// 255), and of its table, that holds no seed (see edgeSeeds), but for the pixels that take no
// part (lab < 0): a part of the mask too small or too thin to keep a seed is left as the mask
// has it; the flood would give it to its surroundings (seed 1 case-003 ines-2: a 66 mm² bite
// 6 mm deep at the frame's edge, measured "nothing removed"). A part with no seed lies in the
// band: it is a part of the band's pixels of one side (lab <= 0) that touches no seed of
// that side.
func keepSeedless(lab []int8, mb []byte, w, h int) {
	lb := i8bytes(lab)
	band := mergeSpans(spansOf(lb, w, h, 0), spansOf(lb, w, h, 0xff))
	// Split by side.
	var sp []span
	var side []byte
	for _, s := range band {
		o := int(s.y) * w
		for x := s.x0; x < s.x1; {
			v := mb[o+int(x)]
			x1 := x + 1
			for x1 < s.x1 && mb[o+int(x1)] == v {
				x1++
			}
			sp = append(sp, span{s.y, x, x1})
			side = append(side, v)
			x = x1
		}
	}
	part, n := spanParts(sp, side)
	seeded := make([]bool, n)
	for i, s := range sp {
		l := int8(floodTable)
		if side[i] != 0 {
			l = floodPaper
		}
		x0, x1 := max(int(s.x0)-1, 0), min(int(s.x1)+1, w)
		for y := max(int(s.y)-1, 0); y <= min(int(s.y)+1, h-1) && !seeded[part[i]]; y++ {
			for _, v := range lab[y*w+x0 : y*w+x1] {
				if v == l {
					seeded[part[i]] = true
					break
				}
			}
		}
	}
	for i, s := range sp {
		if seeded[part[i]] {
			continue
		}
		l := int8(floodTable)
		if side[i] != 0 {
			l = floodPaper
		}
		row := lab[int(s.y)*w : int(s.y+1)*w]
		for x := s.x0; x < s.x1; x++ {
			if row[x] == 0 {
				row[x] = l
			}
		}
	}
}

// edgeCost returns, per pixel of the BGR image img (w x h) in open or next to one of its
// pixels (4-connected), the strength of its brightness step: the largest over the three
// channels of |Sobel x| + |Sobel y| (3x3, the image's border reflected) after a Gaussian
// blur of sigma 1 px, capped at edgeCostMax; 0 elsewhere. (Computed where needed only: the
// flood reads the pixels it decides and their neighbours.) The blur is made by strips of
// edgeStripRows rows, each on one image of the columns the strip reads (and the blur's reach
// around them) side by side: OpenCV's blur of a pixel depends on the 5x5 pixels around it
// only, and where a piece's edge is the frame's edge it is the strip image's (the pieces in
// order), reflected alike.
func edgeCost(img gocv.Mat, open []span) []uint16 {
	return edgeCostInto(make([]uint16, img.Cols()*img.Rows()), img, open)
}

// edgeCostInto is edgeCost writing into out (w x h; the other pixels are left as they are).
func edgeCostInto(out []uint16, img gocv.Mat, open []span) []uint16 {
	w, h := img.Cols(), img.Rows()
	src := u8view(img)
	if len(src) != 3*w*h || len(out) != w*h {
		return nil
	}
	refl := func(v, n int) int {
		if v < 0 {
			return -v
		}
		if v >= n {
			return 2*n - 2 - v
		}
		return v
	}
	rs := rowStarts(open, h)
	var runs, cols, pieces []span
	col := make([]int, w) // a frame column's column in the strip image
	for y0 := 0; y0 < h; y0 += edgeStripRows {
		y1 := min(y0+edgeStripRows, h)
		// The columns the strip's costs read: its pixels', and one beside them; and its
		// first and last row with any.
		cols = cols[:0]
		ya, yb := -1, -1
		for y := y0; y < y1; y++ {
			runs = besideRow(open, rs, y, w, h, runs)
			for _, s := range runs {
				cols = append(cols, span{0, max(s.x0-1, 0), min(s.x1+1, int32(w))})
			}
			if len(runs) > 0 {
				if ya < 0 {
					ya = y
				}
				yb = y
			}
		}
		if len(cols) == 0 {
			continue
		}
		slices.SortFunc(cols, func(a, b span) int { return cmp.Compare(a.x0, b.x0) })
		// The pieces: those columns and the blur's reach (2 px) beyond, joined when they
		// overlap or lie within edgeBlurGap of each other.
		pieces = pieces[:0]
		for _, c := range cols {
			a, b := max(c.x0-2, 0), min(c.x1+2, int32(w))
			if n := len(pieces); n > 0 && a <= pieces[n-1].x1+edgeBlurGap {
				pieces[n-1].x1 = max(pieces[n-1].x1, b)
				continue
			}
			pieces = append(pieces, span{0, a, b})
		}
		// The strip image: rows from 3 above the strip's first row with pixels to 3 below its
		// last (the blur's reach beyond the Sobel's), the pieces side by side.
		ry0, ry1 := max(ya-3, 0), min(yb+1+3, h)
		cw := 0
		for _, pc := range pieces {
			cw += int(pc.x1 - pc.x0)
		}
		sm := gocv.NewMatWithSize(ry1-ry0, cw, gocv.MatTypeCV8UC3)
		sb := u8view(sm)
		o := 0
		for _, pc := range pieces {
			pw := int(pc.x1 - pc.x0)
			for x := int(pc.x0); x < int(pc.x1); x++ {
				col[x] = o + x - int(pc.x0)
			}
			for y := ry0; y < ry1; y++ {
				copy(sb[3*((y-ry0)*cw+o):3*((y-ry0)*cw+o+pw)], src[3*(y*w+int(pc.x0)):3*(y*w+int(pc.x1))])
			}
			o += pw
		}
		bl := gocv.NewMat()
		gocv.GaussianBlur(sm, &bl, image.Pt(5, 5), 1, 1, gocv.BorderReflect101)
		p := u8view(bl)
		for y := y0; y < y1; y++ {
			runs = besideRow(open, rs, y, w, h, runs)
			ym, yp, yc := (refl(y-1, h)-ry0)*cw, (refl(y+1, h)-ry0)*cw, (y-ry0)*cw
			x := 0 // the first column not yet computed
			for _, s := range runs {
				for x = max(x, int(s.x0)); x < int(s.x1); x++ {
					xm, xc, xp := col[refl(x-1, w)], col[x], col[refl(x+1, w)]
					m := 0
					for k := 0; k < 3; k++ {
						a, b, c := int(p[3*(ym+xm)+k]), int(p[3*(ym+xc)+k]), int(p[3*(ym+xp)+k])
						d, f := int(p[3*(yc+xm)+k]), int(p[3*(yc+xp)+k])
						g, hh, j := int(p[3*(yp+xm)+k]), int(p[3*(yp+xc)+k]), int(p[3*(yp+xp)+k])
						gx := (c + 2*f + j) - (a + 2*d + g)
						gy := (g + 2*hh + j) - (a + 2*b + c)
						m = max(m, absInt(gx)+absInt(gy))
					}
					out[y*w+x] = uint16(min(m, edgeCostMax))
				}
			}
		}
		bl.Close()
		sm.Close()
	}
	return out
}

// edgeBlurGap: edgeCost blurs two pieces of a strip as one when this few columns (or fewer)
// lie between them.
const edgeBlurGap = 16

const edgeCostMax = 1023

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// floodLabels decides every open pixel (lab 0) of lab (w x h) by a minimax flood from the
// labelled ones (lab > 0; lab < 0 takes no part): a pixel takes the label of the seed it is
// joined to by the path whose largest cost is smallest (ties: first reached, in a fixed
// order). Pixels where stop is 255 take a label but pass none on. Pixels not reached keep 0.
func floodLabels(lab []int8, cost []uint16, stop []byte, w, h int) {
	buckets := make([][]int32, edgeCostMax+1)
	// visit labels p's open neighbours (left, right, up, down) with p's label and queues
	// each at the larger of level and its cost (labelled as it is queued: never queued twice).
	visit := func(p, level int) {
		l := lab[p]
		x := int(uint32(p) % uint32(w))
		nb := [4]int{p - 1, p + 1, p - w, p + w}
		in := [4]bool{x > 0, x < w-1, p >= w, p < len(lab)-w}
		for k, q := range nb {
			if in[k] && lab[q] == 0 {
				lab[q] = l
				c := max(level, int(cost[q]))
				buckets[c] = append(buckets[c], int32(q))
			}
		}
	}
	// The seeds beside an open pixel, in raster order (visit labels open pixels as it goes).
	open := spansOf(i8bytes(lab), w, h, 0)
	rs := rowStarts(open, h)
	var seeds []int32
	var runs []span
	for y := 0; y < h; y++ {
		runs = besideRow(open, rs, y, w, h, runs)
		x := 0 // the first column not yet looked at
		for _, s := range runs {
			for x = max(x, int(s.x0)); x < int(s.x1); x++ {
				if lab[y*w+x] > 0 {
					seeds = append(seeds, int32(y*w+x))
				}
			}
		}
	}
	for _, p := range seeds {
		visit(int(p), 0)
	}
	for level := 0; level <= edgeCostMax; level++ {
		for k := 0; k < len(buckets[level]); k++ { // the bucket grows while it is read
			p := int(buckets[level][k])
			if stop == nil || stop[p] == 0 {
				visit(p, level)
			}
		}
		buckets[level] = nil
	}
}

// Flood labels.
const (
	floodPaper = 1
	floodTable = 2
)

// edgeRefineOff (tests only) turns edgeRefine off, to compare masks with and without it.
var edgeRefineOff bool

// A change the flood made is kept when the median step along the boundary it makes is at
// least edgeNoiseK times the photo's median step (a real step, not noise), and at least
// edgeKeep times the median step along the boundary it replaces.
const (
	edgeNoiseK = 3.0
	edgeKeep   = 0.75
)

// diffSpans returns the runs of open's pixels where mb and nb differ (spansOf's order).
func diffSpans(mb, nb []byte, open []span, w int) []span {
	var out []span
	for _, s := range open {
		o := int(s.y) * w
		for x := s.x0; x < s.x1; x++ {
			if mb[o+int(x)] == nb[o+int(x)] {
				continue
			}
			x0 := x
			for x < s.x1 && mb[o+int(x)] != nb[o+int(x)] {
				x++
			}
			out = append(out, span{s.y, x0, x})
		}
	}
	return out
}

// keepStronger undoes each connected part (8-connected) of the changes from mb to nb (w x h
// masks; they differ in open's pixels only) that does not move the boundary onto a real
// brightness step, as strong as the one it replaces (see edgeNoiseK): the flood's fronts also
// meet in smooth paper or table, where a wrongly labelled seed keeps its wrong label and
// spreads (seed 2 case-007 fatima-3: a patch of shaded paper the mask lost grew by 5 mm all
// round). Steps within halo (the fresh sheet's ink and its halo) are no evidence: the ink is
// a step in both photos (seed 1 case-007 kofi-3: the paper between a letter's strokes and a
// tear line, reached from the table only across the tear line since ink passes no label on,
// went to the table).
func keepStronger(mb, nb []byte, cost []uint16, open []span, halo []byte, w, h int) {
	if len(halo) != w*h {
		halo = nil
	}
	dsp := diffSpans(mb, nb, open, w)
	if len(dsp) == 0 {
		return
	}
	part, n := spanParts(dsp, nil)
	newS, oldS := make([][]uint16, n), make([][]uint16, n)
	for k, s := range dsp {
		r := part[k]
		y := int(s.y)
		for x := int(s.x0); x < int(s.x1); x++ {
			i := y*w + x
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				switch {
				case j == i-1 && x == 0, j == i+1 && x == w-1, j == i-w && y == 0, j == i+w && y == h-1:
					continue
				}
				if halo != nil && (halo[i] != 0 || halo[j] != 0) {
					continue
				}
				c := max(cost[i], cost[j])
				if nb[i] != nb[j] {
					newS[r] = append(newS[r], c)
				}
				if mb[i] != mb[j] {
					oldS[r] = append(oldS[r], c)
				}
			}
		}
	}
	med := func(v []uint16) int {
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return int(v[len(v)/2])
	}
	floor := stepFloor(cost, open, w)
	undo := make([]bool, n)
	for r := range undo {
		nm, om := med(newS[r]), med(oldS[r])
		undo[r] = float64(nm) < floor || float64(nm) < edgeKeep*float64(om)
	}
	for k, s := range dsp {
		if undo[part[k]] {
			o := int(s.y) * w
			copy(nb[o+int(s.x0):o+int(s.x1)], mb[o+int(s.x0):o+int(s.x1)])
		}
	}
}

// stepFloor is the weakest real step (edgeNoiseK times the photo's noise): the noise is the
// median step (cost, w px wide) over the pixels decided (open: mostly smooth paper or table),
// one pixel in 7 of the frame.
func stepFloor(cost []uint16, open []span, w int) float64 {
	var smp []uint16
	for _, s := range open {
		o := int(s.y) * int(w)
		for i := o + int(s.x0) + (7-(o+int(s.x0))%7)%7; i < o+int(s.x1); i += 7 {
			smp = append(smp, cost[i])
		}
	}
	m := 0
	if len(smp) > 0 {
		slices.Sort(smp)
		m = int(smp[len(smp)/2])
	}
	return edgeNoiseK * float64(max(m, 1))
}

// likeSideMM: keepLikeSide compares a change with the paper and the table within this
// distance of it.
const likeSideMM = 2.0

// keepLikeSide undoes each connected part (8-connected) of the changes from mb to nb (they
// differ in open's pixels only) whose median brightness (sum of the channels of img, BGR,
// w x h) is closer to that of the pixels within likeSideMM around it that nb leaves on the
// other side than to those on the side nb gives it (pixels of halo, the fresh sheet's ink and
// its halo, left out). The flood's fronts stop at the fresh sheet's ink (it passes no label
// on), so the paper between a cut letter's stroke and the tear line is reached from the
// table only, across the tear line (seed 2 case-011 hana-4: 41 mm² of paper beside "Cartog"
// went to the table); it looks like the paper beyond the stroke, not the table beyond the
// tear line's step. The parts are taken in the order OpenCV's connectedComponents numbers
// them (spanParts): undoing one can change the sides around the next.
func keepLikeSide(mb, nb, img, halo []byte, open []span, w, h int, ppm float64) {
	if len(img) != 3*w*h || len(halo) != w*h {
		return
	}
	dsp := diffSpans(mb, nb, open, w)
	if len(dsp) == 0 {
		return
	}
	part, n := spanParts(dsp, nil)
	byPart := make([][]span, n)
	for k, s := range dsp {
		byPart[part[k]] = append(byPart[part[k]], s)
	}
	r := int(math.Round(likeSideMM * ppm))
	lum := func(i int) uint16 { return uint16(img[3*i]) + uint16(img[3*i+1]) + uint16(img[3*i+2]) }
	med := func(v []uint16) int {
		slices.Sort(v)
		return int(v[len(v)/2])
	}
	for _, sps := range byPart {
		area := 0
		x0, x1 := w, 0
		for _, s := range sps {
			area += int(s.x1 - s.x0)
			x0, x1 = min(x0, int(s.x0)), max(x1, int(s.x1))
		}
		if int32(area) < int32(ppm*ppm) {
			continue // under a square millimetre: left as the flood has it
		}
		y0, y1 := int(sps[0].y), int(sps[len(sps)-1].y)+1
		X0, Y0, X1, Y1 := max(0, x0-r), max(0, y0-r), min(w, x1+r), min(h, y1+r)
		// The part's pixels and, by a square window of r, the pixels around it.
		rw, rh := X1-X0, Y1-Y0
		pm := gocv.NewMatWithSize(rh, rw, gocv.MatTypeCV8UC1)
		pb := u8view(pm)
		own := make([]bool, rw*rh)
		var in []uint16
		for _, s := range sps {
			for x := int(s.x0); x < int(s.x1); x++ {
				i := int(s.y)*w + x
				pb[(int(s.y)-Y0)*rw+x-X0] = 255
				own[(int(s.y)-Y0)*rw+x-X0] = true
				if halo[i] == 0 {
					in = append(in, lum(i))
				}
			}
		}
		last := sps[len(sps)-1]
		side := nb[int(last.y)*w+int(last.x1)-1] // the label nb gives the part (its last pixel's)
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(2*r+1, 2*r+1))
		gocv.Dilate(pm, &pm, k)
		k.Close()
		near := u8view(pm)
		var same, other []uint16
		for y := Y0; y < Y1; y++ {
			for x := X0; x < X1; x++ {
				i, l := y*w+x, (y-Y0)*rw+x-X0
				if near[l] == 0 || own[l] || halo[i] != 0 {
					continue
				}
				if (nb[i] != 0) == (side != 0) {
					same = append(same, lum(i))
				} else {
					other = append(other, lum(i))
				}
			}
		}
		pm.Close()
		if len(in) == 0 || len(same) == 0 || len(other) == 0 {
			continue
		}
		m := med(in)
		if absInt(m-med(other)) < absInt(m-med(same)) {
			for _, s := range sps {
				o := int(s.y) * w
				copy(nb[o+int(s.x0):o+int(s.x1)], mb[o+int(s.x0):o+int(s.x1)])
			}
		}
	}
}

// keepInkLabels gives back the mask's labels (nb = mb) around the fresh sheet's ink that the
// photo shows (ink and seen both 255): within the ellipse of inkHaloPx around such a pixel,
// as a dilation by OpenCV's elliptic structuring element would reach. Only open's pixels
// can differ.
func keepInkLabels(mb, nb, ink, seen []byte, open []span, w, h int) {
	if len(seen) != w*h {
		return
	}
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*inkHaloPx+1, 2*inkHaloPx+1))
	kb := k.ToBytes()
	k.Close()
	type off struct{ dx, dy int }
	var offs []off
	for j, v := range kb {
		if v != 0 {
			offs = append(offs, off{j%(2*inkHaloPx+1) - inkHaloPx, j/(2*inkHaloPx+1) - inkHaloPx})
		}
	}
	for _, s := range diffSpans(mb, nb, open, w) {
		y := int(s.y)
		for x := int(s.x0); x < int(s.x1); x++ {
			for _, o := range offs {
				xx, yy := x+o.dx, y+o.dy
				if xx < 0 || xx >= w || yy < 0 || yy >= h {
					continue
				}
				if j := yy*w + xx; ink[j] != 0 && seen[j] != 0 {
					nb[y*w+x] = mb[y*w+x]
					break
				}
			}
		}
	}
}

// A table is pale (paleTable) when its median colour's chromaticity (each channel over the
// sum) is within paleChromaL1 (summed over the channels) of the paper's and its brightness is
// at least paleLumRatio of the paper's: then the colour and change tests can take shaded
// paper for the table and the reverse. (Wood, felt and dark cloth are far off on one or the
// other; their masks' errors were 0-4 mm² a photo on six synthetic sets.)
const (
	paleChromaL1 = 0.06
	paleLumRatio = 0.5
)

// paleTable reports whether the table the mask mb shows inside the frame (img BGR, one pixel
// in 4 of each row) looks like the paper it shows (see paleChromaL1); false when the frame
// shows too little table (under 1%) to tell.
func paleTable(img, mb, unknown []byte) bool {
	if len(img) != 3*len(mb) {
		return false
	}
	var ph, th [3][256]int // per channel histograms: paper, table
	np, nt := 0, 0
	for i := 0; i < len(mb); i += 4 {
		if len(unknown) == len(mb) && unknown[i] != 0 {
			continue
		}
		c := &ph
		if mb[i] == 0 {
			c = &th
			nt++
		} else {
			np++
		}
		c[0][img[3*i]]++
		c[1][img[3*i+1]]++
		c[2][img[3*i+2]]++
	}
	if nt*100 < len(mb)/4 || np == 0 {
		return false
	}
	median := func(hist *[256]int, n int) float64 {
		k := 0
		for v, c := range hist {
			if k += c; 2*k > n {
				return float64(v) + 1
			}
		}
		return 256
	}
	var pm, tm [3]float64
	var ps, ts float64
	for k := 0; k < 3; k++ {
		pm[k], tm[k] = median(&ph[k], np), median(&th[k], nt)
		ps += pm[k]
		ts += tm[k]
	}
	d := 0.0
	for k := 0; k < 3; k++ {
		d += math.Abs(pm[k]/ps - tm[k]/ts)
	}
	return d <= paleChromaL1 && ts >= paleLumRatio*ps
}

// edgeInk is the fresh sheet's ink (frame layout, w x h, a copy; nil when it has none of
// that size) but within edgeFrameMM of the frame's edge, where its own edge reads as ink. It
// passes the flood no label on: dark ink beside a tear line is closer to the table's shadow
// than to the paper, and the table would flood a cut letter's strokes and the paper they
// enclose. (The ink and its halo keep the mask's labels: keepInkLabels.)
func edgeInk(fresh *SheetImage, w, h int, ppm float64) []byte {
	ink := freshInk(fresh)
	if len(ink) != w*h {
		return nil
	}
	ink = append([]byte(nil), ink...)
	clearFrameEdge(ink, w, h, int(edgeFrameMM*ppm))
	return ink
}

// clearFrameEdge zeroes b (w x h) within e pixels of the frame's edge.
func clearFrameEdge[T any](b []T, w, h, e int) {
	for y := 0; y < h; y++ {
		if y < e || y >= h-e {
			clear(b[y*w : (y+1)*w])
			continue
		}
		clear(b[y*w : y*w+e])
		clear(b[(y+1)*w-e : (y+1)*w])
	}
}

// edgeRefine re-decides s's mask near its paper/table boundary and the frame's edge by the
// photo's brightness steps (see above), then gives the paper the holes no step bounds
// (fillShadeHoles, shadehole.go). unknown (frame layout, or nil) is left alone. It returns
// the mask's new bytes, or nil when nothing changed.
func edgeRefine(fresh, s *SheetImage) []byte {
	mb, floor := edgeRefineBand(fresh, s)
	s.stepFloor = floor
	if edgeRefineSeen != nil {
		edgeRefineSeen(fresh, s, mb)
	}
	if floor == 0 {
		return mb
	}
	if nb := fillShadeHoles(fresh, s, mb, floor); nb != nil {
		mb = nb
	}
	return mb
}

// edgeRefineSeen (tests only), when set, is given each sheet edgeRefine is asked to refine
// (its mask not yet changed) and what edgeRefine returned.
var edgeRefineSeen func(fresh, s *SheetImage, mb []byte)

// edgeRefineBand is edgeRefine but for fillShadeHoles; floor is the photo's weakest real
// step (stepFloor over the band), 0 when the table is not pale (paleTable) or the
// refinement could not run.
func edgeRefineBand(fresh, s *SheetImage) ([]byte, float64) {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if edgeRefineOff || s.Image.Empty() || s.Image.Cols() != w || s.Image.Rows() != h || s.Image.Type() != gocv.MatTypeCV8UC3 {
		return nil, 0
	}
	ppm := s.PxPerMM
	mv := u8view(s.Mask) // (a copy only for a pale table: the mask's new bytes)
	if len(mv) != w*h {
		mv = s.Mask.ToBytes()
	}
	if !paleTable(u8view(s.Image), mv, s.unknown) {
		return nil, 0
	}
	mb := s.Mask.ToBytes()
	lab := edgeSeeds(s.Mask, mb, s.unknown, w, h, ppm)
	open := spansOf(i8bytes(lab), w, h, 0)
	cost := edgeCost(s.Image, open)
	if len(cost) != w*h {
		return nil, 0
	}
	floor := stepFloor(cost, open, w)
	ink := edgeInk(fresh, w, h, ppm)
	floodLabels(lab, cost, ink, w, h)
	nb := append([]byte(nil), mb...)
	for _, sp := range open {
		for i := int(sp.y)*w + int(sp.x0); i < int(sp.y)*w+int(sp.x1); i++ {
			switch lab[i] {
			case floodPaper:
				nb[i] = 255
			case floodTable:
				nb[i] = 0
			}
		}
	}
	if ink != nil {
		// The flood's ink pixels take the state that dominates the non-ink pixels within a
		// millimetre (as inkDecide, on these pixels only).
		r := int(math.Round(ppm))
		var flip []int
		for _, sp := range open {
			y := int(sp.y)
			for x := int(sp.x0); x < int(sp.x1); x++ {
				i := y*w + x
				if ink[i] == 0 {
					continue
				}
				np, nt := 0, 0
				for yy := max(0, y-r); yy <= min(h-1, y+r); yy++ {
					for xx := max(0, x-r); xx <= min(w-1, x+r); xx++ {
						if j := yy*w + xx; ink[j] == 0 {
							if nb[j] != 0 {
								np++
							} else {
								nt++
							}
						}
					}
				}
				if np+nt > 0 && (np >= nt) != (nb[i] != 0) {
					flip = append(flip, i)
				}
			}
		}
		for _, i := range flip {
			nb[i] ^= 255
		}
	}
	halo := freshInkHalo(fresh)
	keepStronger(mb, nb, cost, open, halo, w, h)
	keepLikeSide(mb, nb, u8view(s.Image), halo, open, w, h, ppm)
	if ink != nil {
		// The fresh sheet's ink that the photo shows, and the halo around it, keep the
		// mask's labels (away from the frame's edge): the letters' states are measured there,
		// and dark ink beside a hole or a tear line looks like the table's shadow (seed 5
		// case-011 mateo-2: the strokes of an "f" and an "h" at a hole's rim went to the
		// table, and a letter was measured removed that the hole had not taken). Ink the
		// photo does not show (a letter on a piece torn away, taken for paper) is no paper.
		keepInkLabels(mb, nb, ink, inkSeen(s), open, w, h)
	}
	if debugDir != "" {
		dbg := make([]byte, 3*w*h)
		for i := range mb {
			dbg[3*i], dbg[3*i+1], dbg[3*i+2] = 255, mb[i], nb[i]
		}
		for _, sp := range open {
			for i := int(sp.y)*w + int(sp.x0); i < int(sp.y)*w+int(sp.x1); i++ {
				dbg[3*i] = 0
			}
		}
		dm, _ := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, dbg)
		gocv.IMWrite(debugDir+"/edgeflood.png", dm)
		dm.Close()
	}
	// The new labels, but no paper where the reference sheet has none.
	ref := refPaper(fresh, image.Pt(w, h), ppm)
	changed := false
	for _, sp := range diffSpans(mb, nb, open, w) {
		for i := int(sp.y)*w + int(sp.x0); i < int(sp.y)*w+int(sp.x1); i++ {
			if ref == nil || ref[i] != 0 {
				mb[i] = nb[i]
				changed = true
			}
		}
	}
	if ref != nil { // (elsewhere nb is mb)
		for i := 0; i < len(ref); i++ {
			k := bytes.IndexByte(ref[i:], 0)
			if k < 0 {
				break
			}
			if i += k; mb[i] != 0 {
				mb[i] = 0
				changed = true
			}
		}
	}
	if !changed {
		return nil, floor
	}
	return mb, floor
}
