package vision

import (
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// inkShownOrCut is inkMissing (whole as there), after cutting the table out of s's mask where
// the fresh sheet's writing is missing (cutUnshownInk) when that leaves none missing; the
// cut is said in s's notes. When ink is still missing, s's mask is left as it was and the
// first check's area and place are returned. (An area under inkMissMinMM2 may be returned as
// 0: nothing refuses then.)
func inkShownOrCut(fresh, s *SheetImage, whole bool) (float64, pt) {
	if !inkMayBeMissing(fresh, s, whole) {
		return 0, pt{}
	}
	a, at := inkMissing(fresh, s, whole)
	if a < inkMissMinMM2 {
		return a, at
	}
	nb, cut := cutUnshownInk(fresh, s, whole)
	if nb == nil {
		return a, at
	}
	mb := s.Mask.ToBytes()
	s.setMask(nb)
	if a2, _ := inkMissing(fresh, s, whole); a2 >= inkMissMinMM2 {
		s.setMask(mb)
		return a, at
	}
	s.tableCut = cut
	s.Notes = append(s.Notes, fmt.Sprintf("%.0f mm² of what the paper mask called paper cut out as table: the sheet's writing or ruling there (%.0f mm² at (%.0f, %.0f) mm) does not show in the photo, and a brightness step bounds it", cut, a, at.X, at.Y))
	return 0, pt{}
}

// inkMayBeMissing reports whether the fresh sheet's ink that inkMissing counts (whole as
// there) could miss inkMissMinMM2 or more in one group: whether that much of it on s's paper
// (inkMissing counts it on that paper eroded, in groups) does not show in the photo. Most
// photos show all of it, and this one pass spares the grouping (an erosion, a dilation and
// the labels of the frame).
func inkMayBeMissing(fresh, s *SheetImage, whole bool) bool {
	ink := freshInk(fresh)
	if whole {
		ink = freshStrongInk(fresh)
	}
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if len(ink) != w*h || s.Image.Empty() || s.Image.Cols() != w || s.Image.Rows() != h {
		return false // (inkMissing finds nothing either)
	}
	mb := u8view(s.Mask)
	if len(mb) != w*h {
		mb = s.Mask.ToBytes()
	}
	seen := inkSeen(s)
	n := 0
	for i, v := range ink {
		if v != 0 && mb[i] != 0 && seen[i] == 0 {
			n++
		}
	}
	return float64(n) >= inkMissMinMM2*s.PxPerMM*s.PxPerMM
}

// Table cut out where the fresh sheet's writing does not show.
//
// On a pale desk the colour and change tests can both take a stretch of the desk seen through
// a hole or beside a tear line for paper (held-out seed 8: case-015 goran-2/3/4, case-019
// fatima-3/4/5, case-007 ines-1, 447 to 8574 mm² of desk called paper against the truth),
// and inkMissing then refuses the photo: the fresh sheet's writing is missing there. That
// missing writing is certain evidence of the desk where it lies; where that desk ends is
// not, but the photo shows it as a brightness step (the torn paper's whitened rim, its
// shadow on the desk), as edgeRefine uses. So the mask's paper is re-decided by the same
// minimax flood (floodLabels): the desk grows from the missing writing and from the mask's
// table around the sheet (not from its islands inside the paper, nor within edgeFrameMM of
// the frame's edge, where a lost speck or the blurred edge would flood blank paper), the
// paper from all the fresh sheet's ink the photo shows, ruling too, with its halo. Changes
// not on a real step, or looking like the side they leave (keepStronger, keepLikeSide), are
// undone, but for whole islands of the mask's paper (they leave no boundary to judge). What
// is cut must hold missing writing and little writing that shows (inkCutShownFrac). If the
// flood also gives the desk a part of inkCutSuspectMM2 or more without writing to tell,
// nothing is cut: this photo's desk is known to pass for paper, and that part is no paper
// to trust (seed 8 case-019 fatima-5: 2220 mm² of desk beside a tear, no writing on it).
// The caller checks the writing again on the new mask and refuses the photo when any is
// still missing; a measurement with a cut photo carries doubts on the faults leftover desk
// could make (tableCutDoubts).

// cutUnshownInk returns s's mask (frame layout, 255 paper) with the table under the fresh
// sheet's missing writing cut out (see above), and the area cut (mm²); nil and 0 when
// nothing is cut. whole is as for inkMissing.
func cutUnshownInk(fresh, s *SheetImage, whole bool) ([]byte, float64) {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	g := groupInk(fresh, s, whole)
	if len(g.tot) == 0 {
		return nil, 0
	}
	bad := make([]bool, len(g.tot))
	nbad := 0
	for l := 1; l < len(g.tot); l++ {
		if g.missing(l) && g.missArea(l) >= inkMissMinMM2 {
			bad[l] = true
			nbad++
		}
	}
	if nbad == 0 {
		return nil, 0
	}
	mb := s.Mask.ToBytes()
	lab := make([]int8, w*h)
	unshown := make([]bool, w*h) // the missing ink of the groups that refuse
	ink, halo := freshInk(fresh), freshInkHalo(fresh)
	if len(ink) != w*h || len(halo) != w*h {
		return nil, 0
	}
	// The writing and ruling that shows (all the fresh sheet's ink, faint ruling too: a
	// ruled line is a step the flood would not cross), and the halo around it, is paper.
	// Shows: the photo's own dark pixels (inkSeen grows them by a millimetre, which reaches
	// from the tear line's shadow, or from the half of a stroke left on the paper, into the
	// desk beside it), where most of the fresh sheet's ink within inkSeedMM shows too.
	raw := inkSeenRaw(s)
	sr := int(math.Round(inkSeedMM * s.PxPerMM))
	local := locallySeen(ink, mb, raw, w, h, sr)
	shown := make([]byte, w*h)
	for i, v := range ink {
		if v != 0 && mb[i] != 0 && !bad[g.label[i]] && raw[i] != 0 && local[i] {
			shown[i] = 255
		}
	}
	sm := newMask(w, h, shown)
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*inkHaloPx+1, 2*inkHaloPx+1))
	gocv.Dilate(sm, &sm, k)
	k.Close()
	shown = sm.ToBytes()
	sm.Close()
	// A group whose writing is mostly missing is partly paper too: a word half torn away
	// keeps its other half, or a flourish, on the paper beside the tear (seed 11 case-011
	// ines-3, seed 12 case-007 hana-3: with no paper seeded there, the desk took that paper
	// across the tear line, its writing showed, and the whole cut was undone). Its ink that
	// shows as above is paper where it lies inkSeedMM or more from the group's missing ink,
	// not grown, and where it is as dark against its surroundings as the fresh sheet's ink
	// (inkDepthRatio, its mean over each stroke of it, at least inkSeedDepth): the tear
	// line's shadow on the desk under a torn-away stroke reads as ink too, but lighter (seed
	// 8 case-015 goran-2: 0.4 to 0.7; the ink beside the bites of ines-3 and hana-3 mostly
	// 0.8 to 1.1).
	gone := make([]byte, w*h)
	for i, v := range g.cand {
		if v != 0 && bad[g.label[i]] && g.seen[i] == 0 {
			gone[i] = 255
		}
	}
	mm := newMask(w, h, gone)
	k = disk(s.PxPerMM, inkSeedMM)
	gocv.Dilate(mm, &mm, k)
	k.Close()
	nearMiss := mm.ToBytes()
	mm.Close()
	left := make([]bool, w*h)
	found := false
	for i, v := range ink {
		if v != 0 && mb[i] != 0 && bad[g.label[i]] && raw[i] != 0 && local[i] && nearMiss[i] == 0 {
			left[i], found = true, true
		}
	}
	if found {
		// Stroke by stroke (8-connected): a stroke left on the paper runs into the tear
		// line's shadow at its torn end, lighter there (seed 11 case-011 ines-4: without
		// those ends as paper, the desk took the paper between a flourish's loops).
		dr := inkDepthRatio(fresh, s)
		lb := make([]byte, w*h)
		for i, p := range left {
			if p {
				lb[i] = 255
			}
		}
		l, n := newMaskRuns(lb, w, h, true).labels(w, h, true)
		sum, cnt := make([]float64, n), make([]int, n)
		for i, p := range left {
			if p {
				sum[l[i]] += float64(dr[i])
				cnt[l[i]]++
			}
		}
		for i, p := range left {
			if p && sum[l[i]] >= inkSeedDepth*float64(cnt[l[i]]) {
				shown[i] = 255
			}
		}
	}
	e := int(edgeFrameMM * s.PxPerMM)
	outside := outsideTable(s.Mask, s.unknown, e)
	for i := range lab {
		x, y := i%w, i/w
		switch {
		case len(s.unknown) == w*h && s.unknown[i] != 0:
			lab[i] = -1
		case x < e || y < e || x >= w-e || y >= h-e:
			// The frame's edge takes no part: the mask often calls a strip of the sheet's
			// blurred edge there table, which would flood paper beside it.
			lab[i] = -1
		case mb[i] == 0 && outside[i]:
			lab[i] = floodTable
		case mb[i] == 0:
			// An island of table inside the paper (a hole, or paper the mask lost) seeds
			// nothing: paper lost in a blank stretch would take the stretch with it.
			lab[i] = -1
		case g.cand[i] != 0 && bad[g.label[i]] && g.seen[i] == 0:
			lab[i] = floodTable
			unshown[i] = true
		case shown[i] != 0 && halo[i] != 0:
			lab[i] = floodPaper
		}
	}
	// The pixels decided: the open ones and the missing writing (a change too, judged with
	// the rest by keepStronger and keepLikeSide).
	dec := make([]byte, w*h)
	for i, l := range lab {
		if l == 0 || unshown[i] {
			dec[i] = 255
		}
	}
	open := spansOf(dec, w, h, 255)
	cost := edgeCost(s.Image, open)
	if len(cost) != w*h {
		return nil, 0
	}
	floodLabels(lab, cost, nil, w, h)
	nb := append([]byte(nil), mb...)
	for i, l := range lab {
		if dec[i] != 0 && l == floodTable {
			nb[i] = 0
		}
	}
	// The flood's changes that do not lie on a real step are undone (but for islands of the
	// mask's paper the flood gives wholly to the table: they leave no boundary to judge, and
	// are not the sheet); of the rest, only the parts that hold missing writing are cut.
	islands := cutIslands(s.Mask, nb)
	keepStronger(mb, nb, cost, open, halo, w, h)
	keepLikeSide(mb, nb, u8view(s.Image), halo, open, w, h, s.PxPerMM)
	for i, v := range islands {
		if v {
			nb[i] = 0
		}
	}
	dsp := diffSpans(mb, nb, open, w)
	if len(dsp) == 0 {
		return nil, 0
	}
	part, n := spanParts(dsp, nil)
	// Each part must hold missing writing, and little of the sheet's ink that shows: no more
	// than inkCutShownFrac of its missing ink's area (the desk's grain and a tear line's shadow
	// read as ink here and there).
	miss, show, area, hold := make([]int, n), make([]int, n), make([]int, n), make([]bool, n)
	for k, sp := range dsp {
		c := part[k]
		area[c] += int(sp.x1 - sp.x0)
		for i := int(sp.y)*w + int(sp.x0); i < int(sp.y)*w+int(sp.x1); i++ {
			if unshown[i] {
				hold[c] = true
			}
			switch {
			case ink[i] == 0:
			case g.seen[i] == 0:
				miss[c]++
			default:
				show[c]++
			}
		}
	}
	for c := range area {
		if !hold[c] && float64(area[c]) >= inkCutSuspectMM2*s.PxPerMM*s.PxPerMM {
			// The mask calls paper a part that the flood gives to the table across a real
			// step, with no writing to tell: after a cut, this photo's table is known to
			// pass for paper, so such a part is no paper to be trusted either.
			return nil, 0
		}
	}
	for k, sp := range dsp {
		if c := part[k]; !hold[c] || float64(show[c]) > inkCutShownFrac*float64(miss[c]) {
			o := int(sp.y) * w
			copy(nb[o+int(sp.x0):o+int(sp.x1)], mb[o+int(sp.x0):o+int(sp.x1)])
		}
	}
	cut := 0
	for i := range nb {
		if nb[i] != mb[i] {
			cut++
		}
	}
	if cut == 0 {
		return nil, 0
	}
	return nb, float64(cut) / (s.PxPerMM * s.PxPerMM)
}

