package vision

import (
	"fmt"
	"image"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// Tear geometry.
//
// The removed region is the before-mask minus the after-mask, opened with a disk of
// SliverMM diameter: misregistration leaves slivers a fraction of a millimetre wide along the
// untorn edges, and no tear removes a strip that thin. Blobs smaller than MinPieceMM2 are
// then ignored as slivers (a 5 mm square; the template is 968 mm²). Missing paper within
// EdgeBandMM of the before-sheet's outer edge is what curled corners, bowed sides and
// registration leave along the outline: a blob counts as a piece only with a quarter of
// MinPieceMM2 deeper than that (a band close to it is a structured doubt). Missing paper
// along that edge that joins no piece, deeper than the registration explains, and that the
// photos show torn (paper before, not after) is a doubt about the pieces (lonestrip.go). A
// piece touches the outer edge when it comes within EdgeTouchMM of paper-less area of the
// before-sheet (the frame's own edge, or an earlier tear's edge).

const (
	// SliverMM is the width below which a strip of missing paper is registration noise.
	SliverMM = 1.5
	// MinPieceMM2 is the documented floor: removed blobs smaller than this are not pieces.
	MinPieceMM2 = 25.0
	// EdgeTouchMM is how close a piece must come to the before-sheet's outer edge.
	EdgeTouchMM = 1.5
	// EdgeBandMM is the band inside the before-sheet's outer edge where missing paper may be
	// curl or misregistration: a piece needs a quarter of MinPieceMM2 deeper than this (and
	// a band with a sixteenth of it that deep is a doubt).
	EdgeBandMM = 3.0
)

// TearResult is the geometry of one tear in the sheet frame. Close it.
type TearResult struct {
	Removed        gocv.Mat            // CV_8UC1, 255 = paper removed by this tear (pieces only)
	AreaMM2        float64             // area of the pieces
	Pieces         int                 // removed pieces of at least MinPieceMM2
	EdgeToEdge     bool                // every piece touches the before-sheet's outer edge
	PieceOutlines  [][]judge.Point     // mm, one closed outline per piece, largest first
	TearLines      [][]judge.Point     // mm, the new paper edges (piece outline not on the old edge)
	TemplateFits   bool                // the template fits inside one removed piece
	PiecePlacement *template.Placement // where it fits in that piece (nil if not)
	PaperFits      bool                // the template fits on the remaining paper
	PaperPlacement *template.Placement // where (nil if not)
	// MaybeMM2 is the area of paper this tear may or may not have removed, where a photo that
	// cut the sheet off did not show it (cutoff.go); 0 when both photos show the whole sheet.
	MaybeMM2    float64
	Measurement judge.Measurement // ready for the judge

	template template.Template // the template measured against, for Annotate
}

// Close releases the Removed mask.
func (r *TearResult) Close() error {
	if r != nil {
		closeMat(&r.Removed)
	}
	return nil
}

// Measure compares the sheet before a tear (the fresh sheet or the previous registered
// photo) with the sheet after it, both in the same sheet frame, and fills the TearResult and
// its judge.Measurement, including the state of every located letter of layouts. The caller
// closes the result.
func Measure(before, after *SheetImage, layouts []judge.SkillLayout, t template.Template) (*TearResult, error) {
	if before == nil || after == nil || before.Mask.Empty() || after.Mask.Empty() {
		return nil, fmt.Errorf("%w: missing sheet", ErrBadInput)
	}
	if before.Mask.Cols() != after.Mask.Cols() || before.Mask.Rows() != after.Mask.Rows() || before.PxPerMM != after.PxPerMM {
		return nil, fmt.Errorf("%w: before and after are not in the same sheet frame", ErrBadInput)
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%w: template: %v", ErrBadInput, err)
	}
	ppm := before.PxPerMM
	tr := tracer()
	w, h := before.Mask.Cols(), before.Mask.Rows()
	bm, am := before.Mask.ToBytes(), after.Mask.ToBytes()
	// A photo that cut the sheet off: its unknown region filled where the other sheet
	// decides, the rest "maybe" (kept in bm and am, measured apart: cutoff.go).
	maybe := partialMasks(before, after, bm, am)
	// Paper that only removed paper surrounds is not the sheet's (islands.go).
	if isl := fillIslands(bm, am, w, h); isl != nil {
		after.setMask(andNotMask(after.Mask.ToBytes(), isl))
	}
	tr("x.islands")

	raw := make([]byte, w*h)
	for i := range raw {
		if bm[i] != 0 && am[i] == 0 {
			raw[i] = 255
		}
	}
	rm := newMask(w, h, raw)
	defer rm.Close()
	d := int(math.Round(SliverMM * ppm))
	if d%2 == 0 {
		d++
	}
	// The opening rounds the pieces' corners: a piece's template fit allows for a disc this
	// large (mm; the kernel's radius and half a pixel for its digital outline).
	openedMM := (float64(d)/2 + 0.5) / ppm
	// Pad with non-paper before opening: OpenCV erodes as if the image went on past its
	// border, which would keep slivers lying along the sheet's outer edge.
	padded := gocv.NewMat()
	defer padded.Close()
	gocv.CopyMakeBorder(rm, &padded, d, d, d, d, gocv.BorderConstant, colorBlack)
	morph(&padded, d, 0)
	inner := padded.Region(image.Rect(d, d, d+w, d+h))
	inner.CopyTo(&rm)
	inner.Close()
	ob := rm.ToBytes()
	tr("x.open")

	// Near the before-sheet's outer edge: not paper before, or the frame's edge, dilated.
	outer := make([]byte, w*h)
	for y := 0; y < h; y++ {
		orow, brow := outer[y*w:(y+1)*w], bm[y*w:(y+1)*w]
		if y == 0 || y == h-1 {
			for x := range orow {
				orow[x] = 255
			}
			continue
		}
		orow[0], orow[w-1] = 255, 255
		for x, v := range brow {
			if v == 0 {
				orow[x] = 255
			}
		}
	}
	om := newMask(w, h, outer)
	defer om.Close()
	// Within SliverMM of it, for the connectivity below (the same pixels as nearOuter while
	// SliverMM equals EdgeTouchMM).
	var nearEdgeSliver []byte
	if es := 2*int(math.Round(SliverMM*ppm)) + 1; es != int(math.Round(2*EdgeTouchMM*ppm))|1 {
		sm := gocv.NewMat()
		ks := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(es, es))
		gocv.Dilate(om, &sm, ks)
		nearEdgeSliver = sm.ToBytes()
		ks.Close()
		sm.Close()
	}
	e := int(math.Round(2*EdgeTouchMM*ppm)) | 1
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
	gocv.Dilate(om, &om, k)
	k.Close()
	nearOuter := om.ToBytes()
	if nearEdgeSliver == nil {
		nearEdgeSliver = nearOuter
	}
	tr("x.outer")

	// Connectivity comes from the raw difference closed by the sliver width: paper thinner
	// than that between two removed parts (ink strokes that matched a dark table) does not
	// make two pieces, nor does an opening that cuts a piece's narrow neck inside the sheet.
	// But a strip of missing paper thinner than the sliver width along the before-sheet's
	// outer edge (the frame's edge or an earlier tear's: within SliverMM of it, gone in the
	// opening) is what misregistration leaves all along that edge: farther than EdgeNeckMM
	// from the opened removed paper it joins nothing, or two pieces far apart along the same
	// edge would be measured as one (edgeStripJoins makes a doubt of such a strip deeper
	// than the registration explains). A short one is a piece's neck where its tear line
	// passes close to the edge (edgeNeck).
	conn := make([]byte, w*h)
	var cand []int // raw pixels of thin strips along the outer edge
	for i, v := range raw {
		if v == 0 {
			continue
		}
		if ob[i] != 0 || nearEdgeSliver[i] == 0 {
			conn[i] = 255
		} else {
			cand = append(cand, i)
		}
	}
	strip := edgeNeck(cand, conn, ob, w, h, int(math.Round(EdgeNeckMM*ppm))) // left out
	rawM := newMask(w, h, conn)
	defer rawM.Close()
	morph(&rawM, 0, d)
	tr("x.conn")

	// Pieces are the connected parts of the raw difference (an opening can cut a piece's
	// narrow neck in two); each keeps only its pixels that survived the opening, and counts
	// when those reach MinPieceMM2.
	// (Labelled as OpenCV's ConnectedComponentsWithParams labels them, 8-connected, from
	// the row runs: maskRuns.)
	lb, n := newMaskRuns(u8view(rawM), w, h, true).labels(w, h, true)
	areas := make([]int, n)
	for i, v := range ob {
		if v != 0 {
			areas[lb[i]]++
		}
	}
	type piece struct {
		label int
		area  int
	}
	// Depth of every pixel below the before-sheet's outer edge (its paper-less area or the
	// frame's edge). A strip along that edge is what a curled corner, a bowed side or a
	// fraction of a millimetre of misregistration leaves: a piece counts only when enough of
	// it lies deeper than EdgeBandMM.
	band := float32(EdgeBandMM * ppm)
	minPx := int(MinPieceMM2 * ppm * ppm)
	// The depth is measured around the removed pixels only (outerDepthNear): exact up to
	// depthReach, which settles every piece (the band is far shallower); a strip whose depth
	// is reported (below) and reaches deeper than that is measured again on the whole frame.
	depthReach := max(4*band, float32(12*ppm))
	depth := outerDepthNear(bm, ob, w, h, int(math.Ceil(float64(depthReach))))
	core := make([]int, n)
	maxDepth := make([]float32, n)
	depthPass := func() {
		clear(core)
		clear(maxDepth)
		for i, v := range ob {
			if v != 0 {
				l := lb[i]
				d := depth(i%w, i/w)
				if d > band {
					core[l]++
				}
				if d > maxDepth[l] {
					maxDepth[l] = d
				}
			}
		}
	}
	depthPass()
	tr("x.depth")
	for i := 1; i < n; i++ {
		if areas[i] >= minPx && 4*core[i] < minPx && 16*core[i] >= minPx && maxDepth[i] > depthReach {
			depth = outerDepth(bm, w, h)
			depthPass()
			break
		}
	}
	var pieces []piece
	var bandDoubt []string
	inBandDoubt := make([]bool, n)
	bandPx := 0
	for i := 1; i < n; i++ {
		switch {
		case areas[i] >= minPx && 4*core[i] >= minPx:
			pieces = append(pieces, piece{i, areas[i]})
		case areas[i] >= minPx && 16*core[i] >= minPx:
			inBandDoubt[i] = true
			bandDoubt = append(bandDoubt, fmt.Sprintf("%.0f mm² up to %.1f mm deep", float64(areas[i])/(ppm*ppm), float64(maxDepth[i])/ppm))
		default:
			bandPx += areas[i]
		}
	}
	// Largest first; ties by label (deterministic).
	for i := 1; i < len(pieces); i++ {
		for j := i; j > 0 && pieces[j].area > pieces[j-1].area; j-- {
			pieces[j], pieces[j-1] = pieces[j-1], pieces[j]
		}
	}
	res := &TearResult{Pieces: len(pieces), EdgeToEdge: len(pieces) > 0, template: t}
	keep := make([]int, n) // label -> piece index, or -1
	for i := range keep {
		keep[i] = -1
	}
	for i, p := range pieces {
		keep[p.label] = i
		res.AreaMM2 += float64(p.area) / (ppm * ppm)
	}
	// Specks of "no paper" that only paper surrounds are paper (islands.go).
	if sp := fillSpecks(bm, am, nearOuter, lb, keep, areas, n, minPx, w, h); sp != nil && after != before {
		after.setMask(orMask(after.Mask.ToBytes(), sp))
	}
	tr("x.specks")
	// The after mask is final from here: the template's fit on the paper left on the other
	// core, while the pieces are measured (it reads after.Mask, which nothing below writes).
	var paperFit FitResult
	var paperFitErr error
	paperFitDone := make(chan struct{})
	go func() {
		defer close(paperFitDone)
		paperFit, paperFitErr = FitTemplateDetail(after.Mask, ppm, t)
	}()
	defer func() { <-paperFitDone }() // after.Mask is read until then, whatever the way out
	resid := math.Max(before.ResidualMM, after.ResidualMM)
	joined := edgeStripJoins(strip, bm, conn, ob, lb, keep, w, h, d, float32((resid+SliverStepMM)*ppm), ppm)
	tr("x.joins")
	// Missing paper along the outer edge that joins no piece, lies deeper than the
	// registration explains and that the photos show torn: a small piece or a thin strip
	// torn off there (lonestrip.go).
	lone := loneDoubts(before, after, raw, bm, am, lb, keep, inBandDoubt, w, h, resid)
	tr("x.lone")
	removed := make([]byte, w*h)
	touch := make([]bool, len(pieces))
	boxes := make([]image.Rectangle, len(pieces)) // of each piece's pixels near the outer edge
	spans := make([][2]int, len(pieces))          // first and last+1 pixel index of each piece
	for i, v := range ob {
		if v == 0 {
			continue
		}
		if pi := keep[lb[i]]; pi >= 0 {
			removed[i] = 255
			if spans[pi][1] == 0 {
				spans[pi][0] = i
			}
			spans[pi][1] = i + 1
			if nearOuter[i] != 0 {
				touch[pi] = true
				boxes[pi] = boxes[pi].Union(image.Rect(i%w, i/w, i%w+1, i/w+1))
			}
		}
	}
	for _, tch := range touch {
		res.EdgeToEdge = res.EdgeToEdge && tch
	}
	// A piece the masks show touching the edge, where the photo shows paper between them
	// (contactSeen): a hole beside the edge or a tear to it, too close to call.
	var unseen []string
	var img, bimg []byte // the photos' BGR bytes, when needed
	if len(pieces) > 0 {
		img, bimg = sheetBGR(after, w, h), sheetBGR(before, w, h)
	}
	for pi, tch := range touch {
		if !tch {
			continue
		}
		if !contactSeen(img, int32(pieces[pi].label), lb, raw, ob, bm, am, boxes[pi], w, h, ppm) {
			unseen = append(unseen, fmt.Sprintf("%.0f mm²", float64(pieces[pi].area)/(ppm*ppm)))
		}
	}
	covered := coveredPieces(after.foreign, ob, lb, keep, len(pieces), w, ppm)
	tr("x.contact")
	res.Removed = newMask(w, h, removed)
	if after != before {
		after.tornHere = removed
	}
	res.AreaMM2 = math.Round(res.AreaMM2*10) / 10

	m := &res.Measurement
	m.RemovedAreaMM2 = res.AreaMM2
	m.Pieces = res.Pieces
	m.EdgeToEdge = res.EdgeToEdge

	// Outlines and tear lines, and the template in each piece.
	var same, shown, holes []string
	var paperLike []string // pieces at the sheet's edge that look like the paper around them
	var unbounded []string // pieces at the sheet's edge with no tear line seen
	var missed []byte      // the pieces in shown and holes: paper the after mask may have missed (missed.go)
	var ink []byte         // inkZone of the fresh sheet, for sameLook and holeLooksLikePaper
	if len(pieces) > 0 && img != nil {
		ink = sheetInkZone(before, w, h, ppm) // a registered sheet carries the fresh one's
	}
	for pi, p := range pieces {
		pm := make([]byte, w*h)
		box := image.Rectangle{Min: image.Pt(w, h)}
		for i := spans[pi][0]; i < spans[pi][1]; i++ { // (the piece's rows only)
			if int(lb[i]) == p.label && ob[i] != 0 {
				pm[i] = 255
				x, y := i%w, i/w
				box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
				box.Max.X, box.Max.Y = max(box.Max.X, x+1), max(box.Max.Y, y+1)
			}
		}
		pmat := newMask(w, h, pm)
		// A piece the photo before showed as the after photo does (not paper): the before
		// mask took the table for paper there (sameLook), nothing was torn off. Unless the
		// photo before shows the fresh sheet's writing on it (inkShownCheck): then it was
		// paper, only shaded like the table's colour (held-out seed 11 case-019 kofi-3: a
		// corner with two words, 11% darker than the paper around it in kofi-2, a pale desk
		// 15% darker in kofi-3).
		if sameLook(bimg, img, bm, am, ink, pm, box, w, h, ppm, 'a') && !writingShown(before, bimg, pm, box, w, h, ppm) {
			c := box.Min.Add(box.Max).Div(2)
			same = append(same, fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm", float64(p.area)/(ppm*ppm), float64(c.X)/ppm, float64(c.Y)/ppm))
		}
		// A hole that looks like the paper around it (holelook.go). Of several pieces, one at
		// the sheet's edge that does may be paper the mask missed too (a shaded corner on a
		// pale desk: held-out seed 10 case-003 noor-1, 460 mm² beside a 62 mm² piece, ruled
		// several_pieces for certain), or a table the paper's colour: only the count of
		// pieces is in doubt, the removal measured stands.
		if (!touch[pi] || len(pieces) >= 2) && img != nil {
			if ok, c := holeLooksLikePaper(img, am, ink, pm, box, w, h, ppm); ok {
				at := box.Min.Add(box.Max).Div(2)
				desc := fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm: colour within %.0f%% of it", float64(p.area)/(ppm*ppm), float64(at.X)/ppm, float64(at.Y)/ppm, 100*c)
				if touch[pi] {
					paperLike = append(paperLike, desc)
				} else {
					holes = append(holes, desc)
					missed = addPiece(missed, pm)
				}
			}
		}
		// A piece at the sheet's edge with no tear line seen inside the sheet, on a pale
		// table: shade the mask missed along the edge (shadehole.go).
		if touch[pi] && img != nil && tearLineUnseen(after, pm, bm, ink, box) {
			c := box.Min.Add(box.Max).Div(2)
			unbounded = append(unbounded, fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm", float64(p.area)/(ppm*ppm), float64(c.X)/ppm, float64(c.Y)/ppm))
			// Unknown on the after-sheet (markMissed), not "no paper" for certain: the next
			// tear's photo decides it. Held-out seed 17 case-015 dana-1: a 479 mm² piece of
			// shade so doubted was gone from dana-2's "before", which took 522 mm² off the
			// next tear's corner; the template no longer fitted in what was left of it, and
			// piece_too_small was ruled for certain (truth: valid).
			missed = addPiece(missed, pm)
		}
		// A piece that still shows the fresh sheet's writing or ruling is paper the after
		// mask missed (inkshown.go).
		if img != nil {
			if ok, inkMM2, frac := inkShownCheck(freshGray(before), img, pm, box, w, h, ppm); ok {
				c := box.Min.Add(box.Max).Div(2)
				shown = append(shown, fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm: %.0f%% of its %.0f mm² of writing or ruling", float64(p.area)/(ppm*ppm), float64(c.X)/ppm, float64(c.Y)/ppm, 100*frac, inkMM2))
				missed = addPiece(missed, pm)
			}
		}
		outline, tears := pieceOutline(pmat, nearOuter, w, ppm)
		res.PieceOutlines = append(res.PieceOutlines, outline)
		res.TearLines = append(res.TearLines, tears...)
		if !res.TemplateFits {
			fr, err := fitTemplateWithin(pmat, ppm, t, box, openedMM)
			if err == nil {
				if fr.Fits {
					res.TemplateFits = true
					pl := fr.Placement
					res.PiecePlacement = &pl
				}
				if fr.Near {
					m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutTemplateFits,
						Text: fmt.Sprintf("template fit within %g mm of a removed piece's size", NearFitMM)})
				}
			}
		}
		pmat.Close()
	}
	m.TemplateFits = res.TemplateFits
	tr("x.pieces")

	<-paperFitDone
	fr, err := paperFit, paperFitErr
	if err != nil {
		res.Close()
		return nil, err
	}
	res.PaperFits = fr.Fits
	if fr.Fits {
		pl := fr.Placement
		res.PaperPlacement = &pl
	}
	if fr.Near {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPaperFits,
			Text: fmt.Sprintf("template fit within %g mm of the remaining paper's size", NearFitMM)})
	}
	m.PaperFitsTemplate = res.PaperFits
	tr("x.paperfit")
	if maybe != nil {
		where := maybeWhere(before, maybe)
		mo := partialDoubts(res, maybe, bm, removed, nearOuter, touch, lb, keep, w, h, ppm, where)
		if !res.TemplateFits && res.Pieces > 0 && mayFitWith(removed, mo, w, h, ppm, t) {
			// The template might fit once the maybe paper beside the pieces is added.
			m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutTemplateFits,
				Text: "the template may fit in a removed piece together with paper lost " + where})
		}
		if !res.PaperFits && len(after.unknown) == w*h && mayFitWith(after.Mask.ToBytes(), after.unknown, w, h, ppm, t) {
			m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPaperFits,
				Text: "the template may fit on the remaining paper where the photo cut the sheet off"})
		}
	}

	if resid > DoubtResidualMM {
		m.Doubts = append(m.Doubts, fmt.Sprintf("registration residual %.2f mm", resid))
	}
	var ai afterInk // what the after photo shows of the ink (letterSeenFrac, inkGone)
	if len(layouts) > 0 {
		ai = newAfterInk(after)
	}
	if maybe != nil {
		m.Letters = partialLetters(before, maybe, bm, am, removed, ai, w, h, layouts, resid)
	} else {
		m.Letters = letterStates(before, bm, am, removed, ai, w, h, layouts, resid)
	}
	placed := placementDoubt(m.Letters, layouts)
	applyHistory(before, after, m.Letters, placed)
	tr("x.letters")
	// Letters too close to call are explained by the judge's notes (judge.Rule), not here.
	for _, b := range bandDoubt {
		about := judge.AboutPieces
		if res.Pieces == 0 {
			about = judge.AboutRemoved
		}
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: about,
			Text: fmt.Sprintf("missing paper along the sheet's edge (%s): torn off, or the sheet curling or misaligned there", b)})
	}
	if len(lone) > 0 {
		about := judge.AboutPieces
		if res.Pieces == 0 {
			about = judge.AboutRemoved
		}
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: about,
			Text: fmt.Sprintf("missing paper along the sheet's edge apart from the pieces counted (%s), deeper than the registration residual explains: a small piece or a thin strip torn off along the edge, or the sheet misaligned there", strings.Join(lone, "; "))})
	}
	if a := float64(bandPx) / (ppm * ppm); a >= 1 {
		m.Notes = append(m.Notes, fmt.Sprintf("%.0f mm² of missing paper in specks or strips along the sheet's edge ignored (curl, registration): pieces below %g mm² (or with under a quarter of that deeper than %g mm inside the sheet's edge) and strips under %g mm wide are not counted", a, MinPieceMM2, EdgeBandMM, SliverMM))
	}
	tr("x.misc")
	if parts := paperParts(bm, am, removed, img, w, h, ppm); parts != "" {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
			Text: "the paper left is in several parts (" + parts + ") and the photo shows the smaller ones like the table seen where paper was removed: the paper mask may have taken the table for paper there"})
	}
	if len(same) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
			Text: fmt.Sprintf("removed piece (%s) looks the same in the photo before this tear as in this one, not like paper: the photo before may have had no paper there (its paper mask taking the table for paper)", strings.Join(same, "; "))})
	}
	if len(shown) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
			Text: fmt.Sprintf("removed piece (%s) still shows the fresh sheet's writing or ruling in this photo: it may be paper the paper mask missed", strings.Join(shown, "; "))})
	}
	if len(holes) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
			Text: fmt.Sprintf("removed piece (%s) touches no edge of the sheet and this photo shows it like the paper around it, not like the table: it may be paper the paper mask missed (shade)", strings.Join(holes, "; "))})
	}
	if len(unbounded) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutRemoved,
			Text: fmt.Sprintf("removed piece (%s) reaches the sheet's edge, but this photo shows no tear line bounding it inside the sheet, only smooth shading: it may be shaded paper the paper mask missed", strings.Join(unbounded, "; "))})
	}
	if len(pieces) >= 2 && len(pieces)-len(paperLike)-len(holes) < 2 && len(paperLike) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPieces,
			Text: fmt.Sprintf("removed piece (%s) reaches the sheet's edge, but this photo shows it in the colour of the paper around it: paper the paper mask missed (shade), or a table the paper's colour, so it may not be a second piece", strings.Join(paperLike, "; "))})
	}
	if len(unseen) > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutEdgeToEdge,
			Text: fmt.Sprintf("removed piece (%s) meets the sheet's edge only where the photo shows paper-coloured pixels between them, a strip too thin for the paper mask: a hole beside the edge, or torn to it", strings.Join(unseen, ", "))})
	}
	if joined > 0 {
		m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPieces,
			Text: fmt.Sprintf("removed pieces joined only by a strip of missing paper along the sheet's edge, narrower than %g mm but %.2f mm deep (more than the registration residual explains): one piece torn along the edge, or the sheet misaligned there", SliverMM, joined)})
	}
	if len(pieces) >= 2 {
		labels := make([]int, len(pieces))
		for i, p := range pieces {
			labels[i] = p.label
		}
		if g := pieceGapDoubt(lb, labels, am, w, h, ppm, resid); g != "" {
			m.Uncertain = append(m.Uncertain, judge.Doubt{About: judge.AboutPieces, Text: g})
		}
	}
	tr("x.parts")
	m.Uncertain = append(m.Uncertain, tableCutDoubts(before, after, res)...)
	if covered != "" {
		m.Refused = covered
	}
	if before.greyImage() || after.greyImage() {
		m.Doubts = append(m.Doubts, "a photo is greyscale: paper was told from the table by brightness alone (shaded paper and a pale table grain look alike)")
	}
	if after != before {
		// A line across the paper that the fresh sheet does not have: the seam between the
		// sheet and loose paper lying against it (seam.go).
		if s := looseSeam(seamLines(seamRef(before, w, h, ppm), after.Image, bm, after.Mask.ToBytes(), w, h, ppm)); s != nil {
			m.Doubts = append(m.Doubts, fmt.Sprintf("the photo shows a line across the paper at (%.0f, %.0f) mm, %.0f mm long, that the fresh sheet does not have: loose paper (the torn piece laid back against the sheet?) may lie where the paper mask sees the sheet", s.at.X/ppm, s.at.Y/ppm, s.lengthMM))
		}
		tr("x.seam")
	}
	if missed != nil && after != before {
		markMissed(before, after, missed, bm, am, removed, ai, w, h, layouts, resid, m.Letters)
	}
	tr("x.end")
	return res, nil
}

