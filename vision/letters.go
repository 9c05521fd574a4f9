package vision

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Letter states.
//
// A letter's ink is the pixels inside its outline (from ocr/) clearly darker than the paper
// around it on the fresh sheet (registered sheets carry the fresh sheet's grey image). OCR
// outlines of joined writing overlap their neighbours: a pixel inside several outlines
// belongs to the letter whose outline centre is nearest (a Voronoi split), so a neighbour's
// stroke crossing the tear does not reach into this letter. Each ink pixel is on the
// before-sheet or not, and on the after-sheet or not. The masks' tear line is not trusted
// near ink (ghost ink: torn-off ink matching a dark table reads "paper"): fillInkZone
// continues it across each letter's ink zone from the paper around the ink. An ink pixel is
// uncertain when the continued tear line passes within the uncertainty radius
// (letterUncertainMM plus the registration residual), or when the mask and the continued
// line disagree on whether this tear removed it (holes at the ink in both masks, where
// nothing was torn, are no doubt of this tear's). Only ink decides: a letter is gone if some
// of its ink was already off the before-sheet, cut if both sides hold certain ink, on_sheet
// or removed if the ink that may lie on the other side (certain there, or uncertain) stays
// under the noise share letterSideFrac, on_sheet_or_cut or removed_or_cut if one side holds
// certain ink and the rest is uncertain, and ambiguous otherwise.
// An outline holding no ink at all is on_sheet when it lies wholly on the after-sheet away
// from the tear, and unknown otherwise (nothing to measure).

const (
	letterMinPx = 2 // ink pixels needed to count a side (1/8 mm² at 4 px/mm)
	// letterSideFrac is the share of a letter's ink a side needs to count: a few stray
	// pixels of mask noise do not cut a letter.
	letterSideFrac = 0.04
	// letterUncertainMM is the mask's own uncertainty at a tear line, before the
	// registration residual is added.
	letterUncertainMM = 0.5
)

// letterSeenFrac: ink the masks keep on the after-sheet counts as certainly there only when
// the after photo shows at least this share of it as ink (inkSeen). A letter on paper torn
// away whose ink matches the table seen there can stay "paper" in both masks with the table
// between its strokes (a pale desk passing the change test as shaded paper): on an independent
// synthetic set (seed 3 case-003 emil-4) the removed letters "Hops" of Hopscotch were measured
// on the sheet, one of them for certain, inside an 8 x 30 mm strip of desk called paper. A
// letter on the sheet shows nearly all of its ink; such a letter shows almost none.
const letterSeenFrac = 0.5

// inkZoneMM is how far around the fresh sheet's ink the paper masks are not trusted. The
// change test predicts each pixel from the fresh sheet's 5x5 neighbourhood (blurred 3x3), so
// within 3 px of ink the prediction spans ink to paper, and the ink of a piece torn away
// matches a dark table: it stays "paper" (ghost ink) and a letter taken whole looks cut.
const inkZoneMM = 0.75

// fillInkZone returns copies of the sheet-frame masks (w x h bytes, non-zero = paper) in which,
// inside each of the rectangles (pixels; the letters' boxes), every pixel within inkZoneMM of
// the fresh sheet's ink (g: its grey image, ppm pixels per millimetre; ink is darker than the
// mean of a 6 mm window by 15 levels) takes the value the mask's boundary outside that zone,
// continued across it, gives (interpolateZone). Outside the rectangles the copies equal the
// masks.
func fillInkZone(g []byte, w, h int, ppm float64, rects []image.Rectangle, masks ...[]byte) [][]byte {
	out := make([][]byte, len(masks))
	for i, m := range masks {
		out[i] = append([]byte(nil), m...)
	}
	if len(g) != w*h || w == 0 || h == 0 {
		return out
	}
	full, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, g)
	if err != nil {
		return out
	}
	defer full.Close()
	r := int(math.Round(inkZoneMM * ppm))
	kernel := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*r+1, 2*r+1))
	defer kernel.Close()
	pad := int(math.Ceil(3 * ppm)) // the window's own ink test needs paper around the letter
	for _, rc := range rects {
		rc = image.Rect(rc.Min.X-pad, rc.Min.Y-pad, rc.Max.X+pad, rc.Max.Y+pad).Intersect(image.Rect(0, 0, w, h))
		if rc.Dx() < 3 || rc.Dy() < 3 {
			continue
		}
		fillInkZoneRect(full, rc, ppm, kernel, masks, out)
	}
	return out
}

