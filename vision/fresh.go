package vision

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// Fresh finds the untorn sheet in a photo and rectifies it into the sheet frame at
// DefaultPxPerMM. The paper size fixes the millimetre scale. Orientation rule: the sheet's
// long side becomes the paper's long side, and of the orientations left, the one whose "down"
// points most nearly down in the photo wins (so an upright photo gives an upright sheet, and
// one turned 90° is read with its top to the photo's left or right, whichever is higher).
// Errors: ErrBlankFrame, ErrNoSheet, ErrSeveralSheets, ErrSheetCutOff, ErrBadInput.
// The caller closes the SheetImage.
func Fresh(photo gocv.Mat, paper template.Paper) (*SheetImage, error) {
	if paper.WidthMM <= 0 || paper.HeightMM <= 0 {
		return nil, fmt.Errorf("%w: paper size %gx%g mm", ErrBadInput, paper.WidthMM, paper.HeightMM)
	}
	bgr, done, err := checkPhoto(photo)
	if err != nil {
		return nil, err
	}
	defer done()
	loc, err := locate(bgr, nil, workLong, true)
	if err != nil {
		return nil, err
	}
	var q [4]pt
	reach := math.Max(4, 2/loc.scale)
	gc := &grabCutSheet{bgr: bgr}
	r, err := pickSheetIn(bgr, loc)
	if r != nil {
		var found int
		q, found, err = sheetQuad(bgr, loc, r, err, reach)
		if err == nil && gc.disagrees(r, found, q) {
			// A blob in doubt whose sheet GrabCut puts elsewhere (rendered lavender desks:
			// a side along a line of writing, the sheet 312 px off; a side across a bright
			// patch of desk, 57 px off): GrabCut's sheet is taken.
			err = ErrNoSheet
		}
	}
	if errors.Is(err, ErrNoSheet) {
		// A bright patch of table (a lamp's hot spot) touching the sheet through gaps in
		// its edge shadow makes one blob that is no quadrilateral: cut the thin necks. (A
		// sheet cut off by the photo's edge stays cut off.) A side the opening made must be
		// a colour step as GrabCut's are: opening a blob of sheet and pale desk can leave a
		// piece of the sheet (held-out seed 9 case-015 goran-0: a third of the sheet, its
		// cut side a step of 6, refused as 0.30:1 while GrabCut finds the sheet).
		var qs [4]pt
		l2, _, err2 := splitSheet(loc, func(l *located, r *region, radius float64) bool {
			var e error
			var found int
			qs, found, e = sheetQuad(bgr, l, r, nil, math.Max(reach, radius/l.scale))
			return e == nil && !gc.disagrees(r, found, qs)
		})
		if err2 == nil {
			loc, q, err = l2, qs, nil
		}
	}
	if errors.Is(err, ErrNoSheet) || errors.Is(err, ErrSheetCutOff) {
		// The colour models found nothing sheet-like (white on a light table, a table
		// colour close to the paper's): try GrabCut, then the regions the photo's edges
		// enclose (shading made part of the sheet the colour of the table elsewhere), and
		// keep the first sheet whose sides are colour steps all round.
		if l2, q2, ok := gc.sheet(); ok {
			loc, q, err = l2, q2, nil
			loc.fg = nil
		} else if l2 := locateEdges(bgr); l2 != nil {
			r2, err2 := pickSheetIn(bgr, l2)
			if r2 != nil {
				if q2, _, err2 := sheetQuad(bgr, l2, r2, err2, math.Max(4, 4/l2.scale)); err2 == nil {
					loc, q, err = l2, q2, nil
					loc.fg = nil
				}
			}
		}
	}
	if err == nil && !cornersInPhoto(q, bgr.Cols(), bgr.Rows()) {
		// A corner a few pixels outside the photo clips a tip of the blob too small for
		// the work image's tests (cutOff); the refined corners show it.
		err = ErrSheetCutOff
	}
	if errors.Is(err, ErrNoSheet) {
		switch paper, border := tornPaperIn(loc); {
		case paper && border:
			// Paper running into the photo's edge: a sheet that fills the frame or lies
			// partly outside it looks torn where the frame cuts it (a tester:
			// gcv_handwritten.jpg, a page filling the photo, was called torn).
			return nil, fmt.Errorf("%w: the paper in the photo runs off the photo's edge (a sheet partly outside the photo, or filling it): photograph the whole sheet with table around it", err)
		case paper:
			return nil, fmt.Errorf("%w: the paper in the photo is a sheet with part of it gone (torn already?), and the untorn sheet is needed here", err)
		}
	}
	if err != nil {
		return nil, err
	}
	return freshFromQuad(bgr, loc, q, paper)
}