// paperPartsOpenMM is the width of the strips of paper that join nothing in paperParts: the
// 2 mm band along the sheet's edge where Register's mask takes paper from either test, and a
// pixel.
const paperPartsOpenMM = 2.5

// paperParts describes the parts of the paper left (on both masks bm and am, w x h) apart
// from the largest that are at least RegrownMinMM2 and that the after photo (img: BGR
// bytes) shows like the table seen through the removed paper (removed) nearby, not like the
// paper of the largest part nearby; "" when there is none. A torn sheet stays in one piece
// unless a tear splits it; a part cut off from the rest that looks like the table is the
// mask taking the table for paper (seen on an independent synthetic set, seed 4: a strip of
// table beside a torn-off side, joined to the sheet only through the mask's 2 mm band along
// the frame's edge).
func paperParts(bm, am, removed, img []byte, w, h int, ppm float64) string {
	if len(img) != 3*w*h {
		return ""
	}
	both := make([]byte, w*h)
	for i := range both {
		if bm[i] != 0 && am[i] != 0 {
			both[i] = 255
		}
	}
	// At half resolution (the parts that matter are 100 mm² and more), opened by
	// paperPartsOpenMM (padded with non-paper, as in Measure): strips of "paper" along the
	// frame's edge (Register's mask calls its 2 mm band paper by either test, so on a pale
	// table the table there) or a tear join nothing.
	src := newMask(w, h, both)
	defer src.Close()
	hw, hh := (w+1)/2, (h+1)/2
	half := gocv.NewMat()
	defer half.Close()
	gocv.Resize(src, &half, image.Pt(hw, hh), 0, 0, gocv.InterpolationArea)
	gocv.Threshold(half, &half, 127, 255, gocv.ThresholdBinary)
	d := int(math.Round(paperPartsOpenMM*ppm/2)) | 1
	opened := openedPadded(half, d)
	defer opened.Close()
	if newMaskRuns(u8view(opened), opened.Cols(), opened.Rows(), true).parts() <= 1 {
		return "" // the paper left in one part (the usual case): no labels needed
	}
	pp := partsOf(opened)
	defer pp.Close()
	labels, stats, cents, n := pp.labels, pp.stats, pp.cents, pp.n
	if n <= 2 {
		return ""
	}
	area := func(i int) int { return 4 * int(stats.GetIntAt(i, int(gocv.CC_STAT_AREA))) } // full-resolution px
	best := 1
	for i := 2; i < n; i++ {
		if area(i) > area(best) {
			best = i
		}
	}
	lb := int32s(labels)
	pw := hw + 2*d
	label := func(x, y int) int32 { return lb[(y/2+d)*pw+x/2+d] }
	var parts []string
	for i := 1; i < n; i++ {
		a := float64(area(i)) / (ppm * ppm)
		if i == best || a < RegrownMinMM2 {
			continue
		}
		// The part, the removed paper (table) and the largest part's paper (paper) within
		// 8 mm of the part's box (or farther, up to 32 mm, while too few), in the after photo.
		x0, y0 := 2*(int(stats.GetIntAt(i, int(gocv.CC_STAT_LEFT)))-d), 2*(int(stats.GetIntAt(i, int(gocv.CC_STAT_TOP)))-d)
		box := image.Rect(x0, y0, x0+2*int(stats.GetIntAt(i, int(gocv.CC_STAT_WIDTH))), y0+2*int(stats.GetIntAt(i, int(gocv.CC_STAT_HEIGHT))))
		var hp, ht, hm [3][256]int
		np, nt, nm := 0, 0, 0
		minPx := int(MinPieceMM2 * ppm * ppm)
		for _, g := range []float64{8, 16, 32} {
			hp, ht, hm = [3][256]int{}, [3][256]int{}, [3][256]int{}
			np, nt, nm = 0, 0, 0
			r := box.Inset(-int(g * ppm)).Intersect(image.Rect(0, 0, w, h))
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					j := y*w + x
					var hist *[3][256]int
					switch l := label(x, y); {
					case l == int32(i):
						hist = &hp
						np++
					case l == int32(best):
						hist = &hm
						nm++
					case removed[j] != 0:
						hist = &ht
						nt++
					default:
						continue
					}
					for c := 0; c < 3; c++ {
						hist[c][img[3*j+c]]++
					}
				}
			}
			if nm >= minPx && nt >= minPx {
				break
			}
		}
		if np < minPx || nt < minPx || nm < minPx {
			continue // nothing to compare with: the masks stand
		}
		var P, T, M [3]float64
		for c := 0; c < 3; c++ {
			P[c], T[c], M[c] = histMedian(&hp[c], np), histMedian(&ht[c], nt), histMedian(&hm[c], nm)
		}
		dist := func(u, v [3]float64) float64 {
			return math.Sqrt((u[0]-v[0])*(u[0]-v[0]) + (u[1]-v[1])*(u[1]-v[1]) + (u[2]-v[2])*(u[2]-v[2]))
		}
		if dist(M, T) < contactMinSep || dist(P, T) >= sameLookFrac*dist(P, M) {
			continue // paper and table alike, or the part looks like paper
		}
		parts = append(parts, fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm", a, 2*(cents.GetDoubleAt(i, 0)-float64(d)+0.5)/ppm, 2*(cents.GetDoubleAt(i, 1)-float64(d)+0.5)/ppm))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f mm² and %s", float64(area(best))/(ppm*ppm), strings.Join(parts, ", "))
}

