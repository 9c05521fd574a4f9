package vision

import (
	"fmt"

	"gocv.io/x/gocv"
)

// RegrownMinMM2 is the least area (mm², sheet frame) of one patch of paper that a later photo
// shows and the photo before it lacked, for Regrown to report it. Paper only shrinks, so
// such a patch means the photos are out of order, of another sheet, or misregistered. Below
// it lie the differences between two masks of the same paper: registration slop along the
// edges (removed first by an opening of SliverMM) and specks like those the removed-paper
// test ignores (MinPieceMM2). Measured on the synthetic set (TestSynthFigures, 2026-11-30):
// the largest patch between two photos in order is 10.5 mm²; two photos swapped show a
// whole tear's paper (12124 mm² in TestPhotosOutOfOrder).
const RegrownMinMM2 = 4 * MinPieceMM2

// Regrown returns the area (mm², sheet frame) of the largest patch of paper on after that is
// not on before, after an opening of SliverMM width that removes strips along torn and outer
// edges, and 0 when it is under RegrownMinMM2. before and after are registered to the same
// fresh sheet (same frame size); neither is modified or closed.
func Regrown(before, after *SheetImage) (float64, error) {
	if before == nil || after == nil || before.Mask.Empty() || after.Mask.Empty() {
		return 0, fmt.Errorf("%w: no paper mask", ErrBadInput)
	}
	if before.Mask.Rows() != after.Mask.Rows() || before.Mask.Cols() != after.Mask.Cols() {
		return 0, fmt.Errorf("%w: masks of different frames (%dx%d, %dx%d)", ErrBadInput,
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
	best := 0
	for i := 1; i < n; i++ {
		best = max(best, int(stats.GetIntAt(i, int(gocv.CC_STAT_AREA))))
	}
	a := float64(best) / (ppm * ppm)
	if a < RegrownMinMM2 {
		return 0, nil
	}
	return a, nil
}
