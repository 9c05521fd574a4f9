package vision

import (
	"fmt"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// Shade the mask took for a hole.
//
// On a pale desk a patch of shade across the sheet (a hand's or a phone's soft shadow) can
// make its paper as dark as the desk, and the change test's lighting, smooth over 15 mm,
// does not follow a shadow that deepens over a few centimetres: the mask loses the shadow's
// core as a hole inside the paper (held-out seed 9 case-007 chidi-1: 1014 mm²; case-015
// goran-1: 32 mm²; seed 6 case-011 chidi-1..3: 187-422 mm²), which Measure then takes for a
// removed piece touching no edge (holeLooksLikePaper doubts it). edgeRefine cannot help:
// it re-decides only a band around the boundary, and the hole's core keeps its seed.
//
// A hole torn in the sheet is bounded by its tear line all round, and the photo shows a tear
// line as a sharp brightness step (the torn paper's whitened rim, the sheet's shadow on the
// desk seen through the hole); shade is smooth everywhere. So a part of the mask's table
// inside the sheet (closed by shadeCloseMM: ruled lines the mask keeps as paper split a lost
// patch into strips) is taken for paper when neither its boundary (within shadeRingMM on
// either side) nor its inside holds a real step: under shadeStepFrac of the ring's pixels,
// and under a square millimetre of the inside, step by shadeStepK times edgeRefine's
// weakest real step (stepFloor, from the photo's noise over the band it re-decided). The
// fresh sheet's ink and its halo are left out (its strokes are steps in either case), and so
// are steps the fresh sheet has too (shadeFreshRatio: its faint ruling,
// sharper in one photo than in another). A real hole inside a shade patch the mask lost with
// it keeps its tear line inside the part, and the part stays. On the desk cases of eight
// synthetic sets, the holes the truth has removed have 32-98% of their ring on such steps,
// the shade holes at most 0.1% (and nothing inside).
//
// Two more cases, each with the sheet's own writing as evidence:
//   - a part reaching the frame's edge may be paper torn off there, its tear line along the
//     frame's edge zone, which the ring leaves out; it is taken for paper only when the photo
//     also shows the fresh sheet's pattern (writing, ruling) inside it (patternShown): the
//     desk shows none (seed 9 case-011 dana-1: 3450 mm² of shaded ruled paper along the top
//     edge, paper that later photos showed again, refused as paper reappearing);
//   - a hole whose ring is mostly the fresh sheet's ink is paper when the photo shows that
//     ink (inkShownFrac of it): the paper inside a letter's loop (dana-1: 25 mm² inside the
//     "o" of "Swordsmanship", which made the letter cut, and gone for the rest of the game).

const (
	// shadeRingMM: a hole's boundary ring reaches this far on either side of it.
	shadeRingMM = 1.5
	// shadeStepK: a real step here is at least this many times edgeRefine's weakest real
	// step (stepFloor: edgeNoiseK times the photo's median step over the band it re-decided).
	shadeStepK = 2
	// shadeCloseMM: the mask's table is closed by a square of this half-side before its parts are
	// taken (ruled lines and strokes split a patch the mask lost).
	shadeCloseMM = 1.0
	// shadeLoopMM2: a hole this small whose ring is mostly the fresh sheet's ink, shown in
	// the photo, is the paper inside a letter's loop (the steps beside its strokes are no
	// tear line).
	shadeLoopMM2 = 2 * MinPieceMM2
	// shadeFreshPx: a step in the photo is the fresh sheet's own when the fresh sheet has one
	// this close (px: registration and blur).
	shadeFreshPx = 2
	// shadeFreshRatio: that step of the fresh sheet must be at least 1/shadeFreshRatio of
	// the photo's.
	shadeFreshRatio = 4
	// shadeStepFrac: a hole whose ring has real steps on at most this fraction of its pixels
	// is shade.
	shadeStepFrac = 0.05
)

// shadeHolesOff (tests only) turns fillShadeHoles off, to compare masks with and without it.
var shadeHolesOff bool

// fillShadeHoles returns the mask mb (frame layout, 255 paper; s's mask when nil) with the
// holes that no real step bounds given to the paper (see above), or nil when none is. It is
// for a pale table only (paleTable; edgeRefine asks): elsewhere the colour tests tell shade
// from the table. What it fills is said in s's notes.
func fillShadeHoles(fresh, s *SheetImage, mb []byte, floor float64) []byte {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if shadeHolesOff || s.Image.Empty() || s.Image.Cols() != w || s.Image.Rows() != h || s.Image.Type() != gocv.MatTypeCV8UC3 {
		return nil
	}
	cur := mb
	if cur == nil {
		cur = u8view(s.Mask)
		if len(cur) != w*h {
			cur = s.Mask.ToBytes()
		}
	}
	ppm := s.PxPerMM
	// The mask's table, closed by shadeCloseMM: the fresh sheet's ruling and writing, which
	// the mask keeps as paper where the paper around them is (inkDecide), splits a lost patch
	// into strips between the lines.
	cm := newMask(w, h, cur)
	gocv.BitwiseNot(cm, &cm)
	cr := 2*int(math.Round(shadeCloseMM*ppm)) + 1
	ck := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(cr, cr)) // (a square: separable, and fast)
	gocv.MorphologyEx(cm, &cm, gocv.MorphClose, ck)
	ck.Close()
	closed := cm.ToBytes()
	cm.Close()
	tsp := spansOf(closed, w, h, 255)
	part, n := spanParts(tsp, nil)
	e := int(edgeFrameMM * ppm)
	box := make([]image.Rectangle, n)
	atEdge := make([]bool, n) // touches the frame's edge
	unknown := make([]bool, n)
	for k, sp := range tsp {
		p := part[k]
		r := image.Rect(int(sp.x0), int(sp.y), int(sp.x1), int(sp.y)+1)
		box[p] = box[p].Union(r)
		if int(sp.x0) < e || int(sp.x1) > w-e || int(sp.y) < e || int(sp.y) >= h-e {
			atEdge[p] = true
		}
		if len(s.unknown) == w*h && !unknown[p] {
			for _, v := range s.unknown[int(sp.y)*w+int(sp.x0) : int(sp.y)*w+int(sp.x1)] {
				if v != 0 {
					unknown[p] = true
					break
				}
			}
		}
	}
	byPart := make([][]span, n)
	for k, sp := range tsp {
		if !unknown[part[k]] {
			byPart[part[k]] = append(byPart[part[k]], sp)
		}
	}
	r := int(math.Round(shadeRingMM * ppm))
	halo := freshInkHalo(fresh)
	if len(halo) != w*h {
		halo = make([]byte, w*h)
	}
	ref := refPaper(fresh, image.Pt(w, h), ppm)
	ink, seen := freshInk(fresh), inkSeen(s)
	if len(ink) != w*h || len(seen) != w*h {
		ink, seen = make([]byte, w*h), make([]byte, w*h)
	}
	var nb []byte
	filled := 0
	// The step costs, reused from part to part (edgeCost writes the pixels asked for and those
	// beside them; each part's are cleared after it).
	cost, fcost := make([]uint16, w*h), []uint16(nil)
	freshOK := fresh.Image.Cols() == w && fresh.Image.Rows() == h && fresh.Image.Type() == gocv.MatTypeCV8UC3
	clearNear := func(c []uint16, need []span) {
		for _, sp := range need {
			x0, x1 := max(int(sp.x0)-1, 0), min(int(sp.x1)+1, w)
			for y := max(int(sp.y)-1, 0); y <= min(int(sp.y)+1, h-1); y++ {
				clear(c[y*w+x0 : y*w+x1])
			}
		}
	}
	for p, sps := range byPart {
		if len(sps) == 0 {
			continue
		}
		ringSp, inSp := ringAndInside(sps, box[p], r, w, h)
		var fDone []span                      // the runs the fresh sheet's costs are known on
		freshOn := func(sp []span) []uint16 { // the fresh sheet's own steps (its faint ruling, ink the halo misses)
			if !freshOK {
				return nil
			}
			if fcost == nil {
				fcost = make([]uint16, w*h)
			}
			edgeCostInto(fcost, fresh.Image, sp)
			fDone = append(fDone, sp...)
			return fcost
		}
		// A step the fresh sheet has within shadeFreshPx is the sheet's own drawing, not a
		// tear line: such pixels count as no step.
		freshMax := func(i int) uint16 {
			if fcost == nil {
				return 0
			}
			x, y := i%w, i/w
			var m uint16
			for yy := max(y-shadeFreshPx, 0); yy <= min(y+shadeFreshPx, h-1); yy++ {
				for _, v := range fcost[yy*w+max(x-shadeFreshPx, 0) : yy*w+min(x+shadeFreshPx, w-1)+1] {
					m = max(m, v)
				}
			}
			return m
		}
		done := func() {
			clearNear(cost, ringSp)
			clearNear(cost, inSp)
			if fDone != nil {
				clearNear(fcost, fDone)
			}
		}
		inFrame := func(x, y int) bool { return x >= e && x < w-e && y >= e && y < h-e } // away from the sheet's own edge: a step on paper, none on the table
		var ringAt, insideAt []int
		nring, nink, nshown := 0, 0, 0
		for _, sp := range ringSp {
			y := int(sp.y)
			for x := int(sp.x0); x < int(sp.x1); x++ {
				if !inFrame(x, y) {
					continue
				}
				i := y*w + x
				nring++
				if halo[i] != 0 {
					if ink[i] != 0 {
						nink++
						if seen[i] != 0 {
							nshown++
						}
					}
					continue
				}
				ringAt = append(ringAt, i)
			}
		}
		inkRing := 2*len(ringAt) < nring
		if inkRing && (atEdge[p] || float64(nink) < inkShownMinMM2*ppm*ppm || float64(nshown) < inkShownFrac*float64(nink)) {
			// The ring mostly the fresh sheet's ink: too little to tell, unless the photo
			// shows that ink (the paper inside a letter's loop the mask lost: seed 9
			// case-011 dana-1, 25 mm² in the "o" of "Swordsmanship", measured cut, gone at
			// the next tears: a letter fewer for the rest of the game).
			continue
		}
		partPx := 0
		for _, sp := range sps {
			partPx += int(sp.x1 - sp.x0)
		}
		loop := inkRing && float64(partPx) <= shadeLoopMM2*ppm*ppm // a letter's loop: the ink shown is the evidence, its strokes' edges no tear line
		if len(ringAt) == 0 && !loop {
			continue
		}
		edgeCostInto(cost, s.Image, ringSp)
		step := uint16(math.Min(edgeCostMax, math.Ceil(shadeStepK*floor)))
		// A step where the fresh sheet has one a quarter as strong (shadeFreshRatio) is the
		// sheet's own pattern (faint ruling is sharper in one photo than another), no
		// evidence of a tear line.
		strong := func(i int) bool {
			c := cost[i]
			return c >= step && int(freshMax(i))*shadeFreshRatio < int(c)
		}
		if slices.ContainsFunc(ringAt, func(i int) bool { return cost[i] >= step }) {
			freshOn(ringSp)
		}
		sr := 0
		for _, i := range ringAt {
			if strong(i) {
				sr++
			}
		}
		si := 0
		if float64(sr) <= shadeStepFrac*float64(len(ringAt)) {
			// The inside, whole.
			edgeCostInto(cost, s.Image, inSp)
			for _, sp := range inSp {
				y := int(sp.y)
				for x := int(sp.x0); x < int(sp.x1); x++ {
					if i := y*w + x; inFrame(x, y) && halo[i] == 0 {
						insideAt = append(insideAt, i)
					}
				}
			}
			if atEdge[p] || slices.ContainsFunc(insideAt, func(i int) bool { return cost[i] >= step }) {
				freshOn(inSp)
			}
			for _, i := range insideAt {
				if strong(i) {
					si++
				}
			}
		}
		// A part reaching the frame's edge may be paper torn off there, its tear line
		// elsewhere: only one that still shows the fresh sheet's writing or ruling is taken
		// for paper.
		keep := !loop && (float64(sr) > shadeStepFrac*float64(len(ringAt)) || float64(si) >= ppm*ppm) ||
			(atEdge[p] && (fcost == nil || !patternShown(cost, fcost, insideAt, w, h, ppm)))
		done()
		if keep {
			continue
		}
		if nb == nil {
			nb = append([]byte(nil), cur...)
		}
		area := 0
		for _, sp := range sps {
			o := int(sp.y) * w
			for x := int(sp.x0); x < int(sp.x1); x++ {
				if cur[o+x] == 0 && (ref == nil || ref[o+x] != 0) { // no paper where the reference sheet has none
					nb[o+x] = 255
					area++
				}
			}
		}
		if area == 0 {
			continue
		}
		filled++
		c := box[p].Min.Add(box[p].Max).Div(2)
		where, why := "touching no edge of the sheet", "no brightness step bounds it, as a tear line would"
		switch {
		case inkRing:
			why = "the sheet's writing around it, which the photo shows, bounds it"
		case atEdge[p]:
			where, why = "reaching the sheet's edge", "no brightness step bounds it inside the sheet, and the sheet's writing or ruling shows there"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm that the paper mask left out of the paper, %s, taken for shaded paper: %s", float64(area)/(ppm*ppm), float64(c.X)/ppm, float64(c.Y)/ppm, where, why))
	}
	if filled == 0 {
		return nil
	}
	return nb
}

// patternShown reports whether the photo shows the fresh sheet's own pattern (its writing,
// its ruling, however faint) at the pixels at (frame indices; w x h): where the fresh sheet
// has a step (fcost at least edgeNoiseK times its median there), the photo has one within
// shadeFreshPx (cost at least edgeNoiseK times its median) at inkShownFrac of them or more,
// and at inkShownRatio times the rate at which it has one away from the fresh sheet's steps
// (a grainy desk shows steps everywhere alike); each side needs inkShownMinMM2 of pixels.
// The desk seen where paper was torn off shows none of the sheet's pattern.
func patternShown(cost, fcost []uint16, at []int, w, h int, ppm float64) bool {
	if len(at) == 0 {
		return false
	}
	med := func(c []uint16) uint16 {
		var hist [edgeCostMax + 1]int
		for _, i := range at {
			hist[c[i]]++
		}
		return max(histMedian16(&hist, len(at)), 1)
	}
	fth, pth := uint16(edgeNoiseK*float64(med(fcost))), uint16(edgeNoiseK*float64(med(cost)))
	near := func(c []uint16, i int, th uint16) bool {
		x, y := i%w, i/w
		for yy := max(y-shadeFreshPx, 0); yy <= min(y+shadeFreshPx, h-1); yy++ {
			for _, v := range c[yy*w+max(x-shadeFreshPx, 0) : yy*w+min(x+shadeFreshPx, w-1)+1] {
				if v >= th {
					return true
				}
			}
		}
		return false
	}
	nF, sF, nC, sC := 0, 0, 0, 0
	for _, i := range at {
		switch {
		case fcost[i] >= fth:
			nF++
			if near(cost, i, pth) {
				sF++
			}
		case !near(fcost, i, fth):
			nC++
			if near(cost, i, pth) {
				sC++
			}
		}
	}
	minPx := int(inkShownMinMM2 * ppm * ppm)
	if nF < minPx || nC < minPx {
		return false
	}
	f, c := float64(sF)/float64(nF), float64(sC)/float64(nC)
	return f >= inkShownFrac && f >= inkShownRatio*c
}

// histMedian16 is the median (the value at index n/2 in sorted order) of n values counted in
// hist.
func histMedian16(hist *[edgeCostMax + 1]int, n int) uint16 {
	k := 0
	for v, c := range hist {
		if k += c; k > n/2 {
			return uint16(v)
		}
	}
	return edgeCostMax
}

// ringAndInside returns, as runs (frame layout, w x h), the ring of the part sps (inside box)
// within r px on either side of its boundary (a square dilation less a square erosion), and
// the rest of the part.
func ringAndInside(sps []span, box image.Rectangle, r, w, h int) (ring, inside []span) {
	win := box.Inset(-r - 1).Intersect(image.Rect(0, 0, w, h))
	ww, wh := win.Dx(), win.Dy()
	pm := gocv.NewMatWithSize(wh, ww, gocv.MatTypeCV8UC1)
	defer pm.Close()
	pb := u8view(pm)
	for _, sp := range sps {
		o := (int(sp.y)-win.Min.Y)*ww - win.Min.X
		for x := int(sp.x0); x < int(sp.x1); x++ {
			pb[o+x] = 255
		}
	}
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(2*r+1, 2*r+1))
	defer k.Close()
	dil, ero := gocv.NewMat(), gocv.NewMat()
	defer dil.Close()
	defer ero.Close()
	gocv.Dilate(pm, &dil, k)
	gocv.Erode(pm, &ero, k)
	db, eb := u8view(dil), u8view(ero)
	runs := func(keep func(l int) bool) []span {
		var out []span
		for y := 0; y < wh; y++ {
			for x := 0; x < ww; {
				if !keep(y*ww + x) {
					x++
					continue
				}
				x0 := x
				for x < ww && keep(y*ww+x) {
					x++
				}
				out = append(out, span{int32(y + win.Min.Y), int32(x0 + win.Min.X), int32(x + win.Min.X)})
			}
		}
		return out
	}
	return runs(func(l int) bool { return db[l] != 0 && eb[l] == 0 }), runs(func(l int) bool { return eb[l] != 0 })
}

