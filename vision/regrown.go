package vision

import (
	"fmt"
	"image"

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
	// in the patch relative to the paper around it (sameLook). So the later photo's
	// paper mask took the table for paper there; the photos are not shown out of order.
	// False when the colours cannot tell (a table the colour of the paper) or the patch
	// looks like paper.
	TableTakenForPaper bool
	// BeforeMissedPaper: every patch of paper the later photo shows and the sheet before it
	// lacked lies on that sheet's own removed pieces (what Measure found its tear removed),
	// and that sheet's photo shows it in the colour of the paper around it
	// (holeLooksLikePaper), not of the table: the before photo's paper mask missed paper
	// there, and its tear was measured with paper it did not remove. Two photos out of order
	// show the table there instead (held-out seed 10 case-003: a shaded 460 mm² corner missed
	// on noor-1, measured as a second piece; each later photo, showing that corner, was
	// refused as paper reappearing). False when the colours cannot tell.
	BeforeMissedPaper bool
}

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
	d := max(2, int(SliverMM*ppm+0.5))
	pp := openedParts(diff, d)
	defer pp.Close()
	best, bl := 0, 0
	for i := 1; i < pp.n; i++ {
		if a := int(pp.stats.GetIntAt(i, int(gocv.CC_STAT_AREA))); a > best {
			best, bl = a, i
		}
	}
	a := float64(best) / (ppm * ppm)
	if a < RegrownMinMM2 {
		return rp, nil
	}
	rp.AreaMM2 = a
	rp.CentreMM = [2]float64{(pp.cents.GetDoubleAt(bl, 0) - float64(d) + 0.5) / ppm, (pp.cents.GetDoubleAt(bl, 1) - float64(d) + 0.5) / ppm}
	rp.TableTakenForPaper = tableTakenForPaper(before, after, pp.labels, int32(bl), d)
	rp.BeforeMissedPaper = !rp.TableTakenForPaper && beforeMissedPaper(before, pp, d, ppm)
	return rp, nil
}

// beforeMissedPaper reports whether every part of pp (labels padded by d) of at least
// RegrownMinMM2 lies, for at least 90% of its area, on before's own removed pieces
// (tornHere) and before's photo shows it like the paper around it (holeLooksLikePaper)
// (RegrownPatch.BeforeMissedPaper).
func beforeMissedPaper(before *SheetImage, pp maskParts, d int, ppm float64) bool {
	w, h := before.Mask.Cols(), before.Mask.Rows()
	bi := sheetBGR(before, w, h)
	if len(before.tornHere) != w*h || bi == nil {
		return false
	}
	bm := before.Mask.ToBytes()
	ink := sheetInkZone(before, w, h, ppm)
	lb := int32s(pp.labels)
	pw := w + 2*d
	minPx := int(RegrownMinMM2 * ppm * ppm)
	any := false
	for l := 1; l < pp.n; l++ {
		if int(pp.stats.GetIntAt(l, int(gocv.CC_STAT_AREA))) < minPx {
			continue
		}
		patch := make([]byte, w*h)
		box := image.Rectangle{}
		n, on := 0, 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if lb[(y+d)*pw+x+d] != int32(l) {
					continue
				}
				i := y*w + x
				patch[i] = 255
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
				if before.tornHere[i] != 0 {
					on++
				}
			}
		}
		if 10*on < 9*n {
			return false
		}
		if ok, _ := holeLooksLikePaper(bi, bm, ink, patch, box, w, h, ppm); !ok {
			return false
		}
		any = true
	}
	return any
}

// openedParts is a mask's connected parts after an opening by a disk of d px, the mask first
// padded with d px of non-paper: OpenCV erodes as if the image went on past its border, which
// would keep strips along the frame's edge (as in Measure). labels (CV_32S), stats and cents
// are in the padded frame (offset d px); n counts the background label 0. The caller closes
// it (Close).
type maskParts struct {
	labels, stats, cents gocv.Mat
	n                    int
}

func openedParts(mask gocv.Mat, d int) maskParts {
	padded := openedPadded(mask, d)
	defer padded.Close()
	return partsOf(padded)
}

// openedPadded is mask padded by d px of 0 and opened by a disk of diameter d; the caller
// closes it.
func openedPadded(mask gocv.Mat, d int) gocv.Mat {
	padded := gocv.NewMat()
	gocv.CopyMakeBorder(mask, &padded, d, d, d, d, gocv.BorderConstant, colorBlack)
	morph(&padded, d, 0)
	return padded
}

// partsOf labels the 8-connected parts of m, with their statistics; the caller closes them.
func partsOf(m gocv.Mat) maskParts {
	p := maskParts{labels: gocv.NewMat(), stats: gocv.NewMat(), cents: gocv.NewMat()}
	p.n = gocv.ConnectedComponentsWithStats(m, &p.labels, &p.stats, &p.cents)
	return p
}

// Close releases the parts' Mats.
func (p maskParts) Close() {
	p.labels.Close()
	p.stats.Close()
	p.cents.Close()
}

// tableTakenForPaper reports whether the patch (label bl of the padded labels, pad d) looks
// the same, the table, in both photos relative to the paper around it (sameLook): the later
// mask took the table for paper there (RegrownPatch.TableTakenForPaper).
func tableTakenForPaper(before, after *SheetImage, labels gocv.Mat, bl int32, d int) bool {
	w, h := before.Mask.Cols(), before.Mask.Rows()
	bi, ai := sheetBGR(before, w, h), sheetBGR(after, w, h)
	if bi == nil || ai == nil {
		return false // no photos to compare (masks alone)
	}
	lb := int32s(labels)
	pw := w + 2*d
	patch := make([]byte, w*h)
	box := image.Rectangle{}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if lb[(y+d)*pw+x+d] == bl {
				patch[y*w+x] = 255
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return sameLook(bi, ai, before.Mask.ToBytes(), after.Mask.ToBytes(), inkZone(after.inkGray, w, h, after.PxPerMM), patch, box, w, h, after.PxPerMM, 'b')
}
