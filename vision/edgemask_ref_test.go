package vision

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// The whole-frame edge refinement as it was before it worked on the band's pixels only
// (a0219ad's edgemask.go, its functions renamed ref...; the debug image left out): the
// reference that TestEdgeRefineMatchesReference compares edgeRefine with, bit for bit.

// edgeCost returns, per pixel of the BGR image img (w x h) where need is true or that is
// next to such a pixel (4-connected), the strength of its brightness step: the largest over
// the three channels of |Sobel x| + |Sobel y| (3x3, the image's border reflected) after a
// Gaussian blur of sigma 1 px, capped at edgeCostMax; 0 elsewhere. (Computed where needed
// only: the flood reads the pixels it decides and their neighbours.)
func refEdgeCost(img gocv.Mat, need []bool) []uint16 {
	w, h := img.Cols(), img.Rows()
	bl := gocv.NewMat()
	defer bl.Close()
	gocv.GaussianBlur(img, &bl, image.Pt(5, 5), 1, 1, gocv.BorderReflect101)
	p := u8view(bl)
	if len(p) != 3*w*h || len(need) != w*h {
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
	out := make([]uint16, w*h)
	for y := 0; y < h; y++ {
		ym, yp := refl(y-1, h)*w, refl(y+1, h)*w
		row := need[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			i := y*w + x
			if !row[x] && (x == 0 || !row[x-1]) && (x == w-1 || !row[x+1]) && (y == 0 || !need[i-w]) && (y == h-1 || !need[i+w]) {
				continue
			}
			xm, xp := refl(x-1, w), refl(x+1, w)
			yc := y * w
			m := 0
			for k := 0; k < 3; k++ {
				a, b, c := int(p[3*(ym+xm)+k]), int(p[3*(ym+x)+k]), int(p[3*(ym+xp)+k])
				d, f := int(p[3*(yc+xm)+k]), int(p[3*(yc+xp)+k])
				g, hh, j := int(p[3*(yp+xm)+k]), int(p[3*(yp+x)+k]), int(p[3*(yp+xp)+k])
				gx := (c + 2*f + j) - (a + 2*d + g)
				gy := (g + 2*hh + j) - (a + 2*b + c)
				m = max(m, absInt(gx)+absInt(gy))
			}
			out[i] = uint16(min(m, edgeCostMax))
		}
	}
	return out
}

// floodLabels decides every open pixel (lab 0) of lab (w x h) by a minimax flood from the
// labelled ones (lab > 0; lab < 0 takes no part): a pixel takes the label of the seed it is
// joined to by the path whose largest cost is smallest (ties: first reached, in a fixed
// order). Pixels where stop is 255 take a label but pass none on. Pixels not reached keep 0.
func refFloodLabels(lab []int32, cost []uint16, stop []byte, w, h int) {
	buckets := make([][]int32, edgeCostMax+1)
	queued := make([]bool, len(lab))
	visit := func(p, level int) {
		l := lab[p]
		x, y := p%w, p/w
		for _, q := range [4]int{p - 1, p + 1, p - w, p + w} {
			switch {
			case q == p-1 && x == 0, q == p+1 && x == w-1, q == p-w && y == 0, q == p+w && y == h-1:
				continue
			}
			if lab[q] == 0 && !queued[q] {
				queued[q] = true
				lab[q] = l
				c := max(level, int(cost[q]))
				buckets[c] = append(buckets[c], int32(q))
			}
		}
	}
	var seeds []int32 // the seeds beside an open pixel (visit labels open pixels as it goes)
	for y := 0; y < h; y++ {
		row := lab[y*w : (y+1)*w]
		for x, l := range row {
			if l <= 0 {
				continue
			}
			p := y*w + x
			if (x > 0 && row[x-1] == 0) || (x < w-1 && row[x+1] == 0) || (y > 0 && lab[p-w] == 0) || (y < h-1 && lab[p+w] == 0) {
				seeds = append(seeds, int32(p))
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

// keepSeedless makes seeds (255 in seed) of every connected part of m's 255 pixels (8-connected)
// that holds no seed pixel, except pixels lab marks as taking no part (< 0).
func refKeepSeedless(m gocv.Mat, seed []byte, lab []int32) {
	cc := gocv.NewMat()
	defer cc.Close()
	n := gocv.ConnectedComponentsWithParams(m, &cc, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	has := make([]bool, n)
	cl := int32s(cc)
	for i, v := range cl {
		if seed[i] != 0 {
			has[v] = true
		}
	}
	for i, v := range cl {
		if v > 0 && !has[v] && lab[i] == 0 {
			seed[i] = 255
		}
	}
}

// keepStronger undoes each connected part (8-connected) of the changes from mb to nb (w x h
// masks) that does not move the boundary onto a real brightness step, as strong as the one
// it replaces (see edgeNoiseK): the flood's fronts also meet in smooth paper or table, where
// a wrongly labelled seed keeps its wrong label and spreads (seed 2 case-007 fatima-3: a
// patch of shaded paper the mask lost grew by 5 mm all round). Steps within halo (the fresh
// sheet's ink and its halo) are no evidence: the ink is a step in both photos (seed 1
// case-007 kofi-3: the paper between a letter's strokes and a tear line, reached from the
// table only across the tear line since ink passes no label on, went to the table).
func refKeepStronger(mb, nb []byte, cost []uint16, open []bool, halo []byte, w, h int) {
	if len(halo) != w*h {
		halo = nil
	}
	dm, any := refChangeMask(mb, nb, w, h)
	if !any {
		return
	}
	defer dm.Close()
	cc := gocv.NewMat()
	defer cc.Close()
	n := gocv.ConnectedComponentsWithParams(dm, &cc, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	dl := int32s(cc)
	newS, oldS := make([][]uint16, n), make([][]uint16, n)
	for i, r := range dl {
		if r == 0 {
			continue
		}
		x, y := i%w, i/w
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
	med := func(v []uint16) int {
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return int(v[len(v)/2])
	}
	// The photo's noise: the median step over the pixels decided (mostly smooth paper or
	// table).
	var smp []uint16
	for i := 0; i < len(cost); i += 7 {
		if open[i] {
			smp = append(smp, cost[i])
		}
	}
	floor := edgeNoiseK * float64(max(med(smp), 1))
	undo := make([]bool, n)
	for r := 1; r < n; r++ {
		nm, om := med(newS[r]), med(oldS[r])
		undo[r] = float64(nm) < floor || float64(nm) < edgeKeep*float64(om)
	}
	for i, r := range dl {
		if undo[r] {
			nb[i] = mb[i]
		}
	}
}

// changeMask returns a mask (w x h, 255) of the pixels where mb and nb differ, and whether
// there is any; the caller closes the mask when there is.
func refChangeMask(mb, nb []byte, w, h int) (gocv.Mat, bool) {
	diff := make([]byte, w*h)
	any := false
	for i := range mb {
		if mb[i] != nb[i] {
			diff[i] = 255
			any = true
		}
	}
	if !any {
		return gocv.Mat{}, false
	}
	return newMask(w, h, diff), true
}

// keepLikeSide undoes each connected part (8-connected) of the changes from mb to nb whose
// median brightness (sum of the channels of img, BGR, w x h) is closer to that of the pixels
// within likeSideMM around it that nb leaves on the other side than to those on the side
// nb gives it (pixels of halo, the fresh sheet's ink and its halo, left out). The flood's
// fronts stop at the fresh sheet's ink (it passes no label on), so the paper between a cut
// letter's stroke and the tear line is reached from the table only, across the tear line
// (seed 2 case-011 hana-4: 41 mm² of paper beside "Cartog" went to the table); it looks like
// the paper beyond the stroke, not the table beyond the tear line's step.
func refKeepLikeSide(mb, nb, img, halo []byte, w, h int, ppm float64) {
	if len(img) != 3*w*h || len(halo) != w*h {
		return
	}
	dm, any := refChangeMask(mb, nb, w, h)
	if !any {
		return
	}
	defer dm.Close()
	cc := gocv.NewMat()
	defer cc.Close()
	st := gocv.NewMat()
	defer st.Close()
	ct := gocv.NewMat()
	defer ct.Close()
	n := gocv.ConnectedComponentsWithStatsWithParams(dm, &cc, &st, &ct, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	dl := int32s(cc)
	r := int(math.Round(likeSideMM * ppm))
	lum := func(i int) uint16 { return uint16(img[3*i]) + uint16(img[3*i+1]) + uint16(img[3*i+2]) }
	med := func(v []uint16) int {
		slices.Sort(v)
		return int(v[len(v)/2])
	}
	for c := 1; c < n; c++ {
		if st.GetIntAt(c, 4) < int32(ppm*ppm) {
			continue // under a square millimetre: left as the flood has it
		}
		x0, y0 := int(st.GetIntAt(c, 0)), int(st.GetIntAt(c, 1))
		x1, y1 := x0+int(st.GetIntAt(c, 2)), y0+int(st.GetIntAt(c, 3))
		X0, Y0, X1, Y1 := max(0, x0-r), max(0, y0-r), min(w, x1+r), min(h, y1+r)
		// The part's pixels and, by a square window of r, the pixels around it.
		rw, rh := X1-X0, Y1-Y0
		pm := gocv.NewMatWithSize(rh, rw, gocv.MatTypeCV8UC1)
		pb := u8view(pm)
		var in []uint16
		var side byte // the label nb gives the part
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				i := y*w + x
				if dl[i] != int32(c) {
					continue
				}
				side = nb[i]
				pb[(y-Y0)*rw+x-X0] = 255
				if halo[i] == 0 {
					in = append(in, lum(i))
				}
			}
		}
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(2*r+1, 2*r+1))
		gocv.Dilate(pm, &pm, k)
		k.Close()
		near := u8view(pm)
		var same, other []uint16
		for y := Y0; y < Y1; y++ {
			for x := X0; x < X1; x++ {
				i := y*w + x
				if near[(y-Y0)*rw+x-X0] == 0 || dl[i] == int32(c) || halo[i] != 0 {
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
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					if i := y*w + x; dl[i] == int32(c) {
						nb[i] = mb[i]
					}
				}
			}
		}
	}
}

// edgeRefine re-decides s's mask near its paper/table boundary and the frame's edge by the
// photo's brightness steps (see above). unknown (frame layout, or nil) is left alone. It
// returns the mask's new bytes, or nil when nothing changed.
func edgeRefineRef(fresh, s *SheetImage) []byte {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	if s.Image.Empty() || s.Image.Cols() != w || s.Image.Rows() != h || s.Image.Type() != gocv.MatTypeCV8UC3 {
		return nil
	}
	ppm := s.PxPerMM
	mb := s.Mask.ToBytes()
	if !paleTable(u8view(s.Image), mb, s.unknown) {
		return nil
	}
	lab := refEdgeSeeds(s)
	e := int(edgeFrameMM * ppm)
	open := make([]bool, w*h)
	for i, l := range lab {
		open[i] = l == 0
	}
	cost := refEdgeCost(s.Image, open)
	if len(cost) != w*h {
		return nil
	}
	// The fresh sheet's ink (not within edgeFrameMM of the frame's edge, where its own edge
	// reads as ink) passes no label on: dark ink beside a tear line is closer to the
	// table's shadow than to the paper, and the table would flood a cut letter's strokes
	// and the paper they enclose. (The ink and its halo keep the mask's labels, below.)
	ink := freshInk(fresh)
	if len(ink) == w*h {
		ink = append([]byte(nil), ink...)
		for y := 0; y < h; y++ {
			if y < e || y >= h-e {
				clear(ink[y*w : (y+1)*w])
				continue
			}
			clear(ink[y*w : y*w+e])
			clear(ink[(y+1)*w-e : (y+1)*w])
		}
	} else {
		ink = nil
	}
	refFloodLabels(lab, cost, ink, w, h)
	nb := append([]byte(nil), mb...)
	for i, l := range lab {
		switch {
		case !open[i] || l <= 0:
		case l == floodPaper:
			nb[i] = 255
		default:
			nb[i] = 0
		}
	}
	if ink != nil {
		// The flood's ink pixels take the state that dominates the non-ink pixels within a
		// millimetre (as inkDecide, on these pixels only).
		r := int(math.Round(ppm))
		var flip []int
		for i, v := range ink {
			if v == 0 || !open[i] {
				continue
			}
			x, y := i%w, i/w
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
		for _, i := range flip {
			nb[i] ^= 255
		}
	}
	halo := freshInkHalo(fresh)
	refKeepStronger(mb, nb, cost, open, halo, w, h)
	refKeepLikeSide(mb, nb, u8view(s.Image), halo, w, h, ppm)
	if ink != nil {
		// The fresh sheet's ink that the photo shows, and the halo around it, keep the
		// mask's labels (away from the frame's edge): the letters' states are measured there,
		// and dark ink beside a hole or a tear line looks like the table's shadow (seed 5
		// case-011 mateo-2: the strokes of an "f" and an "h" at a hole's rim went to the
		// table, and a letter was measured removed that the hole had not taken). Ink the
		// photo does not show (a letter on a piece torn away, taken for paper) is no paper.
		seen := inkSeen(s)
		kb := make([]byte, w*h)
		for i, v := range ink {
			if v != 0 && seen[i] != 0 {
				kb[i] = 255
			}
		}
		km := newMask(w, h, kb)
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*inkHaloPx+1, 2*inkHaloPx+1))
		gocv.Dilate(km, &km, k)
		k.Close()
		for i, v := range u8view(km) {
			if v != 0 {
				nb[i] = mb[i]
			}
		}
		km.Close()
	}
	ref := refPaper(fresh, image.Pt(w, h), ppm)
	changed := false
	for i, v := range nb {
		if ref != nil && ref[i] == 0 {
			v = 0
		}
		if v != mb[i] {
			mb[i] = v
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return mb
}

// refEdgeSeeds is the flood's labels before it runs, as edgeRefineRef computed them.
func refEdgeSeeds(s *SheetImage) []int32 {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	ppm := s.PxPerMM
	// Seeds: the mask's paper and table farther than edgeBandMM from the other (along both
	// axes: a square erosion, which OpenCV does in two fast passes), and than
	// edgeFrameMM from the frame's edge; each connected part its own label.
	notPaper := gocv.NewMat()
	defer notPaper.Close()
	gocv.BitwiseNot(s.Mask, &notPaper)
	paper, table := gocv.NewMat(), gocv.NewMat()
	defer paper.Close()
	defer table.Close()
	e2 := 2*int(math.Round(edgeBandMM*ppm)) + 1
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(e2, e2))
	gocv.Erode(s.Mask, &paper, k)
	gocv.Erode(notPaper, &table, k)
	k.Close()
	lab := make([]int32, w*h)
	e := int(edgeFrameMM * ppm)
	pb, tb := u8view(paper), u8view(table)
	if len(s.unknown) == w*h {
		for i, v := range s.unknown {
			if v != 0 {
				lab[i] = -1
				pb[i], tb[i] = 0, 0
			}
		}
	}
	for y := 0; y < h; y++ {
		if y < e || y >= h-e {
			clear(pb[y*w : (y+1)*w])
			clear(tb[y*w : (y+1)*w])
			continue
		}
		clear(pb[y*w : y*w+e])
		clear(tb[y*w : y*w+e])
		clear(pb[(y+1)*w-e : (y+1)*w])
		clear(tb[(y+1)*w-e : (y+1)*w])
	}
	// A part of the mask (paper or table) too small or too thin to keep a seed is left as
	// the mask has it: the flood would give it to its surroundings (seed 1 case-003 ines-2:
	// a 66 mm² bite 6 mm deep at the frame's edge, measured "nothing removed").
	refKeepSeedless(s.Mask, pb, lab)
	refKeepSeedless(notPaper, tb, lab)
	for i := range lab {
		switch {
		case pb[i] != 0:
			lab[i] = floodPaper
		case tb[i] != 0:
			lab[i] = floodTable
		}
	}
	return lab
}

// TestEdgeRefineMatchesReference registers pale-table photos and compares, for every sheet
// Register asks edgeRefine to refine, what edgeRefine returned with what the whole-frame
// reference (edgeRefineRef) returns for the same sheet: the same bytes, or nil from both.
// The photos: the project set's desk cases, the desk cases kept in testdata, the two pale-
// table photos and the benchmark's torn sheet on a light table; VISION_EDGE_REF adds case
// folders (colon-separated) of other synthetic sets. At least 10 sheets must have been
// changed by the refinement, so that the comparison is of real work.
func TestEdgeRefineMatchesReference(t *testing.T) {
	dirs := []string{filepath.Join("..", "testdata", "images", "synth", "case-003"), filepath.Join("..", "testdata", "images", "synth", "case-007")}
	more, _ := filepath.Glob(filepath.Join("testdata", "seed*-case*"))
	dirs = append(dirs, more...)
	if v := os.Getenv("VISION_EDGE_REF"); v != "" {
		dirs = append(dirs, strings.Split(v, ":")...)
	}
	seen, changed, bad := 0, 0, 0
	edgeRefineSeen = func(fresh, s *SheetImage, got []byte) {
		want := edgeRefineRef(fresh, s)
		seen++
		if got != nil || want != nil {
			if d := edgeStagesDiffer(fresh, s); d != "" {
				t.Errorf("sheet %d: %s", seen, d)
			}
		}
		if want != nil {
			changed++
		}
		if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
			bad++
			n := 0
			for i := range want {
				if i < len(got) && got[i] != want[i] {
					n++
				}
			}
			t.Errorf("sheet %d: edgeRefine differs from the reference (nil: %v, %v; %d pixels)", seen, got == nil, want == nil, n)
		}
	}
	defer func() { edgeRefineSeen = nil }()
	for _, dir := range dirs {
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		for _, pl := range tr.Players {
			img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
			if err != nil {
				continue
			}
			fresh, err := Fresh(img, truthPaper(tr))
			img.Close()
			if err != nil {
				continue
			}
			for _, tt := range pl.Tears {
				im, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				if err != nil {
					continue
				}
				if s, err := Register(fresh, im); err == nil {
					s.Close()
				}
				im.Close()
			}
			fresh.Close()
		}
	}
	pair := func(a, b string) {
		ia, err := ReadImage(a)
		require.NoError(t, err)
		defer ia.Close()
		ib, err := ReadImage(b)
		require.NoError(t, err)
		defer ib.Close()
		fresh, err := Fresh(ia, a4)
		require.NoError(t, err)
		defer fresh.Close()
		if s, err := Register(fresh, ib); err == nil {
			s.Close()
		}
	}
	pair("testdata/paletable-0.jpg", "testdata/paletable-2.jpg")
	// The benchmark's sheet (BenchmarkEdgeRefineLight).
	fresh, photo := tornOn(t, "light")
	defer fresh.Close()
	defer photo.Close()
	if s, err := Register(fresh, photo); err == nil {
		s.Close()
	}
	t.Logf("%d sheets refined, %d changed by the refinement, %d differ from the reference", seen, changed, bad)
	assert.GreaterOrEqual(t, changed, 10, "sheets the refinement changed")
}

// edgeStagesDiffer compares edgeRefine's steps with the reference's on s, each from the same
// input: the seeds, the step costs and the flood's labels. It returns the first that differs
// ("" when none does).
func edgeStagesDiffer(fresh, s *SheetImage) string {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	mb := s.Mask.ToBytes()
	lab, want := edgeSeeds(s.Mask, mb, s.unknown, w, h, s.PxPerMM), refEdgeSeeds(s)
	for i := range want {
		if int32(lab[i]) != want[i] {
			return fmt.Sprintf("seeds differ at (%d, %d): %d, want %d", i%w, i/w, lab[i], want[i])
		}
	}
	open := spansOf(i8bytes(lab), w, h, 0)
	openB := make([]bool, w*h)
	for i, l := range want {
		openB[i] = l == 0
	}
	cost, wantCost := edgeCost(s.Image, open), refEdgeCost(s.Image, openB)
	if !slices.Equal(cost, wantCost) {
		return "step costs differ"
	}
	ink := edgeInk(fresh, w, h, s.PxPerMM)
	floodLabels(lab, cost, ink, w, h)
	refFloodLabels(want, wantCost, ink, w, h)
	for i := range want {
		if int32(lab[i]) != want[i] {
			return fmt.Sprintf("flood labels differ at (%d, %d): %d, want %d", i%w, i/w, lab[i], want[i])
		}
	}
	return ""
}
