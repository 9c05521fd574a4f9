package vision

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Photos that cut the sheet off.
//
// A later photo in which part of the sheet lies outside the picture is registered on what it
// shows; the part of the sheet frame outside the photo, and a margin of photoEdgeMM inside the
// photo's edge (where the photo's vignetting and blur make the paper mask unreliable), is
// unknown (SheetImage.unknown; Mask is 0 there). Measure then uses three states per pixel:
// paper, no paper, unknown; and paper only shrinks, so
//   - paper on the after-sheet was on the before-sheet (before's unknown is filled with it),
//   - no paper on the before-sheet is no paper on the after-sheet (after's unknown likewise),
// and what stays open is the "maybe" region: paper that this tear may or may not have removed
// (before paper or unknown, after unknown; or before unknown, after no paper). Pieces, edge
// contact and the template fit are measured on the known removal exactly as before; each maybe
// region that could change one of them is a structured doubt about it, and letters over maybe
// regions are measured in both extremes (the region kept or gone before / removed by this
// tear) and keep only what both agree on.
//
// A fresh photo must show the whole sheet (its scale comes from its four corners), and a later
// photo in which less than minSeenFrac of the sheet frame is known is refused (ErrSheetCutOff).

const (
	// photoEdgeMM is the margin inside the photo's edge that is unknown too.
	photoEdgeMM = 4.0
	// minSeenFrac is the least part of the sheet frame a cut-off photo must show.
	minSeenFrac = 0.5
	// cutChangeRounds is the number of rounds of the change test on a photo whose view does not
	// hold the whole sheet frame (changeRounds otherwise): each round's paper trains the next
	// round's lighting, and the paper along the photo's edge is the most strongly vignetted.
	cutChangeRounds = 7
)

// frameCut reports whether the colour test's paper (prob, 255 = paper) runs into the part of
// the sheet frame (at off, size sz, in the margin layout fw wide) outside the photo (valid not
// 255) along more than 5 mm, as paperMaskInFrame's final test does.
func frameCut(prob, valid []byte, fw, off int, sz image.Point, ppm float64) bool {
	n := 0
	full := func(y int) bool { return bytes.IndexByte(valid[y*fw:(y+1)*fw], 0) < 0 }
	for y := max(off, 1); y < off+sz.Y-1; y++ {
		if full(y-1) && full(y) && full(y+1) {
			continue
		}
		for x := max(off, 1); x < off+sz.X-1; x++ {
			i := y*fw + x
			if prob[i] != 0 && (valid[i-1] != 255 || valid[i+1] != 255 || valid[i-fw] != 255 || valid[i+fw] != 255) {
				n++
			}
		}
	}
	return float64(n) > 5*ppm
}

// photoEdgeZone marks (255) the pixels of a w x h frame layout that lie outside the photo
// (valid 0) or within photoEdgeMM of it.
func photoEdgeZone(valid []byte, w, h int, ppm float64) []byte {
	inv := make([]byte, w*h)
	for i, v := range valid {
		if v != 255 {
			inv[i] = 255
		}
	}
	m := newMask(w, h, inv)
	defer m.Close()
	e := 2*int(math.Round(photoEdgeMM*ppm)) + 1
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
	defer k.Close()
	gocv.Dilate(m, &m, k)
	return m.ToBytes()
}