// EdgeNeckMM: a strip of missing paper thinner than SliverMM along the before-sheet's outer
// edge joins removed paper only within this distance of it (measured along the strip), so a
// neck up to twice as long joins the two parts of a piece whose tear line passes close to
// the edge (seen on an independent synthetic set, seed 4: a 0.5 mm neck 2.5 mm long along
// an earlier tear's edge), while the slop strips that misregistration leaves along a whole
// side do not join pieces farther apart.
const EdgeNeckMM = 5.0

// edgeNeck adds to conn the pixels of cand (raw removed pixels in thin strips along the
// outer edge) within reach px, stepping through cand pixels (8-neighbours), of an opened
// removed pixel (ob), and returns the rest of cand: the strip pixels left out of the
// connectivity.
func edgeNeck(cand []int, conn, ob []byte, w, h, reach int) []int {
	if len(cand) == 0 {
		return nil
	}
	dist := make(map[int]int, len(cand))
	for _, i := range cand {
		dist[i] = -1
	}
	var q []int
	for _, i := range cand {
		x, y := i%w, i/w
	seed:
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				xx, yy := x+dx, y+dy
				if xx >= 0 && yy >= 0 && xx < w && yy < h && ob[yy*w+xx] != 0 {
					dist[i] = 0
					q = append(q, i)
					break seed
				}
			}
		}
	}
	for len(q) > 0 {
		i := q[0]
		q = q[1:]
		d := dist[i]
		if d >= reach {
			continue
		}
		x, y := i%w, i/w
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				xx, yy := x+dx, y+dy
				if xx < 0 || yy < 0 || xx >= w || yy >= h {
					continue
				}
				j := yy*w + xx
				if dj, ok := dist[j]; ok && dj < 0 {
					dist[j] = d + 1
					q = append(q, j)
				}
			}
		}
	}
	var rest []int
	for _, i := range cand {
		if dist[i] >= 0 {
			conn[i] = 255
		} else {
			rest = append(rest, i)
		}
	}
	return rest
}

