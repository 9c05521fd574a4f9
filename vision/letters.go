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
// certain ink and the rest is uncertain, and ambiguous otherwise. Uncertain ink counts as
// certain where the after photo decides it (inkEvidence), whichever side the masks put it on:
// removed where the photo shows neither the ink's darkness nor its hue near it (a letter cut
// less deep than the uncertainty radius is cut, not "on the sheet or cut": the project's
// synthetic set, "Tracking" 'r' and 'c', "Haggling" 'H', "Forgery" 'r'; a letter whose ink
// the masks keep by the tear over a dark table of another hue is removed, not "removed or
// cut"), and still on the sheet where the photo shows this ink there while the table along
// the tear line nowhere looks like it. A letter with too little ink of its own certainly on
// the sheet is compared with its neighbours' in the word (neighbourInk). A letter's ink is
// what is darker than its paper by a
// fixed step, or, for pale writing, by half its own contrast (letterPaleC).
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
	// letterPaleC: pale ink must be darker than the paper around it by this many grey
	// levels, at least, to count (JPEG noise and the paper's grain stay well under it).
	letterPaleC = 12
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

func letterStates(before *SheetImage, bm, am, removed []byte, ai afterInk, w, h int, layouts []judge.SkillLayout, resid float64) []judge.SkillLetters {
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
	reg := int(math.Ceil(resid*ppm)) + 1
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
		inks := make([]letterInk, len(sk.Letters))
		for li := range sk.Letters {
			self := &polys[si][li]
			var others []*letterPoly
			for _, o := range all {
				if o != self && o.box.Overlaps(self.box) {
					others = append(others, o)
				}
			}
			inks[li] = measureLetterInk(self, others, g, bm, am, filled[0], filled[1], ai, w, h, ppm, rad)
		}
		for li, own := range neighbourGlyphInk(inks, w) {
			inks[li] = countLetterInk(inks[li].box, own, bm, am, filled[0], filled[1], ai, w, h, rad)
		}
		for li := range sk.Letters {
			out[si].States[li] = inks[li].decide(ai, neighbourInk(inks, li), am, w, h, ppm, reg)
		}
		measured := append([]judge.LetterState(nil), out[si].States...)
		splitDoubt(out[si].States, polys[si], inks, bm, am, w, letterSplitGapMM*ppm, letterSplitReachMM*ppm, letterSplitFarMM*ppm)
		exitDoubt(out[si].States, measured, polys[si], inks, bm, am, filled[0], filled[1], w, h, letterSplitGapMM*ppm, letterExitFrac)
		fragmentDoubt(out[si].States, polys[si], bm, am, removed, w, h)
	}
	return out
}

// glyphOwnerFrac: a stroke of ink (a connected component of the word's letters' ink) belongs
// wholly to the letter whose outline holds at least this share of it. Printed and separate
// handwritten letters are each one or a few such strokes; joined-up writing is one stroke
// across many letters, none of which holds this much of it, so it stays split by outline.
const glyphOwnerFrac = 0.75

// neighbourGlyphInk returns, for each letter of a word (inks, measured by measureLetterInk; w
// the frame's width in pixels) whose outline holds part of a stroke that another letter's
// outline holds at least glyphOwnerFrac of, the letter's ink without that part (frame
// indices); letters with nothing to take away, or with fewer than letterMinPx pixels left,
// are not in the map. An outline from ocr/ a little too wide or too tall reaches over the gap
// onto its neighbour's glyph: seen on a held-out synthetic set (seed 14 case-015 hana-5,
// ComicNeue "Archery", 0.9 mm between 'A' and 'r'): 26 pixels of the cut 'A' inside the 'r'
// outline and outside the 'A' one made the 'r' cut for certain, the 'r' whole on the sheet by
// the truth: Archery 5 left for certain, truth 6.
func neighbourGlyphInk(inks []letterInk, w int) map[int][]int {
	owner := make(map[int]int) // pixel -> letter
	for li, l := range inks {
		if l.fixed {
			continue
		}
		for _, i := range l.ink {
			owner[i] = li
		}
	}
	if len(owner) == 0 {
		return nil
	}
	// Strokes: 8-connected components of the word's ink pixels.
	comp := make(map[int]int, len(owner))
	var sizes []int
	var shares []map[int]int // per component: letter -> pixels
	for start := range owner {
		if _, done := comp[start]; done {
			continue
		}
		c := len(sizes)
		sizes = append(sizes, 0)
		shares = append(shares, map[int]int{})
		stack := []int{start}
		comp[start] = c
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sizes[c]++
			shares[c][owner[i]]++
			x, y := i%w, i/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx == 0 && dy == 0) || x+dx < 0 || x+dx >= w || y+dy < 0 {
						continue
					}
					j := (y+dy)*w + x + dx
					if _, ok := owner[j]; ok {
						if _, done := comp[j]; !done {
							comp[j] = c
							stack = append(stack, j)
						}
					}
				}
			}
		}
	}
	// A component's owner: the letter holding glyphOwnerFrac of it, if any.
	compOwner := make([]int, len(sizes))
	for c := range sizes {
		compOwner[c] = -1
		for li, n := range shares[c] {
			if float64(n) >= glyphOwnerFrac*float64(sizes[c]) {
				compOwner[c] = li
			}
		}
	}
	out := make(map[int][]int)
	for li, l := range inks {
		if l.fixed {
			continue
		}
		own := make([]int, 0, len(l.ink))
		for _, i := range l.ink {
			if o := compOwner[comp[i]]; o < 0 || o == li {
				own = append(own, i)
			}
		}
		if len(own) < len(l.ink) && len(own) >= letterMinPx {
			out[li] = own
		}
	}
	return out
}