// awayFromPhotoEdge keeps the edge samples (edgeSamples' three lists; keys side<<20|position
// in px, offsets in mm inwards from the side) that lie outside zone (margin layout fw wide,
// frame at off, size sz), with the pixel beside each on the outer side of the boundary: the
// mask is cleared in the zone, so paper running into it ends with its last pixel just
// outside it, a boundary the photo's edge made, not the sheet's (seed 6 case-003 goran-3 and
// held-out seed 9 case-011 dana-2, true errors 0.05 and 0.26 mm, refused at 4.00 and 3.75 mm
// with a side read 3-6 mm inside along the photo's edge).
func awayFromPhotoEdge(es []edgeSample, offs []float64, keys []int, zone []byte, fw, off int, sz image.Point, ppm float64) ([]edgeSample, []float64, []int) {
	var es2 []edgeSample
	var offs2 []float64
	var keys2 []int
	for i, k := range keys {
		side, t := k>>20, k&(1<<20-1)
		d0 := int(math.Round(offs[i]*ppm + 0.5))
		in := false
		for _, d := range [2]int{d0, d0 - 1} {
			var x, y int
			switch side {
			case 0:
				x, y = off+t, off+d
			case 1:
				x, y = off+sz.X-1-d, off+t
			case 2:
				x, y = off+t, off+sz.Y-1-d
			default:
				x, y = off+d, off+t
			}
			j := y*fw + x
			in = in || (j >= 0 && j < len(zone) && zone[j] != 0)
		}
		if in {
			continue
		}
		es2, offs2, keys2 = append(es2, es[i]), append(offs2, offs[i]), append(keys2, k)
	}
	return es2, offs2, keys2
}

// markUnknown gives a registered sheet its unknown region (frame layout; nil: the photo shows
// the whole sheet), or refuses the photo (closing s) when less than minSeenFrac of the frame
// is known (ErrSheetCutOff) or the fresh sheet's writing is missing from the paper it shows
// (inkMissing: ErrSheetCutOff for a photo that cuts the sheet off, else ErrPaperMask).
func markUnknown(fresh, s *SheetImage, unknown []byte) (*SheetImage, error) {
	n := 0
	for _, v := range unknown {
		if v != 0 {
			n++
		}
	}
	if n == 0 {
		// The whole sheet in view: its mask is checked the same way. A table the colour of the
		// paper, called paper beside a tear, shows none of the fresh sheet's writing or ruling
		// there (held-out seed 7: 3251 mm² of a pale desk beside a torn-off side made islands
		// of "paper" that cut the removed strip into pieces, ruled several_pieces and
		// not_edge_to_edge for certain on a valid bite).
		if mb := edgeRefine(fresh, s); mb != nil {
			s.setMask(mb)
		}
		if a, at := inkShownOrCut(fresh, s, true); a >= inkMissMinMM2 {
			s.Close()
			return nil, &PaperMaskError{InkMM2: a, AtMM: [2]float64{at.X, at.Y}, ResidualMM: s.ResidualMM}
		}
		return s, nil
	}
	if float64(n) > (1-minSeenFrac)*float64(len(unknown)) {
		s.Close()
		return nil, ErrSheetCutOff
	}
	mb := s.Mask.ToBytes()
	for i, v := range unknown {
		if v != 0 {
			mb[i] = 0
		}
	}
	w, h := s.Mask.Cols(), s.Mask.Rows()
	s.Mask.Close()
	s.Mask = newMask(w, h, mb)
	s.unknown = unknown
	if mb := edgeRefine(fresh, s); mb != nil {
		s.setMask(mb)
	}
	ppm := s.PxPerMM
	if a, at := inkShownOrCut(fresh, s, false); a >= inkMissMinMM2 {
		s.Close()
		return nil, fmt.Errorf("%w: the paper mask of the part it shows cannot be trusted (%.0f mm² of the sheet's writing at (%.0f, %.0f) mm, on what it calls paper, does not show in the photo)", ErrSheetCutOff, a, at.X, at.Y)
	}
	s.Notes = append(s.Notes, fmt.Sprintf("the photo cuts the sheet off: %.0f mm² of the sheet frame (with %g mm inside the photo's edge) is unknown", float64(n)/(ppm*ppm), photoEdgeMM))
	return s, nil
}

// Partial reports whether the sheet has pixels whose paper state is unknown (a photo that
// cut the sheet off).
func (s *SheetImage) Partial() bool {
	if s == nil {
		return false
	}
	for _, v := range s.unknown {
		if v != 0 {
			return true
		}
	}
	return false
}

// UnknownMM2 is the area of the sheet frame whose paper state is unknown.
func (s *SheetImage) UnknownMM2() float64 {
	if s == nil {
		return 0
	}
	n := 0
	for _, v := range s.unknown {
		if v != 0 {
			n++
		}
	}
	return float64(n) / (s.PxPerMM * s.PxPerMM)
}