// inkSeedMM: the ink cutUnshownInk takes for paper is where most of the fresh sheet's ink
// within this distance (mm, a square) shows in the photo; in a group whose writing is mostly
// missing, this far or farther from its missing ink too.
const inkSeedMM = 1.5

// inkSeedDepth: in a group whose writing is mostly missing, the ink cutUnshownInk takes for
// paper is at least this dark against its surroundings, relative to the fresh sheet's ink
// there (inkDepthRatio, a mean over each stroke).
const inkSeedDepth = 0.6

// inkSeenRaw is inkSeen not grown (frame layout, 255): the pixels of s's photo darker than
// the mean of the 6 mm window around them by 8 grey levels.
func inkSeenRaw(s *SheetImage) []byte {
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(s.Image, &gray, gocv.ColorBGRToGray)
	th := gocv.NewMat()
	defer th.Close()
	gocv.AdaptiveThreshold(gray, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*s.PxPerMM)|1, 8)
	return th.ToBytes()
}

// locallySeen reports, per pixel (w x h), whether it is ink on mb's paper (both 255 where
// so) more than half of whose ink on that paper within r px (a square) is seen (255).
func locallySeen(ink, mb, seen []byte, w, h, r int) []bool {
	on := make([]bool, w*h)
	v := make([]float32, w*h)
	for i, x := range ink {
		if x != 0 && mb[i] != 0 {
			on[i] = true
			if seen[i] != 0 {
				v[i] = 1
			}
		}
	}
	m := boxMean(on, v, w, h, r)
	res := make([]bool, w*h)
	for i, o := range on {
		res[i] = o && m[i] > 0.5
	}
	return res
}