// letterRefSpan: a letter with too little ink of its own certainly on the sheet and shown
// (under its side's share) is compared in the after photo with the ink of the letters this
// many places either side of it in the word (the same pen, and the registration's error
// there nearly the same).
const letterRefSpan = 2

// neighbourInk is letter li's letterRef among its word's letters (inks): its own ink shown on
// the sheet when that reaches its side's share, else its neighbours' (letterRefSpan), each
// only when the photo shows the ink the masks keep on the sheet (shown); and its neighbours'
// ink.
func neighbourInk(inks []letterInk, li int) letterRef {
	var ref letterRef
	k := max(letterMinPx, int(letterSideFrac*float64(len(inks[li].ink))))
	own := len(inks[li].onPx) >= k && inks[li].shown()
	if own {
		ref.on = inks[li].onPx
	}
	for j := li - letterRefSpan; j <= li+letterRefSpan; j++ {
		if j < 0 || j >= len(inks) || j == li {
			continue
		}
		ref.other = append(ref.other, inks[j].ink...)
		if !own && inks[j].shown() {
			ref.on = append(ref.on, inks[j].onPx...)
		}
	}
	return ref
}

// shown reports whether the after photo shows the ink the masks keep on the sheet
// (letterSeenFrac of it at least): a letter whose ink it does not show is no reference.
func (l letterInk) shown() bool {
	return float64(l.onSeen) >= letterSeenFrac*float64(l.onC)
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

// letterSplitReachMM is how far beyond its outline a letter's own ink may lie in its
// neighbour's when ocr/ divides joined writing (ocr/ cuts along the baseline at the thinnest
// ink; the joining stroke it cuts may belong to either letter): the neighbour's ink across
// the tear within this of the letter's own ink may be the letter's. letterSplitFarMM is the same
// when the letter's own ink comes within the tear's uncertainty radius (the stroke ocr/ cut
// reaches the tear line there).
//
// Measured on 40 rendered sheets (seed 100, the letters as ocr/ locates them against the
// generator's glyphs): in joined writing a letter's ink reaches more than 1 mm into its
// neighbour's outline at 8.5% of the boundaries (Dancing Script 20%), more than 3 mm at
// 1.5%; in writing of separate marks at 0.2%. Every letter decided whole whose truth was cut
// beside a cut neighbour, on the project's set, seed 11 and the sample (7 letters): the
// neighbour's ink across the tear 0.25 to 1.27 mm from its ink (2.7 mm for an outline holding
// half of an "A"), and its own ink within the tear's uncertainty radius each time. The
// bundled sample's tear 1 ('h' of "hand" removed whole beside a cut 'a'): 1.27 mm too, its own
// ink all farther from the tear; only that tells the two apart.
//
// 0.9 mm since ocr/ gives a joining hairline's tip back to the letter it leaves (keepTips,
// ocr/tips.go): the generator's letter reaches into the next letter's ocr/ outline beyond its
// own more than 1 mm at 5.6% of 1812 boundaries (6.8% before), more than 0.75 mm at 8.2%
// (9.0%) (TestSegDiag, 40 sheets from seed 100, all fonts), so 0.9 mm covers about the share
// 1 mm did. With keepTips the sample's 'h' (its outline 0.36 mm nearer the truth's) lies
// 1.0 mm from the ink of the cut 'a' across the tear, and 1 mm made its tear undecided.
const (
	letterSplitReachMM = 0.9
	letterSplitFarMM   = 3.0
)

// splitDoubt turns a letter measured whole on one side of the tear (removed, or on the
// sheet) into a doubt (removed_or_cut, on_sheet_or_cut) when ocr/'s division between it and
// a neighbour in the word may hide a cut: their outlines touch (within gap px) and the
// neighbour's ink on the other side of the tear (by the after-mask; bm and am are w wide), at
// least its side's share (letterSideFrac), comes within reach px of this letter's own ink
// (inks), or within far px when some of it is uncertain (the tear passes within the
// uncertainty radius of it). ocr/ divides joined writing into letters along the
// baseline and can misplace the boundary: the joining stroke the tear crosses may be this
// letter's (seen on an independent synthetic set, seed 11 case-009: the exit stroke of a "k"
// lay in the next letter's outline and crossed the tear; "Tracking" counted 5 left for
// certain, truth 4; on the project's set a "D" whose bowl fell into the next letter's outline
// was called removed while the tear cut it). Before, any removed letter whose outline touched
// a cut neighbour's was in doubt, however far the cut, and no letter on the sheet was: the
// bundled sample's tear 1 ('h' of "hand", removed whole, its cut neighbour's ink on the sheet
// 1.27 mm from its ink) was undecided. states is changed in place; the decision uses the
// states as measured, so doubts do not spread along the word.
func splitDoubt(states []judge.LetterState, polys []letterPoly, inks []letterInk, bm, am []byte, w int, gap, reach, far float64) {
	measured := append([]judge.LetterState(nil), states...)
	for i, st := range measured {
		var doubt judge.LetterState
		switch st {
		case judge.LetterRemoved:
			doubt = judge.LetterRemovedOrCut
		case judge.LetterOnSheet:
			doubt = judge.LetterOnSheetOrCut
		default:
			continue
		}
		if len(polys[i].poly) < 3 {
			continue
		}
		limit := reach
		if inks[i].onU+inks[i].remU > 0 {
			limit = far
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(measured) || len(polys[j].poly) < 3 || polyGap(polys[i].poly, polys[j].poly) > gap {
				continue
			}
			if acrossWithin(inks[j].ink, inks[i].ink, bm, am, w, st == judge.LetterRemoved, limit) {
				states[i] = doubt
			}
		}
	}
}

// letterExitFrac is how far, as a share of the median extent of its word's outlines, a
// letter's own ink may run on beyond its ocr/ outline into the next letter's, along the
// writing. ocr/ cuts a joining stroke at its thinnest column, near its start, so a letter's
// exit stroke goes to the next letter, far more often than an entry stroke to the letter
// before. Measured in the audits of the synthetic sets of seeds 11 (part), 12 and 13 (the
// generator's letter outlines mapped onto ocr/'s by an affine fit of their centres; 2278
// boundaries between letters): a letter's true ink runs on more than 1 mm beyond its outline
// forward at 225 of them, backward at 54; more than 3 mm at 43 and 14. Forward, as a share of
// the median outline extent: p90 0.12, beyond 0.35 at 1.3% (most of them in weak reads, whose
// counts are marked "?" anyway). The split doubt's 1 mm (3 mm near the tear) from the
// neighbour's ink across the tear missed seed 13 case-002's first 'm' of "Swimming" (Breip):
// its exit stroke, 2.8 mm beyond its outline, was cut inside the second m's outline, 3.9 mm
// from the ink left to it (a thin stroke, under the ink threshold where it was cut), and
// "Swimming" was counted 4 left for certain, truth 3.
const letterExitFrac = 0.35

// exitDoubt turns a letter measured on the sheet (measured: the states before any doubt) into
// on_sheet_or_cut in states when its ink is joined to the next letter's (inkJoined: one mark
// that ocr/ divided) and the tear line (where the masks, raw or with the ink zone filled,
// change within a pixel) crosses the next letter's outline (touching this letter's, within
// gap px) no farther along the writing (the direction from this letter's outline
// centre to the next's) than frac of the median extent of the word's outlines beyond this
// letter's own ink: the stroke the tear cuts there may be this letter's exit stroke, which
// ocr/ gave to the next letter. It looks for the tear line, not for ink: the cut may be in a
// stroke too thin to pass as ink. A removed letter is left to splitDoubt: a removed letter in
// doubt makes the tear undecided, and this reach doubted 30 right removed letters on seeds
// 11-13, 2 tears of seed 12 undecided (a 'D' of "Disguise" whose next letter was cut 0.6 mm
// beyond its ink, measured whole and truly whole). A doubt on the sheet is not free either:
// the letter stays in doubt, and when a later tear removes it, whether that was a full letter
// is too close to call (seed 12 case-018, the 'S' of "Sailing", separate letters of Comic
// Neue, made tear 4 undecided before the rule asked for joined ink).
func exitDoubt(states, measured []judge.LetterState, polys []letterPoly, inks []letterInk, bm, am, bmF, amF []byte, w, h int, gap, frac float64) {
	var ext []float64
	for _, lp := range polys {
		if len(lp.poly) >= 3 {
			ext = append(ext, polyExtent(lp.poly))
		}
	}
	if len(ext) == 0 {
		return
	}
	sort.Float64s(ext)
	reach := frac * ext[len(ext)/2]
	for i, st := range measured {
		if st != judge.LetterOnSheet {
			continue
		}
		j := i + 1
		if j >= len(polys) || len(polys[i].poly) < 3 || len(polys[j].poly) < 3 || len(inks[i].ink) == 0 || polyGap(polys[i].poly, polys[j].poly) > gap || !inkJoined(inks[i].ink, inks[j].ink, w) {
			continue
		}
		ux, uy := polys[j].centre.X-polys[i].centre.X, polys[j].centre.Y-polys[i].centre.Y
		n := math.Hypot(ux, uy)
		if n == 0 {
			continue
		}
		ux, uy = ux/n, uy/n
		end := math.Inf(-1)
		for _, p := range inks[i].ink {
			end = math.Max(end, float64(p%w)*ux+float64(p/w)*uy)
		}
		b := polys[j].box.Intersect(image.Rect(0, 0, w, h))
	scan:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				p := y*w + x
				if bm[p] == 0 || float64(x)*ux+float64(y)*uy > end+reach || !pointInPoly(pt{float64(x), float64(y)}, polys[j].poly) {
					continue
				}
				if near(p, bm, am, w, h, 1, false) || near(p, bmF, amF, w, h, 1, false) {
					states[i] = judge.LetterOnSheetOrCut
					break scan
				}
			}
		}
	}
}