func fillInkZoneRect(full gocv.Mat, rc image.Rectangle, ppm float64, kernel gocv.Mat, masks, out [][]byte) {
	w := full.Cols()
	roi := full.Region(rc)
	defer roi.Close()
	zone := gocv.NewMat()
	defer zone.Close()
	gocv.AdaptiveThreshold(roi, &zone, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*ppm)|1, 15)
	gocv.Dilate(zone, &zone, kernel)
	zb := zone.ToBytes()
	for k, m := range masks {
		interpolateZone(m, out[k], zb, rc, w)
	}
}

// interpolateZone fills the zone pixels (zb non-zero, rc-sized) of out from mask m (both
// full-frame, w wide) by continuing m's boundary across the zone: outside the zone each
// pixel holds its signed distance to the nearest pixel of the other value outside the zone
// (positive on paper), inside it the harmonic interpolation of those values (Laplace's
// equation, relaxed); paper where it is positive. Where the nearest pixel outside the zone
// puts a tear line crossing a letter's ink wherever the zone is thinnest, this continues the
// line seen on either side of the ink (TestInterpolateZoneStraightTear). Measured inside the
// letter boxes of the project's synthetic set (true remaining paper from the generator's
// pieces, pixels within 5 mm of the true tear line): 5383 ink pixels of the raw after-mask on
// the wrong side, 8763 with the nearest pixel outside the zone, 5831 with this; p90 of their
// distance to the true line 1.95, 1.65 and 1.60 mm.
func interpolateZone(m, out []byte, zb []byte, rc image.Rectangle, w int) {
	cw, chh := rc.Dx(), rc.Dy()
	n := cw * chh
	full := func(i int) int { return (rc.Min.Y+i/cw)*w + rc.Min.X + i%cw }
	var nP, nN int
	for i := 0; i < n; i++ {
		if zb[i] != 0 {
			continue
		}
		if m[full(i)] != 0 {
			nP++
		} else {
			nN++
		}
	}
	if nP == 0 || nN == 0 {
		v := byte(0)
		if nP > 0 {
			v = 255
		}
		for i := 0; i < n; i++ {
			if zb[i] != 0 {
				out[full(i)] = v
			}
		}
		return
	}
	// Distances to the nearest non-zone paper pixel (toP) and non-paper pixel (toN).
	srcP, srcN := make([]byte, n), make([]byte, n)
	for i := 0; i < n; i++ {
		srcP[i], srcN[i] = 255, 255
		if zb[i] == 0 {
			if m[full(i)] != 0 {
				srcP[i] = 0
			} else {
				srcN[i] = 0
			}
		}
	}
	dist := func(src []byte) []float32 {
		sm, err := gocv.NewMatFromBytes(chh, cw, gocv.MatTypeCV8UC1, src)
		if err != nil {
			return nil
		}
		defer sm.Close()
		d, l := gocv.NewMat(), gocv.NewMat()
		defer d.Close()
		defer l.Close()
		gocv.DistanceTransform(sm, &d, &l, gocv.DistL2, gocv.DistanceTransformMasks(5), gocv.DistanceTransformLabelTypes(0))
		f, err := d.DataPtrFloat32()
		if err != nil {
			return nil
		}
		return append([]float32(nil), f...)
	}
	toP, toN := dist(srcP), dist(srcN)
	if len(toP) != n || len(toN) != n {
		return
	}
	s := make([]float32, n)
	var zone []int
	for i := 0; i < n; i++ {
		switch {
		case zb[i] != 0:
			zone = append(zone, i)
			s[i] = (toN[i] - toP[i]) / 2 // a start: positive nearer paper
		case m[full(i)] != 0:
			s[i] = toN[i]
		default:
			s[i] = -toP[i]
		}
	}
	const omega = 1.8
	for it := 0; it < 1000; it++ {
		var change float32
		for _, i := range zone {
			x, y := i%cw, i/cw
			var sum float32
			k := 0
			if x > 0 {
				sum += s[i-1]
				k++
			}
			if x < cw-1 {
				sum += s[i+1]
				k++
			}
			if y > 0 {
				sum += s[i-cw]
				k++
			}
			if y < chh-1 {
				sum += s[i+cw]
				k++
			}
			d := omega * (sum/float32(k) - s[i])
			s[i] += d
			if d < 0 {
				d = -d
			}
			change = max(change, d)
		}
		if change < 1e-3 {
			break
		}
	}
	for _, i := range zone {
		v := byte(0)
		if s[i] > 0 {
			v = 255
		}
		out[full(i)] = v
	}
}