// boxMean is, per pixel of on (w x h), the mean of v over the pixels of on within r px (a
// square); 0 elsewhere.
func boxMean(on []bool, v []float32, w, h, r int) []float32 {
	// Integral images of the count and of the sum.
	W := w + 1
	tn, tv := make([]int32, W*(h+1)), make([]float64, W*(h+1))
	for y := 0; y < h; y++ {
		var rn int32
		var rv float64
		for x := 0; x < w; x++ {
			if i := y*w + x; on[i] {
				rn++
				rv += float64(v[i])
			}
			tn[(y+1)*W+x+1] = tn[y*W+x+1] + rn
			tv[(y+1)*W+x+1] = tv[y*W+x+1] + rv
		}
	}
	out := make([]float32, w*h)
	for i, o := range on {
		if !o {
			continue
		}
		x, y := i%w, i/w
		x0, y0, x1, y1 := max(0, x-r), max(0, y-r), min(w, x+r+1), min(h, y+r+1)
		n := tn[y1*W+x1] - tn[y0*W+x1] - tn[y1*W+x0] + tn[y0*W+x0]
		sv := tv[y1*W+x1] - tv[y0*W+x1] - tv[y1*W+x0] + tv[y0*W+x0]
		if n > 0 {
			out[i] = float32(sv / float64(n))
		}
	}
	return out
}