// letterJoinPx: two letters' inks within this many pixels of each other (frame indices, 4
// px/mm) are joined writing: ocr/ divided one mark between them.
const letterJoinPx = 2

// inkJoined reports whether some pixel of a lies within letterJoinPx of a pixel of b (frame
// indices, w wide): the two letters are one mark of joined writing (ocr/'s Voronoi division
// leaves a stroke's two parts side by side), not separate marks.
func inkJoined(a, b []int, w int) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	set := make(map[int]bool, len(b))
	for _, p := range b {
		set[p] = true
	}
	for _, p := range a {
		x, y := p%w, p/w
		for dy := -letterJoinPx; dy <= letterJoinPx; dy++ {
			for dx := -letterJoinPx; dx <= letterJoinPx; dx++ {
				if x+dx >= 0 && x+dx < w && set[(y+dy)*w+x+dx] {
					return true
				}
			}
		}
	}
	return false
}

// acrossWithin reports whether a neighbour's ink (frame indices, w wide) on the other side of
// the tear from a letter (on the after-sheet when the letter was removed, onSide; on the
// removed paper otherwise) reaches its side's share (letterSideFrac, letterMinPx at least)
// and comes within limit px of the letter's own ink (own; a letter without ink of its own,
// decided by its outline, is in doubt at any distance). Distances are to the letter's ink, not
// its outline: outlines of joined writing overlap, and a neighbour's stroke inside this
// letter's outline but nearer the neighbour's centre is the neighbour's (measureLetterInk).
func acrossWithin(ink, own []int, bm, am []byte, w int, onSide bool, limit float64) bool {
	k := max(letterMinPx, int(letterSideFrac*float64(len(ink))))
	n := 0
	for _, p := range ink {
		if bm[p] != 0 && (am[p] != 0) == onSide {
			n++
		}
	}
	if n < k {
		return false
	}
	if len(own) == 0 {
		return true // no ink of its own to measure from (an outline standing in): in doubt
	}
	// The letter's ink as a bitmap over its box grown by limit.
	r := int(math.Ceil(limit))
	x0, y0, x1, y1 := math.MaxInt, math.MaxInt, math.MinInt, math.MinInt
	for _, p := range own {
		x0, y0, x1, y1 = min(x0, p%w), min(y0, p/w), max(x1, p%w), max(y1, p/w)
	}
	x0, y0, x1, y1 = x0-r, y0-r, x1+r, y1+r
	bw := x1 - x0 + 1
	mine := make([]bool, bw*(y1-y0+1))
	for _, p := range own {
		mine[(p/w-y0)*bw+p%w-x0] = true
	}
	r2 := limit * limit
	for _, p := range ink {
		if bm[p] == 0 || (am[p] != 0) != onSide {
			continue
		}
		x, y := p%w, p/w
		if x < x0 || x > x1 || y < y0 || y > y1 {
			continue
		}
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				xx, yy := x+dx, y+dy
				if float64(dx*dx+dy*dy) <= r2 && xx >= x0 && xx <= x1 && yy >= y0 && yy <= y1 && mine[(yy-y0)*bw+xx-x0] {
					return true
				}
			}
		}
	}
	return false
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
// masks; bmF, amF: the same with the ink zone filled from its surroundings, fillInkZone), the
// after photo's evidence on its uncertain ink calibrated on its own ink left on the sheet
// (measureLetterInk, letterInk.decide).
func letterState(lp *letterPoly, others []*letterPoly, g, bm, am, bmF, amF []byte, ai afterInk, w, h int, ppm float64, rad, reg int) judge.LetterState {
	li := measureLetterInk(lp, others, g, bm, am, bmF, amF, ai, w, h, ppm, rad)
	return li.decide(ai, letterRef{on: li.onPx}, am, w, h, ppm, reg)
}