// FillFrom fills s's unknown region from a later photo of the same sheet in the same frame:
// paper only shrinks, so where later shows paper (and knows it), s had paper too. When later
// had table cut out of its mask (cutUnshownInk) and fills s, s carries that cut's doubts
// (tableCutDoubts): its desk passes for paper, and where no writing lies may still be taken
// for paper (seed 11 case-011: ines-2, cut off, filled from ines-3; the hole of tear 2, in
// which ines-2's own mask called 233 mm² of desk paper, was measured too small for the
// template, for certain). It returns the area filled (mm²). later is not modified.
func (s *SheetImage) FillFrom(later *SheetImage) float64 {
	if s == nil || later == nil || len(s.unknown) == 0 || later.Mask.Empty() ||
		later.Mask.Cols()*later.Mask.Rows() != len(s.unknown) {
		return 0
	}
	lm := later.Mask.ToBytes()
	mb := s.Mask.ToBytes()
	n := 0
	for i, v := range s.unknown {
		if v != 0 && lm[i] != 0 && (len(later.unknown) != len(lm) || later.unknown[i] == 0) {
			mb[i], s.unknown[i] = 255, 0
			n++
		}
	}
	if n > 0 {
		s.setMask(mb)
		s.tableCut = max(s.tableCut, later.tableCut)
	}
	return float64(n) / (s.PxPerMM * s.PxPerMM)
}

// setMask replaces the sheet's mask with mb (same size) and drops what was cached from it.
func (s *SheetImage) setMask(mb []byte) {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	s.Mask.Close()
	s.Mask = newMask(w, h, mb)
	s.refGrown, s.refAll = nil, false
}

// Maybe-region kinds (partialMasks).
const (
	maybeAfter  = 1 // the after-sheet's state is unknown: kept, or removed by this tear
	maybeBefore = 2 // the before-sheet's state is unknown, the after-sheet has no paper: removed by this tear, or gone before it
)

// partialMasks applies "paper only shrinks" between before and after (their unknown regions,
// filled where the other sheet decides; before's mask and after's unknown are updated) and
// returns the maybe kinds per pixel (nil when nothing is open). In bm and am (the masks'
// bytes, modified) maybe pixels are paper on both: the tear's known removal is measured as if
// it had kept them.
func partialMasks(before, after *SheetImage, bm, am []byte) []byte {
	bu, au := before.unknown, after.unknown
	if len(bu) != len(bm) {
		bu = nil
	}
	if len(au) != len(am) {
		au = nil
	}
	if bu == nil && au == nil {
		return nil
	}
	maybe := make([]byte, len(bm))
	filled, any := false, false
	for i := range bm {
		bU, aU := bu != nil && bu[i] != 0, au != nil && au[i] != 0
		if !bU && !aU {
			continue
		}
		if aU && !bU && bm[i] == 0 {
			au[i] = 0 // no paper before: none after
			continue
		}
		if bU && !aU && am[i] != 0 {
			bm[i], bu[i] = 255, 0 // paper after: paper before
			filled = true
			continue
		}
		if aU {
			maybe[i] = maybeAfter
		} else {
			maybe[i] = maybeBefore
		}
		bm[i], am[i] = 255, 255
		any = true
	}
	if filled {
		mb := before.Mask.ToBytes()
		for i := range mb {
			if bm[i] != 0 && maybe[i] == 0 {
				mb[i] = 255
			}
		}
		before.setMask(mb)
	}
	if !any {
		return nil
	}
	return maybe
}

