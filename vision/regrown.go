package vision

import (
	"fmt"
	"math"

	"gocv.io/x/gocv"
)

// RegrownMinMM2 is the least area (mm², sheet frame) of one patch of paper that a later photo
// shows and the photo before it lacked, for Regrown to report it. Paper only shrinks, so
// such a patch means the photos are out of order, of another sheet, or misregistered, or
// that one photo's paper mask is wrong there (on the independent synthetic set, seed 2: the
// later mask taking a pale grey table for paper inside an earlier hole or bite, 113 and
// 3621 mm²; RegrownDetail tells that case by the photos' colours). Below
// it lie the differences between two masks of the same paper: registration slop along the
// edges (removed first by an opening of SliverMM) and specks like those the removed-paper
// test ignores (MinPieceMM2). Measured on the synthetic set (TestSynthFigures, 2026-11-30):
// the largest patch between two photos in order is 10.5 mm²; two photos swapped show a
// whole tear's paper (12124 mm² in TestPhotosOutOfOrder).
const RegrownMinMM2 = 4 * MinPieceMM2

// Regrown returns the area (mm², sheet frame) of the largest patch of paper on after that is
// not on before, after an opening of SliverMM width that removes strips along torn and outer
// edges, and 0 when it is under RegrownMinMM2. before and after are registered to the same
// fresh sheet (same frame size); neither is modified or closed. RegrownDetail says more.
func Regrown(before, after *SheetImage) (float64, error) {
	p, err := RegrownDetail(before, after)
	return p.AreaMM2, err
}

// RegrownPatch is the largest patch of paper a photo shows where the sheet before it had
// none (Regrown).
type RegrownPatch struct {
	AreaMM2  float64 // 0 when under RegrownMinMM2 (then the other fields are zero too)
	CentreMM [2]float64
	// TableTakenForPaper: in the patch, the later photo shows what the photo before showed
	// there (the table seen where paper was already gone), not paper: each photo's colour
	// in the patch relative to the paper around it (regrownSameFrac). So the later photo's
	// paper mask took the table for paper there; the photos are not shown out of order.
	// False when the colours cannot tell (a table the colour of the paper) or the patch
	// looks like paper.
	TableTakenForPaper bool
}

// regrownSameFrac: the later photo's patch (relative to its paper around) must lie this much
// closer to the photo before's (the table) than to paper for TableTakenForPaper, and the
// photo before must tell its table from paper by at least regrownMinContrast.
const (
	regrownSameFrac    = 0.5
	regrownMinContrast = 0.1
)

// RegrownDetail is Regrown with where the patch is and whether it is the later photo's mask
// taking the table for paper (RegrownPatch).
func RegrownDetail(before, after *SheetImage) (RegrownPatch, error) {
	var rp RegrownPatch
	if before == nil || after == nil || before.Mask.Empty() || after.Mask.Empty() {
		return rp, fmt.Errorf("%w: no paper mask", ErrBadInput)
	}
	if before.Mask.Rows() != after.Mask.Rows() || before.Mask.Cols() != after.Mask.Cols() {
		return rp, fmt.Errorf("%w: masks of different frames (%dx%d, %dx%d)", ErrBadInput,
			before.Mask.Cols(), before.Mask.Rows(), after.Mask.Cols(), after.Mask.Rows())
	}
	ppm := after.PxPerMM
	diff := gocv.NewMat()
	defer diff.Close()
	gocv.BitwiseNot(before.Mask, &diff)
	gocv.BitwiseAnd(diff, after.Mask, &diff)
	// Pad with non-paper before opening: OpenCV erodes as if the image went on past its
	// border, which would keep strips along the frame's edge (as in Measure).
	d := max(2, int(SliverMM*ppm+0.5))
	padded := gocv.NewMat()
	defer padded.Close()
	gocv.CopyMakeBorder(diff, &padded, d, d, d, d, gocv.BorderConstant, colorBlack)
	morph(&padded, d, 0)
	labels, stats, cents := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer cents.Close()
	n := gocv.ConnectedComponentsWithStats(padded, &labels, &stats, &cents)
	best, bl := 0, 0
	for i := 1; i < n; i++ {
		if a := int(stats.GetIntAt(i, int(gocv.CC_STAT_AREA))); a > best {
			best, bl = a, i
		}
	}
	a := float64(best) / (ppm * ppm)
	if a < RegrownMinMM2 {
		return rp, nil
	}
	rp.AreaMM2 = a
	rp.CentreMM = [2]float64{(cents.GetDoubleAt(bl, 0) - float64(d) + 0.5) / ppm, (cents.GetDoubleAt(bl, 1) - float64(d) + 0.5) / ppm}
	rp.TableTakenForPaper = tableTakenForPaper(before, after, labels, int32(bl), d)
	return rp, nil
}