// inkDepthRatio is, per pixel (frame layout), how far s's photo is below the mean of the 6 mm
// window around it (grey levels), over how far the fresh sheet is below its own, scaled by
// the ratio of the two means (the lighting): about 1 where the photo shows the fresh sheet's
// ink, less where a shadow darkens the desk under it; 0 where the fresh sheet is not darker
// than its mean (or the two images differ in size).
func inkDepthRatio(fresh, s *SheetImage) []float32 {
	mean := func(img gocv.Mat) ([]byte, []float32) {
		g := gocv.NewMat()
		defer g.Close()
		gocv.CvtColor(img, &g, gocv.ColorBGRToGray)
		m := gocv.NewMat()
		defer m.Close()
		k := int(6*s.PxPerMM) | 1
		gocv.Blur(g, &m, image.Pt(k, k))
		mf := gocv.NewMat()
		defer mf.Close()
		m.ConvertTo(&mf, gocv.MatTypeCV32F)
		v, _ := mf.DataPtrFloat32()
		return g.ToBytes(), append([]float32(nil), v...)
	}
	pg, pm := mean(s.Image)
	out := make([]float32, len(pg))
	if fresh.Image.Cols() != s.Image.Cols() || fresh.Image.Rows() != s.Image.Rows() {
		return out
	}
	fg, fm := mean(fresh.Image)
	for i := range pg {
		df := fm[i] - float32(fg[i])
		if df <= 0 || fm[i] <= 0 {
			continue
		}
		out[i] = (pm[i] - float32(pg[i])) / (df * pm[i] / fm[i])
	}
	return out
}