// freshFromQuad is the fresh sheet whose corners in bgr are q (any order), found by loc
// (its colour models, if any, give the sheet's own outline: freshOutline). The caller closes
// the SheetImage.
func freshFromQuad(bgr gocv.Mat, loc *located, q [4]pt, paper template.Paper) (*SheetImage, error) {
	q = orientQuad(q, paper)
	// The sheet's shape must be the paper's (the paper size fixes the millimetre scale, so a
	// wrong size would give wrong areas and fits): the ratio of its sides undone from the
	// perspective (aspect.go) is checked before anything is measured.
	if err := checkPaperSize(q, bgr.Cols(), bgr.Rows(), paper); err != nil {
		return nil, err
	}
	s := &SheetImage{PxPerMM: DefaultPxPerMM, Paper: paper, paperLab: loc.fg}
	for i := range q {
		s.Corners[i] = q[i].f32()
	}
	W, H := paper.WidthMM, paper.HeightMM
	s.H = homographyFrom4([4]pt{{0, 0}, {W, 0}, {W, H}, {0, H}}, q)
	s.Image = warpToFrame(bgr, s.H, paper, s.PxPerMM, 0)
	sz := s.SizePx()
	s.Mask = gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), sz.Y, sz.X, gocv.MatTypeCV8UC1)
	freshOutline(s, bgr, loc)
	return s, nil
}

// sheetQuad is the photo quadrilateral of the sheet r that pickSheet found in l (err its
// answer): refined on the full-resolution photo, or, when pickSheet called it cut off,
// the answer of clearOfFrame, which looks at the full-resolution photo along the photo's
// edge. Whichever way the sheet was found, every side must be a colour step (sidesAreSteps),
// and sides refined by refineQuad must meet at the corners (its straight), or the answer is
// ErrNoSheet. found is how many sides refineQuad found as edges (4 for a sheet by the
// photo's edge, which clearOfFrame checks).
func sheetQuad(bgr gocv.Mat, l *located, r *region, err error, reach float64) ([4]pt, int, error) {
	q := l.photoQuad(r)
	found := 4
	if errors.Is(err, ErrSheetCutOff) {
		q2, _, ok := clearOfFrame(bgr, q, l, reach)
		if !ok {
			return q, found, err
		}
		q = q2
	} else {
		var straight bool
		if q, straight, found = refineQuad(bgr, q, reach); !straight {
			// Sides that do not meet at the corner left between them: the blob's side was
			// fitted through something beside the sheet (held-out mateo-0, a bright patch
			// of grey desk at the sheet's corner: the top side's left end 16 px off). The
			// sheet is looked for again (splitSheet's opening, GrabCut, the edges).
			return q, found, ErrNoSheet
		}
	}
	if !sidesAreSteps(bgr, q) {
		// A side with the same colour on both sides of it: the blob ran over a patch of
		// pale desk as bright as the paper (held-out seed 9 case-011 dana-0: a side across
		// the desk, a step of 7, corners 155 px off), or GrabCut gave a shaded part of a
		// pale sheet to the table, or an edge-bounded region is not paper on table.
		return q, found, ErrNoSheet
	}
	return q, found, nil
}

// grabCutSheet is GrabCut's answer for a photo (locateGrabCut, pickSheet, sheetQuad at a
// reach of 2 work px), found once when first asked for.
type grabCutSheet struct {
	bgr  gocv.Mat
	done bool
	loc  *located
	q    [4]pt
	ok   bool
}

// sheet is GrabCut's sheet: its located (GrabCut's mask) and photo quadrilateral; ok false
// when GrabCut finds none that passes sheetQuad.
func (g *grabCutSheet) sheet() (*located, [4]pt, bool) {
	if !g.done {
		g.done = true
		l := locateGrabCut(g.bgr)
		if r, err := pickSheetIn(g.bgr, l); r != nil {
			if q, _, err := sheetQuad(g.bgr, l, r, err, math.Max(4, 2/l.scale)); err == nil {
				g.loc, g.q, g.ok = l, q, true
			}
		}
	}
	return g.loc, g.q, g.ok
}