// letterInk is one letter's ink as the masks place it (measureLetterInk): counts of its ink
// pixels gone before the tear (goneC), on the after-sheet (onC certain, onU uncertain) and on
// the removed paper (remC, remU), with the pixels the after photo is asked about (decide).
type letterInk struct {
	fixed  bool              // decided without ink to measure (no outline, no ink in it)
	state  judge.LetterState // the state when fixed
	box    image.Rectangle
	ink    []int // the letter's ink pixels (frame indices)
	goneC  int
	onC    int
	onU    int
	remC   int
	remU   int
	onSeen int   // certain on-sheet ink the after photo shows as ink (inkSeen)
	onPx   []int // those pixels
	onUPx  []int // uncertain ink the masks keep on the sheet
	remUPx []int // uncertain ink the masks put on the removed paper
}

// measureLetterInk places a letter's ink by the masks (letterState). An ink pixel whose mask
// and filled mask disagree is uncertain: either its measured state is ghost ink of a
// torn-away piece on a dark table, or the tear passes through the ink zone near it, and the
// masks cannot tell which.
func measureLetterInk(lp *letterPoly, others []*letterPoly, g, bm, am, bmF, amF []byte, ai afterInk, w, h int, ppm float64, rad int) letterInk {
	fixed := func(st judge.LetterState) letterInk { return letterInk{fixed: true, state: st, box: lp.box} }
	if len(lp.poly) < 3 {
		return fixed(judge.LetterUnknown)
	}
	bx0, by0, bx1, by1 := lp.box.Min.X, lp.box.Min.Y, lp.box.Max.X-1, lp.box.Max.Y-1
	if bx1 < 0 || by1 < 0 || bx0 >= w || by0 >= h {
		return fixed(judge.LetterUnknown)
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
		return fixed(judge.LetterUnknown)
	}
	sort.Ints(paper)
	level := paper[len(paper)*3/4] // the paper is the bright majority
	thr := level - max(25, level/5)
	// Pale writing (pencil) may hardly reach that: its ink is then what is darker than
	// half-way from the paper to the letter's own darkest ink (its 5th percentile), when that
	// stands clear of the paper's noise (letterPaleC). Before, a pencil letter cut by a tear
	// was measured on its few darkest pixels, all on one side: on the sheet for certain
	// (held-out seed 8 case-016, "Sailing": an 'a' with 8 ink pixels of its ~150).
	vals := make([]int, len(inside))
	for k, i := range inside {
		vals[k] = int(g[i])
	}
	sort.Ints(vals)
	if dark := vals[len(vals)/20]; level-dark >= 2*letterPaleC {
		thr = max(thr, (level+dark+1)/2)
	}
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
				return fixed(judge.LetterUnknown)
			case am[i] != 0 && !near(i, bm, am, w, h, rad, false):
				on++
			case am[i] == 0 && !near(i, bm, am, w, h, rad+int(math.Ceil(ppm)), false):
				off++
			default:
				return fixed(judge.LetterUnknown)
			}
		}
		if off > 0 {
			if on > 0 {
				return fixed(judge.LetterUnknown)
			}
			return fixed(judge.LetterRemoved)
		}
		return fixed(judge.LetterOnSheet)
	}
	return countLetterInk(lp.box, ink, bm, am, bmF, amF, ai, w, h, rad)
}