// partialDoubts adds to res the doubts the maybe region raises (see partialMasks), and
// returns the maybe region as measured (opened like the removal, 255) for the letters and
// the template. bm is the before mask as measured (maybe pixels paper), removed the pieces,
// nearOuter the pixels near the before-sheet's outer edge, touch whether each piece touches it;
// where says where the maybe paper may have been lost (maybeWhere).
func partialDoubts(res *TearResult, maybe, bm, removed, nearOuter []byte, touch []bool, lb []int32, keep []int, w, h int, ppm float64, where string) []byte {
	m := &res.Measurement
	d := int(math.Round(SliverMM * ppm))
	if d%2 == 0 {
		d++
	}
	open := make([]byte, len(maybe))
	for i, v := range maybe {
		if v != 0 {
			open[i] = 255
		}
	}
	om := newMask(w, h, open)
	defer om.Close()
	padded := gocv.NewMat()
	defer padded.Close()
	gocv.CopyMakeBorder(om, &padded, d, d, d, d, gocv.BorderConstant, colorBlack)
	morph(&padded, d, 0)
	inner := padded.Region(image.Rect(d, d, d+w, d+h))
	inner.CopyTo(&om)
	inner.Close()
	ob := om.ToBytes()

	labels := gocv.NewMat()
	defer labels.Close()
	n := gocv.ConnectedComponentsWithParams(om, &labels, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	ml := int32s(labels)
	// Beside a piece: within the sliver width of its pixels.
	near := newMask(w, h, removed)
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*d+1, 2*d+1))
	gocv.Dilate(near, &near, k)
	k.Close()
	nb := near.ToBytes()
	near.Close()
	depth := outerDepth(bm, w, h)
	band := float32(EdgeBandMM * ppm)
	area := make([]int, n)
	core := make([]int, n)
	adj := make([]bool, n)
	outer := make([]bool, n)
	pieceAdj := make([]bool, len(touch))
	for i, v := range ob {
		if v == 0 {
			continue
		}
		l := ml[i]
		area[l]++
		if depth(i%w, i/w) > band {
			core[l]++
		}
		if nb[i] != 0 {
			adj[l] = true
		}
		if nearOuter[i] != 0 {
			outer[l] = true
		}
	}
	// Which maybe regions lie beside which piece: each piece dilated by the sliver width.
	joins := make([]int, n) // pieces beside each maybe region
	for pi := range touch {
		pm := make([]byte, w*h)
		for i, v := range removed {
			if v != 0 && keep[lb[i]] == pi {
				pm[i] = 255
			}
		}
		mm := newMask(w, h, pm)
		k = gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*d+1, 2*d+1))
		gocv.Dilate(mm, &mm, k)
		k.Close()
		seen := make(map[int32]bool)
		for i, v := range mm.ToBytes() {
			if v != 0 && ob[i] != 0 && !seen[ml[i]] {
				seen[ml[i]] = true
				joins[ml[i]]++
				pieceAdj[pi] = true
			}
		}
		mm.Close()
	}
	minPx := int(MinPieceMM2 * ppm * ppm)
	var alone, hole, beside, joining []string
	total := 0
	out := make([]byte, len(ob))
	for l := 1; l < n; l++ {
		a := area[l]
		standalone := a >= minPx && 4*core[l] >= minPx // could be a piece of its own
		if !standalone && !(adj[l] && 16*a >= minPx) {
			continue
		}
		total += a
		desc := fmt.Sprintf("%.0f mm²", float64(a)/(ppm*ppm))
		if standalone && !adj[l] {
			alone = append(alone, desc)
			if !outer[l] {
				hole = append(hole, desc)
			}
		} else {
			beside = append(beside, desc)
		}
		if joins[l] >= 2 {
			joining = append(joining, desc)
		}
	}
	for i, v := range ob {
		if v != 0 {
			l := ml[i]
			a := area[l]
			if (a >= minPx && 4*core[l] >= minPx) || (adj[l] && 16*a >= minPx) {
				out[i] = 255
			}
		}
	}
	res.MaybeMM2 = math.Round(float64(total)/(ppm*ppm)*10) / 10
	if total == 0 {
		return out
	}
	if res.Pieces == 0 {
		if len(alone) > 0 {
			m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
				Text: fmt.Sprintf("paper may have been lost %s (%s): whether this tear removed it cannot be told", where, strings.Join(alone, ", "))})
		}
		return out
	}
	m.Notes = append(m.Notes, fmt.Sprintf("up to %.0f mm² more paper may have been removed %s", float64(total)/(ppm*ppm), where))
	// Several pieces stay several whatever else was removed, unless a maybe region joins them.
	if len(alone) > 0 && res.Pieces == 1 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPieces,
			Text: fmt.Sprintf("paper lost %s, apart from the removed piece (%s), may have been removed by this tear too: a second piece", where, strings.Join(alone, ", "))})
	}
	if len(joining) > 0 && res.Pieces >= 2 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPieces,
			Text: fmt.Sprintf("paper lost %s (%s) lies between removed pieces: removed by this tear too, it would join them", where, strings.Join(joining, ", "))})
	}
	// A hole matters only when every known piece reaches the edge.
	edgeDoubt := len(hole) > 0 && res.EdgeToEdge
	for pi, a := range pieceAdj {
		if a && !touch[pi] {
			edgeDoubt = true
		}
	}
	if edgeDoubt {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutEdgeToEdge,
			Text: fmt.Sprintf("whether every removed piece reaches the sheet's edge depends on paper %s", where)})
	}
	return out
}