// disagrees reports whether the colour models' sheet q (photo px; blob r, refineQuad
// finding found of its sides as edges) is in doubt and GrabCut finds a sheet with a corner
// 1% of the diagonal or more away from q's. In doubt is a blob under 90% of whose outline
// lies on the quadrilateral's sides, or a side with no edge found at full resolution. On
// rendered lavender desks such blobs were taken 312 px off (a shadow made the top of the
// sheet the desk's colour and the blob's side ran along a line of writing: side fit 0.65,
// 3 sides found) and 57 px off (a bright patch of desk taken in: side fit 0.66, 2 sides
// found); GrabCut found both within 4 px. GrabCut is run only then: it agreed within 8.4 px
// with every such blob that was right (16 of 300 fresh photos: the project set, seeds 6 and
// 10-13, 280 rendered pale desks), and on the real photo docscan_doc-3 (3 sides found) it
// put the booklet's side on its edge where the blob's ran along a page 20 px inside. A blob
// whose outline merely strays from the paper/table edge (support) is not in doubt: on
// breta_page01 (support 0.85) GrabCut's side took in the sheet's shadow, 97 px out.
func (g *grabCutSheet) disagrees(r *region, found int, q [4]pt) bool {
	if r.sideFit >= 0.9 && found == 4 {
		return false
	}
	_, gq, ok := g.sheet()
	if !ok {
		return false
	}
	diag := math.Max(dist(q[0], q[2]), dist(q[1], q[3]))
	for _, c := range q {
		near := math.Inf(1)
		for _, d := range gq {
			near = math.Min(near, dist(c, d))
		}
		if near >= 0.01*diag {
			return true
		}
	}
	return false
}

// photoQuad is r's quadrilateral in photo px.
func (l *located) photoQuad(r *region) [4]pt {
	var q [4]pt
	for i := range q {
		q[i] = l.toPhoto(r.quad[i])
	}
	return q
}

// sidesAreSteps reports whether every side of q (photo px) is a colour step of at least
// minFallbackStep (minSideStep).
func sidesAreSteps(bgr gocv.Mat, q [4]pt) bool {
	return minSideStep(u8view(bgr), bgr.Cols(), bgr.Rows(), q) >= minFallbackStep
}

// minFallbackStep: each side of a sheet Fresh finds (by the colour models, splitSheet, GrabCut
// or locateEdges) must show at least this median colour step (|dB|+|dG|+|dR| between 5 px
// outside and 5 px inside). A side GrabCut drew across the paper (seed 2 case-015 hana-0.jpg,
// a third of the sheet given to the table) has 3; the colour models' blobs that ran over a
// bright patch of pale desk (held-out seeds 6, 8, 9, 10: chidi-0, ines-0, dana-0, hana-0,
// corners 90-300 px off) 3-10. The sheets Fresh finds in the 170 fresh photos of the nine
// synthetic sets (TestFreshCornersDiag: every corner within 0.5% of the diagonal) have 49 or
// more, on the real photos 16 or more (breta_test5; white on white 38).
const minFallbackStep = 15

// minSideStep is the smallest, over the sides of q (photo px), of the median colour step
// across the side: |dB|+|dG|+|dR| between the pixels 5 px outside and 5 px inside, at 39
// points along its middle 80%. A side whose outside point leaves the photo is skipped (a
// large value).
func minSideStep(bgr []byte, w, h int, q [4]pt) float64 {
	c := pt{(q[0].X + q[1].X + q[2].X + q[3].X) / 4, (q[0].Y + q[1].Y + q[2].Y + q[3].Y) / 4}
	mn := math.Inf(1)
	for s := 0; s < 4; s++ {
		a, b := q[s], q[(s+1)%4]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(dx, dy)
		if l < 1 || len(bgr) < 3*w*h {
			continue
		}
		nx, ny := -dy/l, dx/l
		if ((a.X+b.X)/2-c.X)*nx+((a.Y+b.Y)/2-c.Y)*ny < 0 {
			nx, ny = -nx, -ny
		}
		var ds []float64
		for k := 1; k < 40; k++ {
			f := 0.1 + 0.8*float64(k)/40
			p := pt{a.X + f*dx, a.Y + f*dy}
			o, i := pt{p.X + 5*nx, p.Y + 5*ny}, pt{p.X - 5*nx, p.Y - 5*ny}
			if o.X < 0 || o.Y < 0 || o.X >= float64(w) || o.Y >= float64(h) || i.X < 0 || i.Y < 0 || i.X >= float64(w) || i.Y >= float64(h) {
				continue
			}
			oi, ii := 3*(int(o.Y)*w+int(o.X)), 3*(int(i.Y)*w+int(i.X))
			d := 0.0
			for ch := 0; ch < 3; ch++ {
				d += math.Abs(float64(bgr[oi+ch]) - float64(bgr[ii+ch]))
			}
			ds = append(ds, d)
		}
		if len(ds) < 10 {
			continue
		}
		sort.Float64s(ds)
		mn = math.Min(mn, ds[len(ds)/2])
	}
	return mn
}

