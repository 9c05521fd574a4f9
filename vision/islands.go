package vision

import "gocv.io/x/gocv"

// Islands of "paper" inside a removed piece.
//
// The sheet a player keeps is one piece of paper. A patch the after photo's paper mask calls
// paper that lies wholly inside what this tear removed, touching nothing but removed paper,
// is not held by the sheet: it is part of the piece torn off (paper cannot float in a hole),
// or the mask taking the table seen through the hole for paper (held-out seed 7 case-011
// ann-2: the table showing through a 1804 mm² hole where the fresh sheet's letters had been,
// 100 mm² of it called paper, left the template no room in the hole: piece_too_small ruled
// for certain on a piece the template fits). Either way the patch counts as removed.

// fillIslands turns into removed paper (0 in am) every 4-connected part of the after paper
// am (frame layout, w x h, 255 paper; modified) whose 4-neighbours off it are all paper
// before (bm) and not after: a part wholly enclosed by removed paper, away from the frame's
// edge. The largest part of am (the sheet) is never filled. It returns the pixels filled
// (255), or nil when none is.
func fillIslands(bm, am []byte, w, h int) []byte {
	m := newMask(w, h, am)
	defer m.Close()
	labels := gocv.NewMat()
	defer labels.Close()
	stats := gocv.NewMat()
	defer stats.Close()
	cents := gocv.NewMat()
	defer cents.Close()
	n := gocv.ConnectedComponentsWithStatsWithParams(m, &labels, &stats, &cents, 4, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	if n <= 2 {
		return nil // no paper, or one part: the sheet
	}
	largest := 1
	for l := 2; l < n; l++ {
		if stats.GetIntAt(l, int(gocv.CC_STAT_AREA)) > stats.GetIntAt(largest, int(gocv.CC_STAT_AREA)) {
			largest = l
		}
	}
	lb := int32s(labels)
	open := make([]bool, n) // the part touches something other than removed paper
	open[0], open[largest] = true, true
	removedAt := func(i int) bool { return bm[i] != 0 && am[i] == 0 }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			l := lb[i]
			if open[l] {
				continue
			}
			if x == 0 || y == 0 || x == w-1 || y == h-1 ||
				(lb[i-1] != l && !removedAt(i-1)) || (lb[i+1] != l && !removedAt(i+1)) ||
				(lb[i-w] != l && !removedAt(i-w)) || (lb[i+w] != l && !removedAt(i+w)) {
				open[l] = true
			}
		}
	}
	var filled []byte
	for i, l := range lb {
		if !open[l] {
			if filled == nil {
				filled = make([]byte, w*h)
			}
			am[i], filled[i] = 0, 255
		}
	}
	return filled
}