// combineStates is a letter's state when a maybe region is kept (or gone before the tear:
// lo) or removed by this tear (hi): what both agree on.
func combineStates(lo, hi judge.LetterState) judge.LetterState {
	if lo == hi {
		return lo
	}
	notLeft := func(s judge.LetterState) bool {
		switch s {
		case judge.LetterRemoved, judge.LetterCut, judge.LetterGone, judge.LetterRemovedOrCut:
			return true
		}
		return false
	}
	removed := func(s judge.LetterState) bool { return s == judge.LetterRemoved || s == judge.LetterRemovedOrCut }
	if notLeft(lo) && notLeft(hi) {
		if removed(lo) || removed(hi) {
			return judge.LetterRemovedOrCut
		}
		return judge.LetterCut
	}
	return judge.LetterUnknown
}

// partialLetters measures the letters with the maybe region in both extremes and combines
// them (combineStates). bm, am, removed are as measured (maybe pixels paper on both).
func partialLetters(before *SheetImage, maybe, bm, am, removed []byte, ai afterInk, w, h int, layouts []judge.SkillLayout, resid float64) []judge.SkillLetters {
	bl, al := append([]byte(nil), bm...), append([]byte(nil), am...)
	ah, rh := append([]byte(nil), am...), append([]byte(nil), removed...)
	for i, v := range maybe {
		switch v {
		case maybeBefore:
			bl[i], al[i] = 0, 0
		}
		if v != 0 {
			ah[i], rh[i] = 0, 255
		}
	}
	lo := letterStates(before, bl, al, removed, ai, w, h, layouts, resid)
	hi := letterStates(before, bm, ah, rh, ai, w, h, layouts, resid)
	for si := range lo {
		for li := range lo[si].States {
			if si < len(hi) && li < len(hi[si].States) {
				lo[si].States[li] = combineStates(lo[si].States[li], hi[si].States[li])
			}
		}
	}
	return lo
}

// Ink check for photos that cut the sheet off. Their mask has no table band on the cut
// side to learn the table from, and a table the colour of the paper, seen through a bite
// that runs into the unknown region, was taken for paper (an independent synthetic set,
// seed 3: 3900 mm² of table called paper, every letter on it measured still on the sheet).
// Where the mask says paper, the fresh sheet's ink must show: a group of letters whose ink
// is mostly missing there means the mask is wrong, and the photo is refused.
const (
	inkMissMinMM2 = 3.0 // ink area (mm²) missing in one group of writing that refuses
	inkMissFrac   = 0.5 // the part of the group's ink that must be missing
)