// splitOpenings are the opening diameters (work px, at workLong) splitSheet tries.
var splitOpenings = []int{9, 15, 21}

// splitSheet retries pickSheet on the colour mask opened with growing disks: paper joined to
// a pale patch of table by necks a few pixels wide (the sheet's edge shadow broken into
// dashes) is one blob whose quadrilateral fails, and is a sheet once the necks are cut.
// Only blobs meeting the same tests as pickSheet's (quadrilateral, filled, its outline a
// paper/table edge) and accept (when not nil) are taken; radius (work px) is the opening
// disk's, about how far the opened outline may lie from the sheet's (seed 3 case-007 ann-0:
// a corner 6.6 work px off, which refineQuad's usual 2 px reach left 16 photo px off). The
// returned located holds the opened mask.
func splitSheet(loc *located, accept func(l *located, r *region, radius float64) bool) (*located, *region, error) {
	err := ErrNoSheet
	for _, d := range splitOpenings {
		m := newMask(loc.w, loc.h, loc.mask)
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(d, d))
		gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
		k.Close()
		l2 := *loc
		l2.mask = m.ToBytes()
		l2.regions = findRegions(m, l2.mask, loc.w, loc.h, true)
		m.Close()
		r, e := pickSheet(&l2)
		if e == nil && accept != nil && !accept(&l2, r, float64(d)/2) {
			e = ErrNoSheet
		}
		if e == nil {
			return &l2, r, nil
		}
		err = e
	}
	return nil, nil, err
}

// sizable reports whether region r of l is of a sheet's size: at least 3% of the work image
// and not (nearly) all of it.
func (l *located) sizable(r *region) bool {
	a := float64(l.w * l.h)
	return r.area >= 0.03*a && r.area < 0.98*a
}

// sheetRegions are the located regions that look like a whole sheet (sheetLike) and are
// between 3% and 98% of the photo, largest first.
func sheetRegions(l *located) []*region {
	var sheets []*region
	for i := range l.regions {
		r := &l.regions[i]
		if l.sizable(r) && r.sheetLike() {
			sheets = append(sheets, r)
		}
	}
	return sheets
}

// severalSheets is ErrSeveralSheets when a second sheet-like region is over 30% of the
// largest's area: which one is the player's sheet cannot be told, and registration would
// take whichever matches the fresh sheet's writing best (another copy of the untorn sheet
// made a torn sheet read as nothing removed).
func severalSheets(sheets []*region) error {
	if len(sheets) > 1 && sheets[1].area > 0.3*sheets[0].area {
		return fmt.Errorf("%w: found %d", ErrSeveralSheets, len(sheets))
	}
	return nil
}

// severalSheetsIn is severalSheets for a photo located without quadrilaterals (Register's):
// they are fitted here, and only when a second region is large enough to matter.
func severalSheetsIn(l *located) error {
	var big []region
	for i := range l.regions {
		if l.sizable(&l.regions[i]) {
			big = append(big, l.regions[i])
		}
	}
	if len(big) < 2 || big[1].area <= 0.3*big[0].area {
		return nil
	}
	var sheets []*region
	for i := range big {
		big[i].fitQuad(l.mask, l.w, l.h)
		if big[i].tornSheetLike() {
			sheets = append(sheets, &big[i])
		}
	}
	return severalSheets(sheets)
}

// tornSheetLike: sheetLike, or a sheet with a bite out of it: its quadrilateral is mostly
// paper (a tester's two torn sample sheets side by side: fill 0.90, support 0.78; the
// untorn one 0.99 and 0.73) and most of its outline is an edge between paper and table.
func (r *region) tornSheetLike() bool {
	return r.sheetLike() || (r.quadOK && r.fill > 0.75 && r.support > 0.7)
}