// tearLineUnseen reports whether the removed piece pm (frame layout, 255; inside box),
// reaching the sheet's edge, has no real step along its boundary inside the sheet in s's
// photo (the test of fillShadeHoles' ring, the zone within edgeFrameMM of the frame's edge
// and ink left out: under shadeStepFrac of the ring's pixels on a step). Only for a sheet
// whose mask edgeRefine re-decided on a pale table (s.stepFloor): there shade the mask
// missed along the sheet's edge is measured as a piece, as a part of the mask's table
// reaching the frame's edge that fillShadeHoles cannot give back without the sheet's
// writing on it (seed 2 case-007 fatima-3: a shaded strip 8 mm deep along the right side,
// ruled no_full_letter for certain on an untouched sheet). ink is the fresh sheet's ink zone;
// bm the sheet's mask before the tear: the piece's boundary with paper gone before (table on
// both sides) is left out too.
func tearLineUnseen(s *SheetImage, pm, bm, ink []byte, box image.Rectangle) bool {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if s.stepFloor == 0 || len(pm) != w*h || s.Image.Type() != gocv.MatTypeCV8UC3 || s.Image.Cols() != w || s.Image.Rows() != h {
		return false
	}
	ppm := s.PxPerMM
	var sps []span
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; {
			if pm[y*w+x] == 0 {
				x++
				continue
			}
			x0 := x
			for x < box.Max.X && pm[y*w+x] != 0 {
				x++
			}
			sps = append(sps, span{int32(y), int32(x0), int32(x)})
		}
	}
	if len(sps) == 0 {
		return false
	}
	e := int(edgeFrameMM * ppm)
	ringSp, _ := ringAndInside(sps, box, int(math.Round(shadeRingMM*ppm)), w, h)
	cost := edgeCostInto(make([]uint16, w*h), s.Image, ringSp)
	step := uint16(math.Min(edgeCostMax, math.Ceil(shadeStepK*s.stepFloor)))
	r := int(math.Round(shadeRingMM * ppm))
	// Paper gone before (not the piece's) within r of each pixel of the window around it.
	win := box.Inset(-2*r - 1).Intersect(image.Rect(0, 0, w, h))
	gm := gocv.NewMatWithSize(win.Dy(), win.Dx(), gocv.MatTypeCV8UC1)
	defer gm.Close()
	if gb := u8view(gm); len(bm) == w*h {
		for y := win.Min.Y; y < win.Max.Y; y++ {
			for x := win.Min.X; x < win.Max.X; x++ {
				if j := y*w + x; bm[j] == 0 && pm[j] == 0 {
					gb[(y-win.Min.Y)*win.Dx()+x-win.Min.X] = 255
				}
			}
		}
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(2*r+1, 2*r+1))
		gocv.Dilate(gm, &gm, k)
		k.Close()
	}
	gb := u8view(gm)
	gone := func(x, y int) bool {
		return image.Pt(x, y).In(win) && gb[(y-win.Min.Y)*win.Dx()+x-win.Min.X] != 0
	}
	n, sr := 0, 0
	for _, sp := range ringSp {
		y := int(sp.y)
		for x := int(sp.x0); x < int(sp.x1); x++ {
			i := y*w + x
			if x < e || x >= w-e || y < e || y >= h-e || (len(ink) == w*h && ink[i] != 0) || gone(x, y) {
				continue
			}
			n++
			if cost[i] >= step {
				sr++
			}
		}
	}
	return float64(n) >= ppm*ppm*MinPieceMM2/4 && float64(sr) <= shadeStepFrac*float64(n)
}