// tableTakenForPaper compares, in the patch (label bl of the padded labels, pad d), each
// photo's median colour with the median colour of the paper both masks keep within 4 mm of
// the patch (RegrownPatch.TableTakenForPaper).
func tableTakenForPaper(before, after *SheetImage, labels gocv.Mat, bl int32, d int) bool {
	w, h := before.Mask.Cols(), before.Mask.Rows()
	if before.Image.Ptr() == nil || after.Image.Ptr() == nil || before.Image.Empty() || after.Image.Empty() {
		return false // no photos to compare (masks alone)
	}
	if before.Image.Cols() != w || before.Image.Rows() != h || after.Image.Cols() != w || after.Image.Rows() != h ||
		before.Image.Type() != gocv.MatTypeCV8UC3 || after.Image.Type() != gocv.MatTypeCV8UC3 {
		return false
	}
	lb := int32s(labels)
	pw := w + 2*d
	patch := make([]byte, w*h)
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if lb[(y+d)*pw+x+d] == bl {
				patch[y*w+x] = 255
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return false
	}
	bm, am := before.Mask.ToBytes(), after.Mask.ToBytes()
	bi, ai := before.Image.ToBytes(), after.Image.ToBytes()
	// The paper around: within 4 mm of the patch's box, or farther when a patch inside an
	// earlier hole has too little paper that close. Colour histograms per channel: patch in
	// the photo before (pb) and after (pa), the paper around in each (rb, ra).
	var pb, pa, rb, ra [3][256]int
	npatch, nring := 0, 0
	for _, gmm := range []float64{4, 8, 16, 32} {
		g := int(gmm * after.PxPerMM)
		pb, pa, rb, ra = [3][256]int{}, [3][256]int{}, [3][256]int{}, [3][256]int{}
		npatch, nring = 0, 0
		for y := max(0, y0-g); y <= min(h-1, y1+g); y++ {
			for x := max(0, x0-g); x <= min(w-1, x1+g); x++ {
				i := y*w + x
				switch {
				case patch[i] != 0:
					npatch++
					for c := 0; c < 3; c++ {
						pb[c][bi[3*i+c]]++
						pa[c][ai[3*i+c]]++
					}
				case bm[i] != 0 && am[i] != 0:
					nring++
					for c := 0; c < 3; c++ {
						rb[c][bi[3*i+c]]++
						ra[c][ai[3*i+c]]++
					}
				}
			}
		}
		if nring >= max(100, npatch/4) {
			break
		}
	}
	if nring < max(100, npatch/4) {
		return false // too little paper around the patch to compare with
	}
	var relB, relA [3]float64
	for c := 0; c < 3; c++ {
		relB[c] = histMedian(&pb[c], npatch) / math.Max(1, histMedian(&rb[c], nring))
		relA[c] = histMedian(&pa[c], npatch) / math.Max(1, histMedian(&ra[c], nring))
	}
	norm := func(u, v [3]float64) float64 {
		return math.Sqrt((u[0]-v[0])*(u[0]-v[0]) + (u[1]-v[1])*(u[1]-v[1]) + (u[2]-v[2])*(u[2]-v[2]))
	}
	one := [3]float64{1, 1, 1}
	return norm(relB, one) >= regrownMinContrast && norm(relA, relB) < regrownSameFrac*norm(relA, one)
}