// tornPaperIn reports whether l holds a region that looks like a sheet with part of it gone
// (a fitted quadrilateral at least 60% paper, 40% of its sides on the region's outline)
// rather than a whole sheet: Fresh says so when it finds no sheet, since a torn sheet given
// as the untorn one is a likely mistake (a tester: "no sheet of paper found" for a photo
// that plainly shows one). It only words the error; on the sample's torn photos fill is
// 0.84-0.92 and support 0.52-0.77. border reports that such a region runs into the image's
// edge (the frame, not a tear, may be what cuts it).
func tornPaperIn(l *located) (paper, border bool) {
	for i := range l.regions {
		r := &l.regions[i]
		if l.sizable(r) && r.quadOK && r.fill > 0.6 && r.support > 0.4 {
			paper, border = true, border || r.touches > 0
		}
	}
	return paper, border
}

// pickSheet chooses the sheet among the located regions or says why there is none. With
// ErrSheetCutOff it returns the sheet-like region the photo's edge cuts, if there is one.
func pickSheet(l *located) (*region, error) {
	sheets := sheetRegions(l)
	if len(sheets) == 0 {
		// A big paper-coloured blob with straight sides that runs into the frame's edge is a
		// sheet cut off by the frame.
		for i := range l.regions {
			r := &l.regions[i]
			if r.touches > 0 && l.sizable(r) && r.quadOK && r.sideFit > 0.7 {
				return nil, ErrSheetCutOff
			}
		}
		return nil, ErrNoSheet
	}
	if err := severalSheets(sheets); err != nil {
		return nil, err
	}
	r := sheets[0]
	if cutOff(r, l.w, l.h) {
		// The sheet comes with the error: a strip of table too thin for the work image
		// may lie between it and the photo's edge (sheetQuad looks at full resolution).
		return r, ErrSheetCutOff
	}
	return r, nil
}

// pickSheetIn is pickSheet for the photo bgr (full resolution) that l was located on, where a
// sheet-like blob that shows no colour step across some side inside the photo (minSideStep
// under deskPatchStep) is no sheet: a patch of table, or a part of the sheet cut from the
// rest by shade. On a pale desk a patch as bright as the paper, cut from the sheet by its
// shadow and bounded by the photo's edge, is a filled quadrilateral whose outline the mask
// supports (the photo's edge counts as outline): seed 20 case-067 lena-0 (of 120 cases), a
// third of the sheet's area, fill 0.927 and support 0.78 against sheetLike's 0.93 and 0.7,
// its sides across the desk steps of 3; a one-sheet photo of held-out seed 15 was refused as
// two sheets. Wholly inside the photo too: seed 20 case-003 jun-0's lit part of the sheet,
// half its area, fill 0.88, its side across the shaded paper a step of 3
// (TestFreshDeskPatchInsideNotSecondSheet). When every sheet-like blob is such, there is no sheet
// in the colour models (ErrNoSheet: Fresh's fallbacks look again, and a sheet they find must
// show steps all round); when one is left, it must have steps all round (sidesAreSteps) or
// the answer is ErrNoSheet too. Two sheets whose sides are steps are still ErrSeveralSheets.
func pickSheetIn(bgr gocv.Mat, l *located) (*region, error) {
	r, err := pickSheet(l)
	if !errors.Is(err, ErrSeveralSheets) {
		return r, err
	}
	l2 := *l
	l2.regions = nil
	for i := range l.regions {
		ri := &l.regions[i]
		if l.sizable(ri) && ri.sheetLike() && minSideStep(u8view(bgr), bgr.Cols(), bgr.Rows(), l.photoQuad(ri)) < deskPatchStep {
			continue // a sheet-like blob of table, or of shaded or lit paper
		}
		l2.regions = append(l2.regions, *ri)
	}
	if len(l2.regions) == len(l.regions) {
		return r, err
	}
	r2, err2 := pickSheet(&l2)
	switch {
	case errors.Is(err2, ErrSeveralSheets):
		return r, err
	case r2 == nil:
		return nil, err2
	case !sidesAreSteps(bgr, l2.photoQuad(r2)):
		return nil, ErrNoSheet
	}
	return r2, err2
}

// deskPatchStep: a sheet-like blob whose smallest colour step across a side (minSideStep) is
// under this is no sheet (pickSheetIn). The desk patch of seed 20 case-067 lena-0 has 3-4;
// every sheet Fresh finds has at least minFallbackStep (15), on 400 fresh photos 48 or more.
const deskPatchStep = 8