// countLetterInk places a letter's ink pixels (ink, frame indices; box its outline's box) by
// the masks: gone before the tear, on the after-sheet or on the removed paper, each certain
// or uncertain (measureLetterInk).
func countLetterInk(box image.Rectangle, ink []int, bm, am, bmF, amF []byte, ai afterInk, w, h, rad int) letterInk {
	l := letterInk{box: box, ink: ink}
	for _, i := range ink {
		ghostBefore := bm[i] != bmF[i]
		if bm[i] == 0 {
			if !ghostBefore && !near(i, bm, am, w, h, rad, true) {
				l.goneC++
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
			l.onU++
			l.onUPx = append(l.onUPx, i)
		case am[i] != 0:
			l.onC++
			if len(ai.seen) == w*h && ai.seen[i] != 0 {
				l.onSeen++
				l.onPx = append(l.onPx, i)
			}
		case unc:
			l.remU++
			l.remUPx = append(l.remUPx, i)
		default:
			l.remC++
		}
	}
	return l
}

// letterRef is what a letter's uncertain ink is compared with in the after photo (decide):
// ink certainly on the sheet that the photo shows (on: the letter's own, or its neighbours'
// in the word when it has too little: the same pen, the registration's local error), and the
// word's other letters' ink near it (other), whose blur the photo may show beside this
// letter's ink.
type letterRef struct {
	on    []int
	other []int
}

// decide gives the letter's state: gone / cut / on_sheet / removed when the ink decides; when
// one side holds certain ink and the rest is uncertain, on_sheet_or_cut (not removed whole,
// whatever the doubt) or removed_or_cut (not left, whatever the doubt); otherwise ambiguous.
// Uncertain ink counts as certain where the after photo decides it (inkEvidence): gone where
// the photo shows no ink near it, still on the sheet where the photo shows this ink there.
func (l letterInk) decide(ai afterInk, ref letterRef, am []byte, w, h int, ppm float64, reg int) judge.LetterState {
	if l.fixed {
		return l.state
	}
	onC, onU, remC, remU, goneC := l.onC, l.onU, l.remC, l.remU, l.goneC
	k := max(letterMinPx, int(letterSideFrac*float64(len(l.ink))))
	ghost := false
	if len(ai.seen) == w*h && onC >= k && !l.shown() {
		// The after photo does not show the ink the masks keep on the sheet: ghost ink (see
		// letterSeenFrac). Whether it is there cannot be told.
		onU += onC
		onC = 0
		ghost = true
	}
	if !ghost && goneC < k && (remC < k || onC < k) && onU+remU > 0 {
		// Uncertain ink the after photo decides (inkEvidence): ink the masks put on either
		// side near the tear that the photo shows nowhere within the registration error went
		// with the removed paper; ink it shows where it was, with the table around not
		// looking like ink, is still on the sheet.
		ev := ai.inkEvidence(l.onUPx, l.remUPx, ref, l.box, am, w, h, ppm, reg)
		onC += ev.keptOn + ev.keptRem
		onU -= ev.keptOn + ev.goneOn
		remC += ev.goneOn + ev.goneRem
		remU -= ev.keptRem + ev.goneRem
	}
	// Uncertain ink may lie on either side: a side is clear when the certain ink on the
	// other side and all uncertain ink together stay under k.
	switch {
	case goneC >= k:
		return judge.LetterGone
	case remC >= k && onC >= k:
		return judge.LetterCut
	case remC+remU+onU < k && remC >= letterMinPx && onC >= k:
		// Under the side's share, but certainly removed: ink beyond the uncertainty radius
		// on paper that the masks and the line continued across the ink both call removed.
		// Mask noise near ink makes the two disagree (uncertain ink), not this; a letter cut
		// by a sliver is not on the sheet for certain (held-out seed 9 case-010 ines-4: an
		// 'H' cut 2.8% of its ink, 7 pixels of it certain, measured on the sheet).
		return judge.LetterOnSheetOrCut
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

// afterInk is what the photo after a tear shows of the fresh sheet's ink, in the sheet
// frame: seen (inkSeen: where it shows ink at all, grown 1 mm) and bgr (its rectified
// colour image, 3 bytes a pixel; empty when not known).
type afterInk struct {
	seen []byte
	bgr  []byte
}

// newAfterInk is the afterInk of a registered sheet.
func newAfterInk(after *SheetImage) afterInk {
	ai := afterInk{seen: inkSeen(after)}
	if !after.Image.Empty() && after.Image.Channels() == 3 {
		ai.bgr = u8view(after.Image)
	}
	return ai
}

// inkModel is the after photo's test of one letter's ink (inkModelOf).
type inkModel struct {
	ai     afterInk
	w, h   int
	P, D   [3]float64 // the paper's colour, and the ink's minus the paper's
	dd     float64    // |D|²
	pb, pg float64    // the paper's chromaticity
	sb, sg float64    // the paper-to-ink ray in chromaticity
	tol    float64
	sx, sy int // the letter's shift between the frames
}

// inkModelOf fits the after photo's test of a letter's ink. The ink's colour in that photo is
// the median colour at on (ink certainly on the sheet, shown), the paper's the median of the
// after-paper around the letter (box grown 2 mm) where the photo shows no ink. A pixel shows
// this ink when it is at least half-way from the paper's colour to the ink's (inkShownT,
// along their difference) and of the ink's hue: its chromaticity within inkShownChroma of the
// paper-to-ink ray's length of that ray (inkShownChromaMin at least, for black or grey ink on
// white paper). Blurred ink, and ink denser than the median, do; a table as dark as the ink
// but of another hue does not; a table of the ink's colour does. The letter's shift (the
// registration's local error, within reg px) is the one that puts most of on on ink in the
// photo; if under letterShownFrac of on shows there, the photo is not trusted (false).
func (ai afterInk) inkModelOf(on []int, box image.Rectangle, am []byte, w, h int, ppm float64, reg int) (inkModel, bool) {
	m := inkModel{ai: ai, w: w, h: h}
	if len(ai.bgr) != 3*w*h || len(ai.seen) != w*h || len(on) < letterMinPx {
		return m, false
	}
	pad := int(2 * ppm)
	var pb [3][]int
	for y := max(0, box.Min.Y-pad); y < min(h, box.Max.Y+pad); y++ {
		for x := max(0, box.Min.X-pad); x < min(w, box.Max.X+pad); x++ {
			j := y*w + x
			if am[j] != 0 && ai.seen[j] == 0 {
				for c := 0; c < 3; c++ {
					pb[c] = append(pb[c], int(ai.bgr[3*j+c]))
				}
			}
		}
	}
	if len(pb[0]) < 10 {
		return m, false
	}
	var ib [3][]int
	for _, j := range on {
		for c := 0; c < 3; c++ {
			ib[c] = append(ib[c], int(ai.bgr[3*j+c]))
		}
	}
	for c := 0; c < 3; c++ {
		sort.Ints(pb[c])
		sort.Ints(ib[c])
		m.P[c] = float64(pb[c][len(pb[c])/2])
		m.D[c] = float64(ib[c][len(ib[c])/2]) - m.P[c]
		m.dd += m.D[c] * m.D[c]
	}
	if m.dd < inkShownMinContrast*inkShownMinContrast {
		return m, false // the photo hardly tells this ink from the paper
	}
	// Chromaticity (each channel's share of the sum) of the paper, the ink and a pixel: a
	// table as dark as the ink, or darker, differs from it in hue, if at all.
	m.pb, m.pg = chroma(m.P[0], m.P[1], m.P[2])
	qb, qg := chroma(m.P[0]+m.D[0], m.P[1]+m.D[1], m.P[2]+m.D[2])
	m.sb, m.sg = qb-m.pb, qg-m.pg
	m.tol = math.Max(inkShownChroma*math.Hypot(m.sb, m.sg), inkShownChromaMin)
	best := -1
	for dy := -reg; dy <= reg; dy++ {
		for dx := -reg; dx <= reg; dx++ {
			n := 0
			for _, j := range on {
				if m.inkAt(j%w+dx, j/w+dy) {
					n++
				}
			}
			if n > best || (n == best && dx*dx+dy*dy < m.sx*m.sx+m.sy*m.sy) {
				m.sx, m.sy, best = dx, dy, n
			}
		}
	}
	if float64(best) < letterShownFrac*float64(len(on)) {
		return m, false // the photo does not show this ink as expected: nothing to compare
	}
	return m, true
}

// chroma is a colour's chromaticity: its blue and green shares of the sum of its channels.
func chroma(b, g, r float64) (float64, float64) {
	sum := math.Max(b+g+r, 1)
	return b / sum, g / sum
}

// toInk is how far pixel j's colour lies from the paper's towards the ink's (0 the paper, 1
// the ink), along their difference.
func (m inkModel) toInk(j int) float64 {
	t := 0.0
	for c := 0; c < 3; c++ {
		t += (float64(m.ai.bgr[3*j+c]) - m.P[c]) * m.D[c]
	}
	return t / m.dd
}

// shows reports whether pixel j shows this ink: dark enough (inkShownT) and of its hue.
func (m inkModel) shows(j int) bool { return m.showsAt(j, inkShownT) }

// showsAt reports whether pixel j shows this ink at least t of the way from the paper's
// colour to the ink's, and of its hue.
func (m inkModel) showsAt(j int, t float64) bool {
	if m.toInk(j) < t {
		return false
	}
	cb, cg := chroma(float64(m.ai.bgr[3*j]), float64(m.ai.bgr[3*j+1]), float64(m.ai.bgr[3*j+2]))
	u := 0.0
	if sl2 := m.sb*m.sb + m.sg*m.sg; sl2 > 0 {
		u = math.Max(0, ((cb-m.pb)*m.sb+(cg-m.pg)*m.sg)/sl2) // denser ink is more saturated
	}
	return math.Hypot(cb-m.pb-u*m.sb, cg-m.pg-u*m.sg) <= m.tol
}

// inkAt reports whether the photo's pixel (x, y) shows this ink.
func (m inkModel) inkAt(x, y int) bool {
	return x >= 0 && y >= 0 && x < m.w && y < m.h && m.shows(y*m.w+x)
}

// faintAt reports whether the photo's pixel (x, y) shows this ink at least faintly: inkFaintT
// of the way to its colour, and of its hue (shows). Outside the frame counts as shown.
func (m inkModel) faintAt(x, y int) bool {
	return x < 0 || y < 0 || x >= m.w || y >= m.h || m.showsAt(y*m.w+x, inkFaintT)
}

// within1 reports whether f holds at a pixel within 1 px of (x, y).
func within1(x, y int, f func(x, y int) bool) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if f(x+dx, y+dy) {
				return true
			}
		}
	}
	return false
}