// letterPoly is one located letter's outline in pixels, for the Voronoi split.
type letterPoly struct {
	poly   []pt
	centre pt
	box    image.Rectangle
}

func letterStates(before *SheetImage, bm, am, removed, seen []byte, w, h int, layouts []judge.SkillLayout, resid float64) []judge.SkillLetters {
	if len(layouts) == 0 {
		return nil
	}
	ppm := before.PxPerMM
	g := before.inkGray
	if len(g) != w*h {
		gray := gocv.NewMat()
		gocv.CvtColor(before.Image, &gray, gocv.ColorBGRToGray)
		g = gray.ToBytes()
		gray.Close()
	}
	rad := int(math.Ceil((letterUncertainMM + resid) * ppm))
	polys := make([][]letterPoly, len(layouts))
	var all []*letterPoly
	for si, sk := range layouts {
		if sk.Located == 0 {
			continue
		}
		polys[si] = make([]letterPoly, len(sk.Letters))
		for li, le := range sk.Letters {
			lp := &polys[si][li]
			if len(le.Outline) < 3 {
				continue
			}
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, p := range le.Outline {
				q := mmToPx(pt{p.X, p.Y}, ppm)
				lp.poly = append(lp.poly, q)
				x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
				x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
			}
			lp.centre = pt{(x0 + x1) / 2, (y0 + y1) / 2}
			lp.box = image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1)
			all = append(all, lp)
		}
	}
	var boxes []image.Rectangle
	for _, lp := range all {
		boxes = append(boxes, lp.box)
	}
	filled := fillInkZone(g, w, h, ppm, boxes, bm, am)
	out := make([]judge.SkillLetters, len(layouts))
	for si, sk := range layouts {
		out[si].Name = sk.Name
		if sk.Located == 0 || len(sk.Letters) == 0 {
			continue
		}
		out[si].States = make([]judge.LetterState, len(sk.Letters))
		for li := range sk.Letters {
			self := &polys[si][li]
			var others []*letterPoly
			for _, o := range all {
				if o != self && o.box.Overlaps(self.box) {
					others = append(others, o)
				}
			}
			out[si].States[li] = letterState(self, others, g, bm, am, filled[0], filled[1], seen, w, h, ppm, rad)
		}
		splitDoubt(out[si].States, polys[si], letterSplitGapMM*ppm)
		fragmentDoubt(out[si].States, polys[si], bm, am, removed, w, h)
	}
	return out
}

// letterFragmentFrac: an outline whose extent (its largest vertex-to-vertex distance) is
// under this fraction of the median extent of its skill's outlines is a fragment of a letter
// (every letter and digit is at least about as tall as the word's lowercase letters). ocr/
// can outline the dot of an "i" alone and give its stem to the next letter (seen on an
// independent synthetic set: the stem cut, the dot removed, the "i" called removed whole).
const letterFragmentFrac = 1.0 / 3

// fragmentDoubt turns the state of a letter whose outline is a fragment (letterFragmentFrac)
// into a doubt when the rest of the letter, wherever within the median extent of its skill's
// letters of the fragment it lies, may be on the other side of the tear: removed becomes
// removed_or_cut when paper within that reach is still on the sheet; on_sheet becomes
// on_sheet_or_cut when a removed piece (removed: the pieces' mask) comes within that reach.
// states is changed in place.
func fragmentDoubt(states []judge.LetterState, polys []letterPoly, bm, am, removed []byte, w, h int) {
	var ext []float64
	for _, lp := range polys {
		if len(lp.poly) >= 3 {
			ext = append(ext, polyExtent(lp.poly))
		}
	}
	if len(ext) < 3 {
		return
	}
	sort.Float64s(ext)
	med := ext[len(ext)/2]
	for li, st := range states {
		lp := polys[li]
		if len(lp.poly) < 3 || polyExtent(lp.poly) >= letterFragmentFrac*med {
			continue
		}
		switch st {
		case judge.LetterRemoved:
			if anyWithin(lp.centre, med, w, h, func(j int) bool { return bm[j] != 0 && am[j] != 0 }) {
				states[li] = judge.LetterRemovedOrCut
			}
		case judge.LetterOnSheet:
			if anyWithin(lp.centre, med, w, h, func(j int) bool { return removed[j] != 0 }) {
				states[li] = judge.LetterOnSheetOrCut
			}
		}
	}
}