// cutOff reports a sheet running out of the frame: a corner outside the image, or part of a
// side lying along the image border. (A blob that merely touches the border, such as a
// reflection on the table next to the sheet, is not on the sheet's sides and does not count.)
func cutOff(r *region, w, h int) bool {
	for _, c := range r.quad {
		if c.X < -1 || c.Y < -1 || c.X > float64(w) || c.Y > float64(h) {
			return true
		}
	}
	if r.touches == 0 {
		return false
	}
	diag := math.Max(dist(r.quad[0], r.quad[2]), dist(r.quad[1], r.quad[3]))
	tol := math.Max(2, 0.01*diag)
	n := 0
	for _, p := range r.contour {
		if p.X > 3 && p.Y > 3 && p.X < float64(w-4) && p.Y < float64(h-4) {
			continue
		}
		for s := 0; s < 4; s++ {
			if segDist(p, r.quad[s], r.quad[(s+1)%4]) <= tol {
				n++
				break
			}
		}
	}
	return n >= 5
}

// orientQuad orders the four photo corners so that they correspond to sheet-frame
// (0,0),(W,0),(W,H),(0,H): clockwise on screen, long side on the paper's long side, "down"
// as close as possible to the photo's down.
func orientQuad(q [4]pt, paper template.Paper) [4]pt {
	if signedArea(q[:]) < 0 { // make it clockwise on screen (y down)
		q[1], q[3] = q[3], q[1]
	}
	W, H := paper.WidthMM, paper.HeightMM
	best, bestScore := q, math.Inf(-1)
	for k := 0; k < 4; k++ {
		var c [4]pt
		for i := 0; i < 4; i++ {
			c[i] = q[(i+k)%4]
		}
		top := dist(c[0], c[1]) + dist(c[3], c[2])
		left := dist(c[0], c[3]) + dist(c[1], c[2])
		score := 0.0
		if W != H && (top > left) != (W > H) {
			score -= 10 // long side on the wrong axis
		}
		down := lerp(c[3], c[2], 0.5).sub(lerp(c[0], c[1], 0.5))
		score += down.Y / down.norm()
		score -= 1e-6 * float64(k) * down.X / down.norm() // exact 90°: a fixed, documented choice
		if score > bestScore+1e-9 {
			best, bestScore = c, score
		}
	}
	return best
}

// warpToFrame warps a photo into the sheet frame given h (mm -> photo px), with margin mm
// of extra frame around the sheet on every side. Pixel (u, v) of the result is centred on
// ((u+0.5)/ppm - margin, (v+0.5)/ppm - margin) mm.
func warpToFrame(photo gocv.Mat, h homog, paper template.Paper, ppm, margin float64) gocv.Mat {
	sz := frameSize(paper, ppm)
	m := int(math.Round(margin * ppm))
	sz = sz.Add(image.Pt(2*m, 2*m))
	mat := frameMatrix(h, ppm, margin).mat()
	defer mat.Close()
	out := gocv.NewMat()
	gocv.WarpPerspectiveWithParams(photo, &out, mat, sz, gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderConstant, color.RGBA{})
	return out
}

// frameMatrix maps frame px (with a margin of margin mm) to photo px, given h (sheet mm ->
// photo px): the matrix warpToFrame warps with.
func frameMatrix(h homog, ppm, margin float64) homog {
	t := homog{1 / ppm, 0, 0.5/ppm - margin, 0, 1 / ppm, 0.5/ppm - margin, 0, 0, 1} // frame px -> mm
	return h.mul(t)
}

// mmToPx converts sheet-frame mm to frame pixel coordinates (pixel centres).
func mmToPx(p pt, ppm float64) pt { return pt{p.X*ppm - 0.5, p.Y*ppm - 0.5} }

// pxToMM converts frame pixel coordinates to sheet-frame mm.
func pxToMM(p pt, ppm float64) pt { return pt{(p.X + 0.5) / ppm, (p.Y + 0.5) / ppm} }

// freshOutline measures the fresh photo's own paper outline in the frame, by the test
// Register applies to later photos, as the reference for their untorn edges (a curled corner
// or bowed side is the same in every photo). Without colour models (GrabCut) there is none.
func freshOutline(s *SheetImage, bgr gocv.Mat, loc *located) {
	if loc == nil || loc.fg == nil || loc.bg == nil {
		return
	}
	var grid []pt // votes for the sheet's blob: the whole frame
	for y := 10.0; y < s.Paper.HeightMM; y += 20 {
		for x := 10.0; x < s.Paper.WidthMM; x += 20 {
			grid = append(grid, pt{x, y})
		}
	}
	s.refPending = true
	mask, img, _, _, _, _, _, _, err := paperMaskInFrame(bgr, loc, homog(s.H), s, grid, nil)
	s.refPending = false
	if err != nil {
		s.edgeRef = nil
		return
	}
	mask.Close()
	img.Close()
}