// inkGone counts the pixels of cands (frame indices: a letter's ink that the masks put on
// the removed paper within measurement error of the tear) that the after photo shows gone
// (inkModelOf, fitted on on: its ink certainly on the sheet). A candidate is gone when, at
// the letter's shift, no pixel within 1 px of it shows the ink: ink a pixel from ink left
// (the photo's blur) is never counted gone, nor ink over a table of the ink's colour.
func (ai afterInk) inkGone(cands, on []int, box image.Rectangle, am []byte, w, h int, ppm float64, reg int) int {
	m, ok := ai.inkModelOf(on, box, am, w, h, ppm, reg)
	if !ok {
		return 0
	}
	gone := 0
	for _, i := range cands {
		if !within1(i%w+m.sx, i/w+m.sy, m.inkAt) {
			gone++
		}
	}
	return gone
}

// inkEvidence is what the after photo decides of a letter's uncertain ink (afterInk.
// inkEvidence): pixels the masks keep on the sheet (On) or put on the removed paper (Rem)
// that the photo shows still there (kept) or gone.
type inkEvidence struct {
	keptOn, keptRem, goneOn, goneRem int
}

// inkEvidence asks the after photo about a letter's uncertain ink: onU, the pixels the masks
// keep on the sheet, and remU, those they put on the removed paper (inkModelOf, fitted on
// ref.on). Gone: at the letter's shift no pixel within 1 px shows the ink (remU, as inkGone),
// or, for ink the masks keep, none within 1 px is even inkFaintT of the way to its colour
// (and of its hue: a table darker than the ink, of another hue, is no ink). Kept: the
// pixel itself shows the ink, no other letter's ink (ref.other) lies within inkKeptClearPx of
// it (the photo's blur of a neighbour's ink left), and the table the after-mask shows along
// the tear line near the letter (within inkKeptClearPx of its paper) nowhere looks like
// the ink (at most inkTableShownFrac of it, and inkTableMinPx pixels of it seen at least):
// a shadow or a dark table along the line would show as ink where none is left.
func (ai afterInk) inkEvidence(onU, remU []int, ref letterRef, box image.Rectangle, am []byte, w, h int, ppm float64, reg int) inkEvidence {
	var ev inkEvidence
	m, ok := ai.inkModelOf(ref.on, box, am, w, h, ppm, reg)
	if !ok {
		return ev
	}
	keepOK := m.tableClear(box, am, ppm)
	other := make(map[int]bool, len(ref.other))
	for _, j := range ref.other {
		other[j] = true
	}
	clear := func(i int) bool {
		x, y := i%w, i/w
		for dy := -inkKeptClearPx; dy <= inkKeptClearPx; dy++ {
			for dx := -inkKeptClearPx; dx <= inkKeptClearPx; dx++ {
				if other[(y+dy)*w+x+dx] {
					return false
				}
			}
		}
		return true
	}
	// tally counts the pixels of px kept, and those gone: at the shift, no pixel within 1 px
	// where shown holds.
	tally := func(px []int, shown func(x, y int) bool) (kept, gone int) {
		for _, i := range px {
			x, y := i%w+m.sx, i/w+m.sy
			switch {
			case keepOK && m.inkAt(x, y) && clear(i):
				kept++
			case !within1(x, y, shown):
				gone++
			}
		}
		return kept, gone
	}
	ev.keptOn, ev.goneOn = tally(onU, m.faintAt)
	ev.keptRem, ev.goneRem = tally(remU, m.inkAt)
	return ev
}