// SliverStepMM is the mask's step (a pixel at 4 px/mm) allowed beyond the registration
// residual before a strip of missing paper along the sheet's edge is more than
// misregistration.
const SliverStepMM = 0.25

// edgeStripJoins returns the depth (mm) of the deepest strip joining two pieces, or 0.
// strip holds the raw removed pixels Measure left out of the connectivity (within SliverMM
// of the before-sheet's outer edge, bm its paper mask, and gone in the opening), conn the
// connectivity source without them, lb its labels after the closing (diameter d), ob the
// opened removed mask and keep the piece index of each label. A strip no deeper than
// explained (px: the registration residual and a step) is misregistration; a deeper one
// joining two pieces may be paper torn along the edge, which makes them one piece: a doubt.
func edgeStripJoins(strip []int, bm, conn, ob []byte, lb []int32, keep []int, w, h, d int, explained float32, ppm float64) float64 {
	np := 0
	for _, k := range keep {
		if k >= 0 {
			np++
		}
	}
	if np < 2 || len(strip) == 0 {
		return 0
	}
	sm := make([]byte, w*h)
	for _, i := range strip {
		sm[i] = 255
	}
	depth := outerDepthNear(bm, sm, w, h, int(math.Ceil(SliverMM*ppm))+2)
	withDeep := append([]byte(nil), conn...)
	deepest := float32(0)
	for _, i := range strip {
		if z := depth(i%w, i/w); z > explained {
			withDeep[i] = 255
			deepest = max(deepest, z)
		}
	}
	if deepest == 0 {
		return 0
	}
	m := newMask(w, h, withDeep)
	defer m.Close()
	morph(&m, 0, d)
	labels := gocv.NewMat()
	defer labels.Close()
	n := gocv.ConnectedComponentsWithParams(m, &labels, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	wl := int32s(labels)
	first := make([]int, n) // joined label -> first piece index seen + 1
	for i, v := range ob {
		if v == 0 {
			continue
		}
		pi := keep[lb[i]]
		if pi < 0 {
			continue
		}
		switch f := first[wl[i]]; {
		case f == 0:
			first[wl[i]] = pi + 1
		case f != pi+1:
			return math.Round(float64(deepest)/ppm*100) / 100
		}
	}
	return 0
}

// pieceOutline returns a piece's outline (mm) and the runs of it that are new paper edges
// (not near the before-sheet's outer edge).
func pieceOutline(pm gocv.Mat, nearOuter []byte, w int, ppm float64) ([]judge.Point, [][]judge.Point) {
	cs := gocv.FindContours(pm, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer cs.Close()
	best, bestA := -1, 0.0
	for i := 0; i < cs.Size(); i++ {
		if a := gocv.ContourArea(cs.At(i)); a > bestA || best < 0 {
			best, bestA = i, a
		}
	}
	if best < 0 {
		return nil, nil
	}
	ps := cs.At(best).ToPoints()
	toMM := func(p image.Point) judge.Point {
		q := pxToMM(ptI(p), ppm)
		return judge.Point{X: math.Round(q.X*100) / 100, Y: math.Round(q.Y*100) / 100}
	}
	// Simplified outline (0.25 mm tolerance).
	pv := cs.At(best)
	ap := gocv.ApproxPolyDP(pv, 1, true)
	var outline []judge.Point
	for _, p := range ap.ToPoints() {
		outline = append(outline, toMM(p))
	}
	ap.Close()
	// Tear runs.
	var runs [][]image.Point
	var cur []image.Point
	start := 0
	for i, p := range ps { // start the walk at a point on the old edge so runs do not wrap
		if nearOuter[p.Y*w+p.X] != 0 {
			start = i
			break
		}
	}
	for k := 0; k < len(ps); k++ {
		p := ps[(start+k)%len(ps)]
		if nearOuter[p.Y*w+p.X] == 0 {
			cur = append(cur, p)
		} else if len(cur) > 0 {
			runs = append(runs, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	var tears [][]judge.Point
	for _, r := range runs {
		if float64(len(r)) < 2*ppm { // under ~2 mm
			continue
		}
		v := gocv.NewPointVectorFromPoints(r)
		ap := gocv.ApproxPolyDP(v, 1, false)
		var line []judge.Point
		for _, p := range ap.ToPoints() {
			line = append(line, toMM(p))
		}
		ap.Close()
		v.Close()
		tears = append(tears, line)
	}
	return outline, tears
}

// letterPlacementBar: a word whose letter placement ocr/ rates under this (SkillLayout.Outline,
// the estimated probability that every letter's centre lies on its letter) may have a letter
// outlined on its neighbour's glyph. ocr/ rates an exact read divided along the baseline 0.952
// and one divided by its marks 0.994; under 0.9 are reads of baseline-divided ink that miss
// about a fifth of the name's letters or more, or that leave a letter without ink. Measured on
// the synthetic sets of seeds 10 and 11 (cases 1-8; the generator's letter states against the
// measured ones, words read at 0.6 or more): of the letters measured on the sheet for certain
// next to one the tear removed or cut, 14 lay in words rated under 0.9, 2 of them cut in truth
// ("Haggling" and "Dog Training" in dkgBd); 40 in words rated higher, none.
const letterPlacementBar = 0.9

// placementDoubt turns each letter measured on the sheet (ls, changed in place) next in its
// word to one this tear removed or cut (removed, cut, removed_or_cut) into on_sheet_or_cut
// when ocr/ rates the word's letter placement under letterPlacementBar (layouts[si].Outline;
// 0, not rated, changes nothing), and returns those letters. With the outlines a glyph off,
// the tear that cut the glyph measured in a neighbour's outline may have cut this letter, or
// left whole the letter counted cut beside it: the count of letters left may be one off
// either way. Seen on an independent synthetic set (seed 10, dkg fonts): "Blacksmithing"
// (placement 0.863) outlined from a mark on the line above, each of its first letters on the
// glyph before its own, the 'c' outline holding the cut 'a' and the whole 'c': 9 left for
// certain, truth 10; "Haggling" read "Hagg**ng" (0.887), its 'l' and 'i' outlines crossed, the
// 'i' measured whole on the sheet while the tear cut it: 3 left for certain, truth 2. Letters
// away from the tear keep their states: a glyph's shift moves the count only where the tear is.
func placementDoubt(ls []judge.SkillLetters, layouts []judge.SkillLayout) map[letterKey]bool {
	placed := make(map[letterKey]bool)
	off := func(st judge.LetterState) bool {
		return st == judge.LetterRemoved || st == judge.LetterCut || st == judge.LetterRemovedOrCut
	}
	for si := range ls {
		if si >= len(layouts) || layouts[si].Outline <= 0 || layouts[si].Outline >= letterPlacementBar {
			continue
		}
		st := append([]judge.LetterState(nil), ls[si].States...)
		for li := range st {
			if st[li] == judge.LetterOnSheet && ((li > 0 && off(st[li-1])) || (li+1 < len(st) && off(st[li+1]))) {
				ls[si].States[li] = judge.LetterOnSheetOrCut
				placed[letterKey{si, li}] = true
			}
		}
	}
	return placed
}

// Letter history. A letter cut or removed by an earlier tear is gone for every later one,
// whatever the pixels say (a cut letter's remaining ink still looks like a letter on the
// sheet). Measure records, on the after-sheet, which letters are gone or in doubt, and reads
// it back from the before-sheet the next time. So the SheetImage returned by Register carries
// this history once it has been measured as an after-sheet; pass the same values along.
type letterKey struct{ skill, letter int }

const (
	histGone   = 1 // removed, cut or gone
	histDoubt  = 2 // ambiguous: maybe gone
	histPlaced = 3 // on the sheet, in doubt only for its placement (placementDoubt)
)

// applyHistory applies the before-sheet's letter history to this tear's states (ls, changed
// in place) and records the after-sheet's. placed holds the letters on the sheet that are on
// the sheet or cut only for their placement (placementDoubt): such a letter stays in doubt on
// the sheet at later tears (the count it may have made one off stays in doubt), but a later
// tear that removes its ink whole removed a whole glyph of the word (its ink was measured
// whole on the sheet before that tear), a full letter whichever of the word's letters it is.
func applyHistory(before, after *SheetImage, ls []judge.SkillLetters, placed map[letterKey]bool) {
	hist := make(map[letterKey]int)
	for si := range ls {
		for li, st := range ls[si].States {
			k := letterKey{si, li}
			switch before.letterHist[k] {
			case histGone:
				ls[si].States[li] = judge.LetterGone
			case histPlaced:
				if st == judge.LetterOnSheet {
					ls[si].States[li] = judge.LetterOnSheetOrCut
					placed[k] = true
				}
			case histDoubt:
				// Maybe cut by an earlier tear: measured on the sheet now, it is on the sheet or
				// cut; measured removed, it is removed whole or was cut before.
				switch st {
				case judge.LetterOnSheet:
					ls[si].States[li] = judge.LetterOnSheetOrCut
				case judge.LetterRemoved:
					ls[si].States[li] = judge.LetterRemovedOrCut
				}
			}
			switch ls[si].States[li] {
			case judge.LetterRemoved, judge.LetterCut, judge.LetterGone, judge.LetterRemovedOrCut:
				hist[k] = histGone
			case judge.LetterAmbiguous, judge.LetterOnSheetOrCut:
				hist[k] = histDoubt
				if placed[k] && before.letterHist[k] != histDoubt {
					hist[k] = histPlaced
				}
			}
		}
	}
	if after != before {
		after.letterHist = hist
	}
}

// outerDepth is, for every pixel, its distance (px) to the nearest pixel that is not paper on
// the before-mask bm, the frame's outside counting as not paper (OpenCV's 5x5 L2 chamfer
// distance, chamferDist): depth(x, y) for 0 <= x < w, 0 <= y < h.
func outerDepth(bm []byte, w, h int) func(x, y int) float32 {
	pw := w + 2
	p := make([]byte, pw*(h+2))
	for y := 0; y < h; y++ {
		copy(p[(y+1)*pw+1:(y+1)*pw+1+w], bm[y*w:(y+1)*w])
	}
	c := chamferOf(p, pw, h+2)
	return func(x, y int) float32 { return c.at(x+1, y+1) }
}

// outerDepthNear is outerDepth where it matters: at the pixels with roi non-zero, exact
// wherever the depth is at most reach px (beyond, it is at least that deep: then depth >
// reach, but not necessarily the true value). It measures only the box around those pixels
// grown by reach: the two passes of the chamfer distance give a pixel the length of the
// cheapest path of mask steps from a non-paper pixel, and a path of length d stays within d
// px (every step costs at least the pixels it advances, in x or y, whichever is more) of
// where it ends, so within the grown box it is found as on the whole frame
// (TestChamferWindowExact). depth(x, y) is valid for pixels of the box (all roi pixels).
func outerDepthNear(bm, roi []byte, w, h, reach int) func(x, y int) float32 {
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		row := roi[y*w : (y+1)*w]
		for x, v := range row {
			if v != 0 {
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return func(x, y int) float32 { return 0 } // no pixel asks
	}
	return outerDepthBox(bm, w, h, image.Rect(x0, y0, x1+1, y1+1), reach)
}

// outerDepthBox is outerDepthNear for the pixels of box (frame pixels, Max exclusive).
func outerDepthBox(bm []byte, w, h int, box image.Rectangle, reach int) func(x, y int) float32 {
	x0, y0, x1, y1 := box.Min.X, box.Min.Y, box.Max.X-1, box.Max.Y-1
	// The box in the padded frame (outerDepth's: the frame with one non-paper pixel around).
	pw, ph := w+2, h+2
	bx0, by0 := max(0, x0+1-reach), max(0, y0+1-reach)
	bx1, by1 := min(pw, x1+2+reach), min(ph, y1+2+reach)
	bw, bh := bx1-bx0, by1-by0
	p := make([]byte, bw*bh)
	for y := by0; y < by1; y++ {
		if y == 0 || y == ph-1 {
			continue // the padding row: not paper
		}
		for x := bx0; x < bx1; x++ {
			if x > 0 && x < pw-1 {
				p[(y-by0)*bw+x-bx0] = bm[(y-1)*w+x-1]
			}
		}
	}
	c := chamferOf(p, bw, bh)
	return func(x, y int) float32 { return c.at(x+1-bx0, y+1-by0) }
}

// OccludedFrac: a removed piece of which at least this fraction and 2 x MinPieceMM2 (or twice
// this fraction and MinPieceMM2) looks like neither paper nor the table in the after photo
// (occlusion.go) is not measured: something covers the sheet there. The mixed paper/table
// pixels along a real tear line reach 26% of a 79 mm² bite on the synthetic set (21 mm²).
const OccludedFrac = 0.25

// coveredPieces returns why the tear cannot be measured when a removed piece is mostly
// something lying on the sheet (see OccludedFrac), else "". foreign is the after sheet's
// mask of such pixels (nil: unknown), ob the opened removed mask, lb the labels and keep the
// label -> piece index map of Measure; ppm px per mm.
func coveredPieces(foreign, ob []byte, lb []int32, keep []int, np, w int, ppm float64) string {
	if foreign == nil || len(foreign) != len(ob) || np == 0 {
		return ""
	}
	area, fa := make([]int, np), make([]int, np)
	sx, sy := make([]float64, np), make([]float64, np)
	for i, v := range ob {
		if v == 0 {
			continue
		}
		pi := keep[lb[i]]
		if pi < 0 {
			continue
		}
		area[pi]++
		if foreign[i] != 0 {
			fa[pi]++
			sx[pi] += float64(i % w)
			sy[pi] += float64(i / w)
		}
	}
	minPx := int(MinPieceMM2 * ppm * ppm)
	var parts []string
	total := 0
	for pi := range area {
		f := float64(fa[pi]) / float64(area[pi])
		if (fa[pi] >= 2*minPx && f >= OccludedFrac) || (fa[pi] >= minPx && f >= 2*OccludedFrac) {
			n := float64(fa[pi])
			parts = append(parts, fmt.Sprintf("(%.0f, %.0f) mm", sx[pi]/n/ppm, sy[pi]/n/ppm))
			total += fa[pi]
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("something covers the sheet at %s (%.0f mm² that looks like neither paper nor the table): not measured as torn paper", strings.Join(parts, ", "), float64(total)/(ppm*ppm))
}

// mayFitWith reports whether the template t fits, or nearly fits (within NearFitMM), in the
// region mask (w x h, non-zero inside; ppm pixels per millimetre) together with the pixels of
// extra: paper that may be there but was not seen (a photo that cut the sheet off).
func mayFitWith(mask, extra []byte, w, h int, ppm float64, t template.Template) bool {
	u := append([]byte(nil), mask...)
	for i, v := range extra {
		if v != 0 {
			u[i] = 255
		}
	}
	um := newMask(w, h, u)
	defer um.Close()
	fu, err := FitTemplateDetail(um, ppm, t)
	return err == nil && (fu.Fits || fu.Near)
}