// inkSeen is where s's photo shows ink (frame layout, 255): pixels darker than the mean of a
// 6 mm window around them by 8 levels (OpenCV's adaptive threshold, on the grey image), grown
// by a millimetre for registration and blur; nil when s has no image. Computed once per
// sheet (cached in s; read-only for callers).
func inkSeen(s *SheetImage) []byte {
	if s.Image.Empty() {
		return nil
	}
	if s.seen != nil {
		return s.seen // Register's paper-mask check and Measure's letters both use it
	}
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(s.Image, &gray, gocv.ColorBGRToGray)
	th := gocv.NewMat()
	defer th.Close()
	gocv.AdaptiveThreshold(gray, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*s.PxPerMM)|1, 8)
	k := disk(s.PxPerMM, 1)
	gocv.Dilate(th, &th, k)
	k.Close()
	s.seen = th.ToBytes()
	return s.seen
}

// disk is an elliptic structuring element of diameter 2 round(mm ppm) + 1 px. The caller
// closes it.
func disk(ppm, mm float64) gocv.Mat {
	e := 2*int(math.Round(mm*ppm)) + 1
	return gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
}

// strongInkC: the fresh sheet's strong ink is darker than its 6 mm mean by this many grey
// levels (freshInk: 20). Writing in pen or felt is; faint ruling and light pencil often are
// not, and a later photo at under 3 px/mm blurs them below what inkMissing's seen test finds
// (seed 3 case-005 emil-2: 5 mm² of ruling "missing" from a right mask).
const strongInkC = 40

// freshStrongInk is the fresh sheet's strong ink on its paper (frame layout, 255), cached.
func freshStrongInk(fresh *SheetImage) []byte {
	if fresh.strongInk == nil {
		fresh.strongInk = paperInk(fresh, strongInkC)
	}
	return fresh.strongInk
}

// inkMissing returns the largest area (mm² of ink) of one group of the fresh sheet's
// writing (ink within 3 mm along each axis) lying on s's paper (away from its edges) whose ink s's photo
// mostly does not show (more than inkMissFrac of it), and where (mm). whole: s shows the
// whole sheet; then only the fresh sheet's strong ink counts (freshStrongInk), and none
// within paperPartsOpenMM of the frame's edge, where Register's mask calls a band paper by
// either of its tests (seed 3 case-013 mateo-3: a felt-tip word's ink along the torn-off
// bottom edge, on that band).
func inkMissing(fresh, s *SheetImage, whole bool) (float64, pt) {
	g := groupInk(fresh, s, whole)
	best, at := 0.0, pt{}
	for l := 1; l < len(g.tot); l++ {
		if a := g.missArea(l); g.missing(l) && a > best {
			best, at = a, g.at[l]
		}
	}
	return best, at
}

// inkGroups is the fresh sheet's ink on a registered sheet's paper, in groups (see
// groupInk): per group (label 1..), its ink pixels, those the photo does not show, and where
// those lie (mm).
type inkGroups struct {
	cand  []byte  // the ink counted (frame layout, 255)
	label []int32 // each pixel's group (frame layout; 0: none)
	seen  []byte  // inkSeen of the sheet
	tot   []int
	miss  []int
	at    []pt
	ppm   float64
}

// missArea is group l's ink the photo does not show, in mm².
func (g *inkGroups) missArea(l int) float64 { return float64(g.miss[l]) / (g.ppm * g.ppm) }

// missing reports whether group l's ink mostly does not show in the photo (more than
// inkMissFrac of it).
func (g *inkGroups) missing(l int) bool {
	return g.miss[l] > 0 && float64(g.miss[l]) > inkMissFrac*float64(g.tot[l])
}