// inkCutShownFrac: a part of the mask cut out as table may hold the fresh sheet's writing
// that the photo shows up to this fraction of the writing it does not show.
const inkCutShownFrac = 0.25

// inkCutSuspectMM2: a part of the mask of this area or more that the flood gives to the table
// without missing writing in it makes cutUnshownInk cut nothing.
const inkCutSuspectMM2 = 25.0

// tableCutDoubts are the structured doubts of a measurement between before and after when
// either had table cut out of its mask (cutUnshownInk): that photo's desk passes for paper,
// and what is left of it where no writing lies would show as paper too, so a piece split
// in two, one kept from the sheet's edge, or one made too small for the template is no
// certain fault. res is the measurement's result so far.
func tableCutDoubts(before, after *SheetImage, res *TearResult) []judge.Doubt {
	cut := max(before.tableCut, after.tableCut)
	if cut == 0 || res.Pieces == 0 {
		return nil
	}
	why := fmt.Sprintf("a photo's paper mask took the desk for paper (%.0f mm² cut out where the sheet's writing did not show), and desk with no writing on it may still be taken for paper", cut)
	var ds []judge.Doubt
	if res.Pieces > 1 {
		ds = append(ds, judge.Doubt{About: judge.AboutPieces, Text: why})
	}
	if !res.EdgeToEdge {
		ds = append(ds, judge.Doubt{About: judge.AboutEdgeToEdge, Text: why})
	}
	if !res.TemplateFits {
		ds = append(ds, judge.Doubt{About: judge.AboutTemplateFits, Text: why})
	}
	return ds
}

// outsideTable reports, per pixel (frame layout), whether mask calls it table in a part of
// the table (8-connected) that reaches the frame's edge (within e px of it) or the unknown
// region: the table around the sheet, not an island inside the paper.
func outsideTable(mask gocv.Mat, unknown []byte, e int) []bool {
	w, h := mask.Cols(), mask.Rows()
	nm := gocv.NewMat()
	defer nm.Close()
	gocv.BitwiseNot(mask, &nm)
	cc := gocv.NewMat()
	defer cc.Close()
	n := gocv.ConnectedComponentsWithParams(nm, &cc, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	cl := int32s(cc)
	out := make([]bool, n)
	for i, c := range cl {
		x, y := i%w, i/w
		if c > 0 && (x < e || y < e || x >= w-e || y >= h-e || (len(unknown) == w*h && unknown[i] != 0)) {
			out[c] = true
		}
	}
	res := make([]bool, w*h)
	for i, c := range cl {
		res[i] = c > 0 && out[c]
	}
	return res
}

// cutIslands reports, per pixel (frame layout), whether it lies in a part of mask's paper
// (8-connected) that nb (the mask re-decided) calls table throughout, other than the largest
// part: an island of "paper" apart from the sheet.
func cutIslands(mask gocv.Mat, nb []byte) []bool {
	cc := gocv.NewMat()
	defer cc.Close()
	n := gocv.ConnectedComponentsWithParams(mask, &cc, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	cl := int32s(cc)
	size, kept := make([]int, n), make([]int, n)
	for i, c := range cl {
		size[c]++
		if nb[i] != 0 {
			kept[c]++
		}
	}
	big := 0
	for c := 1; c < n; c++ {
		if size[c] > size[big] || big == 0 {
			big = c
		}
	}
	res := make([]bool, len(cl))
	for i, c := range cl {
		res[i] = c > 0 && int(c) != big && kept[c] == 0
	}
	return res
}