// polyExtent is the largest distance between two vertices of p.
func polyExtent(p []pt) float64 {
	e := 0.0
	for i := range p {
		for j := i + 1; j < len(p); j++ {
			e = math.Max(e, dist(p[i], p[j]))
		}
	}
	return e
}

// anyWithin reports whether some pixel within r (px) of c satisfies f (f gets y*w+x).
func anyWithin(c pt, r float64, w, h int, f func(int) bool) bool {
	r2 := r * r
	for y := max(0, int(math.Floor(c.Y-r))); y <= min(h-1, int(math.Ceil(c.Y+r))); y++ {
		for x := max(0, int(math.Floor(c.X-r))); x <= min(w-1, int(math.Ceil(c.X+r))); x++ {
			dx, dy := float64(x)-c.X, float64(y)-c.Y
			if dx*dx+dy*dy <= r2 && f(y*w+x) {
				return true
			}
		}
	}
	return false
}

// letterSplitGapMM: two neighbouring letters whose outlines come this close (or overlap)
// share a boundary that ocr/ had to place by dividing the word's ink.
const letterSplitGapMM = 1.0

// splitDoubt makes a letter measured removed "removed or cut" when its neighbour in the word is cut
// and their outlines touch (within gap px). ocr/ divides joined writing into letters along
// the baseline and can misplace the boundary by a millimetre or more; the cut then may lie
// in this letter rather than its neighbour, so "removed whole" is too close to call; it is not
// left either way. (Seen on
// the synthetic set: a "D" whose bowl fell into the next letter's outline was called
// removed while the tear cut it.) states is changed in place; the decision uses the states
// as measured, so doubts do not spread along the word.
func splitDoubt(states []judge.LetterState, polys []letterPoly, gap float64) {
	measured := append([]judge.LetterState(nil), states...)
	for i, st := range measured {
		if st != judge.LetterRemoved {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(measured) || measured[j] != judge.LetterCut {
				continue
			}
			if len(polys[i].poly) >= 3 && len(polys[j].poly) >= 3 && polyGap(polys[i].poly, polys[j].poly) <= gap {
				states[i] = judge.LetterRemovedOrCut
			}
		}
	}
}

// polyGap is the distance between two polygons' outlines, 0 when a vertex of one lies
// inside the other.
func polyGap(a, b []pt) float64 {
	d := math.Inf(1)
	for _, pair := range [2][2][]pt{{a, b}, {b, a}} {
		for _, v := range pair[0] {
			if pointInPoly(v, pair[1]) {
				return 0
			}
			for k := range pair[1] {
				d = math.Min(d, segDist(v, pair[1][k], pair[1][(k+1)%len(pair[1])]))
			}
		}
	}
	return d
}