// groupInk groups the fresh sheet's ink on s's paper as inkMissing describes; an empty
// inkGroups when there is none (or no image to compare).
func groupInk(fresh, s *SheetImage, whole bool) inkGroups {
	ink := freshInk(fresh)
	if whole {
		ink = freshStrongInk(fresh)
	}
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if len(ink) != w*h || s.Image.Empty() || s.Image.Cols() != w || s.Image.Rows() != h {
		return inkGroups{}
	}
	ppm := s.PxPerMM
	seen := inkSeen(s)
	pm := s.Mask.Clone()
	defer pm.Close()
	k := disk(ppm, 1.5)
	gocv.Erode(pm, &pm, k)
	k.Close()
	paper := pm.ToBytes()
	if e := min(int(math.Round(paperPartsOpenMM*ppm)), w/2, h/2); whole && e > 0 {
		for y := 0; y < h; y++ {
			row := paper[y*w : (y+1)*w]
			if y < e || y >= h-e {
				clear(row)
				continue
			}
			clear(row[:e])
			clear(row[w-e:])
		}
	}
	cand := make([]byte, w*h)
	any := false
	for i, v := range ink {
		if v != 0 && paper[i] != 0 {
			cand[i] = 255
			any = true
		}
	}
	if !any {
		return inkGroups{}
	}
	gm := newMask(w, h, cand)
	defer gm.Close()
	// Grouped within 3 mm along each axis: a square kernel, which OpenCV dilates with two
	// separable passes (an ellipse this size cost 4.5 ms a photo, a third of the check).
	e := 2*int(math.Round(3*ppm)) + 1
	k = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(e, e))
	gocv.Dilate(gm, &gm, k)
	k.Close()
	// (Labelled as OpenCV's ConnectedComponentsWithParams labels them, 8-connected, from
	// the row runs: maskRuns.)
	lb, n := newMaskRuns(u8view(gm), w, h, true).labels(w, h, true)
	g := inkGroups{cand: cand, label: lb, seen: seen, tot: make([]int, n), miss: make([]int, n), at: make([]pt, n), ppm: ppm}
	sx, sy := make([]float64, n), make([]float64, n)
	for i, v := range cand {
		if v == 0 {
			continue
		}
		l := lb[i]
		g.tot[l]++
		if seen[i] == 0 {
			g.miss[l]++
			sx[l] += float64(i % w)
			sy[l] += float64(i / w)
		}
	}
	for l := 1; l < n; l++ {
		if g.miss[l] > 0 {
			g.at[l] = pt{(sx[l]/float64(g.miss[l]) + 0.5) / ppm, (sy[l]/float64(g.miss[l]) + 0.5) / ppm}
		}
	}
	return g
}

// A fresh sheet near the photo's edge.
//
// On the work image (640 px) a strip of table a few photo pixels wide between the sheet and
// the photo's edge blurs into the sheet's blob (held-out seed 9 case-006 noor-0: the bottom
// side 10 px from the edge of a 1600x1200 photo, fitted on the work image's last row), and
// the sheet looks cut off. clearOfFrame decides on the full-resolution photo.

// frameReachWork (work px) is how far inside the side the work image put on the photo's edge
// clearOfFrame looks for the paper's edge: the area downscale and the 5x5 blur merge a strip
// of table up to a few work pixels wide into the paper's blob.
const frameReachWork = 6

// minFrameGap (photo px) is the least distance between the sheet and the photo's edge: less
// leaves no pixel of table that the paper's own blurred edge does not reach.
const minFrameGap = 2.0