// tableClear reports whether the table the after-mask shows along the tear line near a
// letter (box grown 2 mm; pixels within inkKeptClearPx of the after paper, at the letter's
// shift) looks unlike the ink (inkEvidence).
func (m inkModel) tableClear(box image.Rectangle, am []byte, ppm float64) bool {
	pad := int(2 * ppm)
	w, h := m.w, m.h
	n, shown := 0, 0
	for y := max(0, box.Min.Y-pad); y < min(h, box.Max.Y+pad); y++ {
		for x := max(0, box.Min.X-pad); x < min(w, box.Max.X+pad); x++ {
			if am[y*w+x] != 0 {
				continue
			}
			edge := false
			for dy := -inkKeptClearPx; dy <= inkKeptClearPx && !edge; dy++ {
				for dx := -inkKeptClearPx; dx <= inkKeptClearPx; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < w && yy < h && am[yy*w+xx] != 0 {
						edge = true
						break
					}
				}
			}
			if !edge {
				continue
			}
			n++
			if m.inkAt(x+m.sx, y+m.sy) {
				shown++
			}
		}
	}
	return n >= inkTableMinPx && float64(shown) <= inkTableShownFrac*float64(n)
}

// The photo's test of a letter's ink (inkModelOf, inkEvidence).
const (
	inkFaintT         = 0.25 // ink the masks keep on the sheet is gone only where nothing shows it this much
	inkKeptClearPx    = 2    // kept ink lies this far (px) from other letters' ink; the tear line's band
	inkTableMinPx     = 10   // table pixels along the tear line needed to trust kept ink
	inkTableShownFrac = 0.02 // ... and the share of them that may show as ink

	inkShownT           = 0.5  // at least half-way from the paper's colour to the ink's
	inkShownChroma      = 0.3  // chromaticity off the paper-to-ink ray, share of its length
	inkShownChromaMin   = 0.03 // ... or this much (chromaticity of grey pixels is noisy)
	inkShownMinContrast = 30.0 // ink and paper this far apart in BGR, or the photo cannot tell
	letterShownFrac     = 0.8  // share of the letter's certain ink that must show, shifted
)