// letterState decides one letter from its ink's before- and after-states (bm, am: the paper
// masks; bmF, amF: the same with the ink zone filled from its surroundings, fillInkZone).
// An ink pixel whose mask and filled mask disagree is uncertain: either its measured state is
// ghost ink of a torn-away piece on a dark table, or the tear passes through the ink zone
// near it, and the photo cannot tell which.
func letterState(lp *letterPoly, others []*letterPoly, g, bm, am, bmF, amF, seen []byte, w, h int, ppm float64, rad int) judge.LetterState {
	if len(lp.poly) < 3 {
		return judge.LetterUnknown
	}
	bx0, by0, bx1, by1 := lp.box.Min.X, lp.box.Min.Y, lp.box.Max.X-1, lp.box.Max.Y-1
	if bx1 < 0 || by1 < 0 || bx0 >= w || by0 >= h {
		return judge.LetterUnknown
	}
	// Paper level around the letter (on the fresh sheet's grey image: all of it was paper).
	pad := int(2 * ppm)
	var paper []int
	for y := max(0, by0-pad); y <= min(h-1, by1+pad); y++ {
		for x := max(0, bx0-pad); x <= min(w-1, bx1+pad); x++ {
			paper = append(paper, int(g[y*w+x]))
		}
	}
	var inside, ink []int
	for y := max(0, by0); y <= min(h-1, by1); y++ {
		for x := max(0, bx0); x <= min(w-1, bx1); x++ {
			p := pt{float64(x), float64(y)}
			if !pointInPoly(p, lp.poly) {
				continue
			}
			// Voronoi split of overlapping outlines: the pixel is a neighbour's when it lies
			// in the neighbour's outline and nearer the neighbour's centre.
			d := dist(p, lp.centre)
			mine := true
			for _, o := range others {
				if o.box.Overlaps(image.Rect(x, y, x+1, y+1)) && dist(p, o.centre) < d && pointInPoly(p, o.poly) {
					mine = false
					break
				}
			}
			if mine {
				inside = append(inside, y*w+x)
			}
		}
	}
	if len(inside) == 0 {
		return judge.LetterUnknown
	}
	sort.Ints(paper)
	level := paper[len(paper)*3/4] // the paper is the bright majority
	thr := level - max(25, level/5)
	for _, i := range inside {
		if int(g[i]) < thr {
			ink = append(ink, i)
		}
	}
	if len(ink) < letterMinPx {
		// No ink to measure (pale pencil): the outline stands in, to say nothing happened to
		// it, or that all of it went with paper torn off well away from the tear (a millimetre
		// beyond the usual reach, since no ink confirms where the letter lies). Before, such a
		// letter stayed "could not be measured" for good, counted as left: held-out seed 9
		// case-005, "Singing" 3? to the end, its S, i, i 10 to 20 mm inside the removed piece
		// (a tester).
		on, off := 0, 0
		for _, i := range inside {
			switch {
			case bm[i] == 0:
				return judge.LetterUnknown
			case am[i] != 0 && !near(i, bm, am, w, h, rad, false):
				on++
			case am[i] == 0 && !near(i, bm, am, w, h, rad+int(math.Ceil(ppm)), false):
				off++
			default:
				return judge.LetterUnknown
			}
		}
		if off > 0 {
			if on > 0 {
				return judge.LetterUnknown
			}
			return judge.LetterRemoved
		}
		return judge.LetterOnSheet
	}
	var onC, onU, remC, remU, goneC, onSeen int
	for _, i := range ink {
		ghostBefore := bm[i] != bmF[i]
		if bm[i] == 0 {
			if !ghostBefore && !near(i, bm, am, w, h, rad, true) {
				goneC++
			}
			continue
		}
		// Uncertain: the tear (as continued across the ink zone) passes within rad, or the
		// mask and its filled copy disagree on whether this tear removed the pixel. A
		// disagreement on whether it was paper before only (holes in both masks at the ink,
		// nothing torn there) is not this tear's doubt.
		unc := (bm[i] != 0 && am[i] == 0) != (bmF[i] != 0 && amF[i] == 0) || near(i, bmF, amF, w, h, rad, false)
		switch {
		case am[i] != 0 && unc:
			onU++
		case am[i] != 0:
			onC++
			if len(seen) == w*h && seen[i] != 0 {
				onSeen++
			}
		case unc:
			remU++
		default:
			remC++
		}
	}
	k := max(letterMinPx, int(letterSideFrac*float64(len(ink))))
	if len(seen) == w*h && onC >= k && float64(onSeen) < letterSeenFrac*float64(onC) {
		// The after photo does not show the ink the masks keep on the sheet: ghost ink (see
		// letterSeenFrac). Whether it is there cannot be told.
		onU += onC
		onC = 0
	}
	// Uncertain ink may lie on either side: a side is clear when the certain ink on the
	// other side and all uncertain ink together stay under k.
	switch {
	case goneC >= k:
		return judge.LetterGone
	case remC >= k && onC >= k:
		return judge.LetterCut
	case remC+remU+onU < k:
		return judge.LetterOnSheet
	case onC+onU+remU < k:
		return judge.LetterRemoved
	case onC >= k:
		return judge.LetterOnSheetOrCut // not removed whole, whatever the doubtful ink does
	case remC >= k:
		return judge.LetterRemovedOrCut // not left, whatever the doubtful ink does
	}
	return judge.LetterAmbiguous
}

// near reports whether pixel i lies within rad of a pixel in the other state: for the tear
// (beforeEdge false), a before-paper pixel whose after-state differs; for the before-sheet's
// edge (beforeEdge true), a before-paper pixel.
func near(i int, bm, am []byte, w, h, rad int, beforeEdge bool) bool {
	x, y := i%w, i/w
	r2 := rad * rad
	for dy := -rad; dy <= rad; dy++ {
		yy := y + dy
		if yy < 0 || yy >= h {
			continue
		}
		for dx := -rad; dx <= rad; dx++ {
			xx := x + dx
			if xx < 0 || xx >= w || dx*dx+dy*dy > r2 {
				continue
			}
			j := yy*w + xx
			if beforeEdge {
				if bm[j] != 0 {
					return true
				}
			} else if bm[j] != 0 && (am[j] != 0) != (am[i] != 0) {
				return true
			}
		}
	}
	return false
}