// clearOfFrame decides whether a sheet pickSheet called cut off (q: its quadrilateral in photo
// px) lies wholly inside the photo. The sides within frameReachWork of the photo's edge are
// refined on the full-resolution photo with their profiles cut at the photo's edge (the rest
// as refineQuad would, with reach); then every corner must lie at least minFrameGap inside the
// photo, and along each such side (every 2% of it), where the photo's edge is nearer than frameReachWork, the
// strip between the side and the photo's edge must be table: a colour step of at least
// minFallbackStep from the paper 5 px inside (median), and table by the colour models of loc
// (most samples), when it has them. A sheet the photo's edge cuts has paper, not table, there (its "side" is
// the photo's edge, or a line of writing or ruling beside it). It returns the refined
// quadrilateral and how many of its sides refineSides found.
func clearOfFrame(bgr gocv.Mat, q [4]pt, loc *located, reach float64) ([4]pt, int, bool) {
	w, h := bgr.Cols(), bgr.Rows()
	wide := frameReachWork / loc.scale
	var reaches [4]float64
	near := false
	for s := range reaches {
		reaches[s] = reach
		a, b := q[s], q[(s+1)%4]
		d := b.sub(a).mul(1 / dist(a, b))
		// Along an edge of the photo (within 20 degrees of it), an end within wide of it.
		along := []float64{math.Abs(d.Y), math.Abs(d.X), math.Abs(d.Y), math.Abs(d.X)}
		for e, ed := range [][2]float64{{a.X + 0.5, b.X + 0.5}, {a.Y + 0.5, b.Y + 0.5},
			{float64(w) - 0.5 - a.X, float64(w) - 0.5 - b.X}, {float64(h) - 0.5 - a.Y, float64(h) - 0.5 - b.Y}} {
			if min(ed[0], ed[1]) < wide && along[e] > 0.94 {
				reaches[s], near = wide, true
			}
		}
	}
	if !near {
		return q, 0, false
	}
	q, _, found := refineSides(bgr, q, reaches, true)
	for _, c := range q {
		if photoEdgeDist(c, w, h) < minFrameGap {
			return q, found, false
		}
	}
	img := u8view(bgr)
	pix := func(p pt) int {
		x, y := int(math.Round(p.X)), int(math.Round(p.Y))
		if x < 0 || y < 0 || x >= w || y >= h {
			return -1
		}
		return 3 * (y*w + x)
	}
	c := q[0].add(q[1]).add(q[2]).add(q[3]).mul(0.25)
	var strip []byte // BGR of the strip's samples
	for s := range q {
		a, b := q[s], q[(s+1)%4]
		d := b.sub(a).mul(1 / dist(a, b))
		n := pt{-d.Y, d.X}
		if n.dot(lerp(a, b, 0.5).sub(c)) < 0 {
			n = n.mul(-1)
		}
		var steps []float64
		for k := 1; k < 50; k++ {
			p := lerp(a, b, float64(k)/50)
			gap := rayToEdge(p, n, w, h)
			if gap >= wide {
				continue // the work image saw table here
			}
			if gap < minFrameGap {
				return q, found, false
			}
			o, i := pix(p.add(n.mul(math.Min(3, gap-1)))), pix(p.sub(n.mul(5)))
			if o < 0 || i < 0 {
				return q, found, false
			}
			step := 0.0
			for ch := 0; ch < 3; ch++ {
				step += math.Abs(float64(img[o+ch]) - float64(img[i+ch]))
			}
			steps = append(steps, step)
			strip = append(strip, img[o:o+3]...)
		}
		if len(steps) > 0 && percentile(steps, 0.5) < minFallbackStep {
			return q, found, false
		}
	}
	if loc.fg == nil || loc.bg == nil {
		return q, found, true // the fallbacks' regions (GrabCut, edges) come without colour models
	}
	table := 0
	for _, v := range paperProbBGR(strip, loc.fg, loc.bg, 0.5) {
		if v < 128 {
			table++
		}
	}
	return q, found, 2*table > len(strip)/3 || len(strip) == 0
}

// photoEdgeDist is the distance from p (photo px, pixel centres) to the nearest edge of a
// w x h photo, negative outside it.
func photoEdgeDist(p pt, w, h int) float64 {
	return min(p.X+0.5, p.Y+0.5, float64(w)-0.5-p.X, float64(h)-0.5-p.Y)
}

// cornersInPhoto reports whether every corner of q (photo px) lies inside a w x h photo.
func cornersInPhoto(q [4]pt, w, h int) bool {
	for _, c := range q {
		if photoEdgeDist(c, w, h) < 0 {
			return false
		}
	}
	return true
}

// rayToEdge is the distance from p (photo px, pixel centres) along the unit vector n to the
// edge of a w x h photo.
func rayToEdge(p, n pt, w, h int) float64 {
	t := math.Inf(1)
	if n.X > 1e-9 {
		t = math.Min(t, (float64(w)-0.5-p.X)/n.X)
	} else if n.X < -1e-9 {
		t = math.Min(t, (p.X+0.5)/-n.X)
	}
	if n.Y > 1e-9 {
		t = math.Min(t, (float64(h)-0.5-p.Y)/n.Y)
	} else if n.Y < -1e-9 {
		t = math.Min(t, (p.Y+0.5)/-n.Y)
	}
	return t
}
