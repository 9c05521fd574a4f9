package vision

import (
	"sort"

	"gocv.io/x/gocv"
)

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
//
// Such parts are rare: the parts of am are found first as runs of paper along the rows
// (union-find, in Go, a fraction of labelling the frame in OpenCV), and only when one of
// them is enclosed is the frame labelled (fillIslandsWhole), which also settles which part
// is the largest. TestFillIslandsMatchesWhole compares the two.
func fillIslands(bm, am []byte, w, h int) []byte {
	if enclosedPaper(bm, am, w, h) {
		return fillIslandsWhole(bm, am, w, h)
	}
	return nil
}

// enclosedPaper reports whether a 4-connected part of am (w x h, non-zero paper) has only
// removed paper (bm non-zero, am zero) among its 4-neighbours off it, and keeps clear of
// the frame's edge (the largest part included).
func enclosedPaper(bm, am []byte, w, h int) bool {
	mr := newMaskRuns(am, w, h, false)
	open := make([]bool, len(mr.runs))
	for r, rn := range mr.runs {
		root := mr.find(r)
		if open[root] {
			continue
		}
		y, x0, x1 := rn.y, rn.x0, rn.x1
		// (am is 0 beside a run: its neighbour there must be removed paper, bm non-zero.)
		o := y == 0 || y == h-1 || x0 == 0 || x1 == w || bm[y*w+x0-1] == 0 || bm[y*w+x1] == 0
		for _, yy := range [2]int{y - 1, y + 1} {
			if o {
				break
			}
			for i := yy*w + x0; i < yy*w+x1; i++ {
				if am[i] == 0 && bm[i] == 0 {
					o = true
					break
				}
			}
		}
		open[root] = o
	}
	for r := range mr.runs {
		if mr.find(r) == r && !open[r] {
			return true
		}
	}
	return false
}

// maskRuns are the runs of non-zero pixels of a mask along its rows, joined into the mask's
// 4- or 8-connected parts (union-find): the parts of a mask that is mostly one large part
// in a fraction of the time OpenCV's labelling of the frame takes.
type maskRuns struct {
	runs   []maskRun
	parent []int
	rows   []int // rows[y]: the first run of row y (rows[h]: len(runs))
}

// maskRun is m[y*w+x0 : y*w+x1], non-zero, maximal.
type maskRun struct{ y, x0, x1 int }

func newMaskRuns(m []byte, w, h int, eight bool) *maskRuns {
	mr := &maskRuns{}
	reach := 0 // how far past a run's ends a run of the row above may start or end and touch it
	if eight {
		reach = 1
	}
	prev0, prev1 := 0, 0 // the previous row's runs
	mr.rows = make([]int, h+1)
	for y := 0; y < h; y++ {
		row := m[y*w : (y+1)*w]
		cur0 := len(mr.runs)
		mr.rows[y] = cur0
		p := prev0
		for x := 0; x < w; {
			for x < w && row[x] == 0 {
				x++
			}
			if x == w {
				break
			}
			x0 := x
			for x < w && row[x] != 0 {
				x++
			}
			r := len(mr.runs)
			mr.runs = append(mr.runs, maskRun{y, x0, x})
			mr.parent = append(mr.parent, r)
			for p < prev1 && mr.runs[p].x1+reach <= x0 {
				p++
			}
			for q := p; q < prev1 && mr.runs[q].x0 < x+reach; q++ {
				if a, b := mr.find(q), mr.find(r); a != b {
					mr.parent[max(a, b)] = min(a, b)
				}
			}
		}
		prev0, prev1 = cur0, len(mr.runs)
	}
	mr.rows[h] = len(mr.runs)
	return mr
}

// runAt is the run holding pixel (x, y), or -1 when the pixel is 0.
func (mr *maskRuns) runAt(x, y int) int {
	rs := mr.runs[mr.rows[y]:mr.rows[y+1]]
	k := sort.Search(len(rs), func(i int) bool { return rs[i].x1 > x })
	if k < len(rs) && rs[k].x0 <= x {
		return mr.rows[y] + k
	}
	return -1
}

// find is run i's part: the lowest run of it joined so far.
func (mr *maskRuns) find(i int) int {
	for mr.parent[i] != i {
		mr.parent[i] = mr.parent[mr.parent[i]]
		i = mr.parent[i]
	}
	return i
}

// labels numbers the parts as OpenCV's ConnectedComponentsWithParams (CCL_DEFAULT) does,
// from 1 (0: background), into a w x h label image: 4-connected (Wu's scan), in the order
// of each part's first pixel in raster order; 8-connected (Bolelli's Spaghetti, on 2x2
// blocks), in the order of each part's first 2x2 block (rows of blocks, each left to
// right). It returns the labels and the number of labels, background included.
func (mr *maskRuns) labels(w, h int, eight bool) ([]int32, int) {
	type part struct{ root, by, bx int }
	first := make([]int32, len(mr.runs)) // root run -> 1 + its index in parts
	var parts []part
	for r, rn := range mr.runs {
		root := mr.find(r)
		k := int(first[root]) - 1
		if k < 0 {
			k = len(parts)
			first[root] = int32(k + 1)
			parts = append(parts, part{root, rn.y, rn.x0})
		}
		if eight {
			p := &parts[k]
			if by, bx := rn.y>>1, rn.x0>>1; by < p.by>>1 || (by == p.by>>1 && bx < p.bx>>1) {
				p.by, p.bx = rn.y, rn.x0
			}
		}
	}
	if eight {
		// Ordered by first block (parts in raster order of first run already, a stable sort).
		sort.SliceStable(parts, func(i, j int) bool {
			a, b := parts[i], parts[j]
			if a.by>>1 != b.by>>1 {
				return a.by>>1 < b.by>>1
			}
			return a.bx>>1 < b.bx>>1
		})
	}
	num := first // root run -> label
	for k, p := range parts {
		num[p.root] = int32(k + 1)
	}
	lb := make([]int32, w*h)
	for r, rn := range mr.runs {
		l := num[mr.find(r)]
		row := lb[rn.y*w+rn.x0 : rn.y*w+rn.x1]
		for x := range row {
			row[x] = l
		}
	}
	return lb, len(parts) + 1
}

// parts counts the parts.
func (mr *maskRuns) parts() int {
	n := 0
	for r := range mr.runs {
		if mr.find(r) == r {
			n++
		}
	}
	return n
}

// fillIslandsWhole is fillIslands labelling the whole frame.
func fillIslandsWhole(bm, am []byte, w, h int) []byte {
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

// Specks of missing paper inside the paper.
//
// The converse: a patch the after photo's mask calls not paper, too small to be a piece
// (Measure's rules) and wholly enclosed by paper on both masks, is not paper removed (a
// tear starts at the sheet's edge; Measure ignores it): it is the mask taking dark ink or
// a shadow for the table. Left in the after mask, it cut the letter whose ink it holds (the
// letter states read ink on either side of a tear from the masks alone), and every later
// tear measured from this sheet read that letter as already gone: held-out seed 9
// case-011 dana-1, a tear that removed nothing, left two 1-2 mm specks in the ink of
// Swordsmanship's "o", which was then not counted when tear 5 removed it whole (ruled
// no_full_letter for certain).

// fillSpecks turns back into paper (255 in am; modified) the raw removed pixels (before
// paper, not after paper) of every labelled part l (lb: labels of the removed paper's
// connectivity mask, n of them) that is not a piece (keep[l] < 0), whose opened area
// (areas[l] pixels) is under minPx, that comes nowhere near the before-sheet's outer edge
// (nearOuter 0 on every pixel) and whose 4-neighbours off it are all paper on both masks.
// It returns the pixels filled (255), or nil when none is.
func fillSpecks(bm, am, nearOuter []byte, lb []int32, keep, areas []int, n, minPx, w, h int) []byte {
	open := make([]bool, n) // the part is not an enclosed speck
	open[0] = true
	cand := false
	for l := 1; l < n; l++ {
		open[l] = keep[l] >= 0 || areas[l] >= minPx
		cand = cand || !open[l]
	}
	if !cand {
		return nil
	}
	removedAt := func(i int) bool { return bm[i] != 0 && am[i] == 0 }
	paperAt := func(i int) bool { return bm[i] != 0 && am[i] != 0 }
	var px []int // the removed pixels of the candidate parts
	for i, l := range lb {
		if open[l] || !removedAt(i) {
			continue
		}
		px = append(px, i)
		x, y := i%w, i/w
		if nearOuter[i] != 0 || x == 0 || y == 0 || x == w-1 || y == h-1 {
			open[l] = true
			continue
		}
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if !paperAt(j) && !(lb[j] == l && removedAt(j)) {
				open[l] = true
				break
			}
		}
	}
	var filled []byte
	for _, i := range px {
		if !open[lb[i]] {
			if filled == nil {
				filled = make([]byte, w*h)
			}
			am[i], filled[i] = 255, 255
		}
	}
	return filled
}

// orMask sets to 255 the pixels of m that are non-zero in add, and returns m.
func orMask(m, add []byte) []byte {
	for i, v := range add {
		if v != 0 {
			m[i] = 255
		}
	}
	return m
}

// andNotMask clears the pixels of m that are non-zero in sub, and returns m.
func andNotMask(m, sub []byte) []byte {
	for i, v := range sub {
		if v != 0 {
			m[i] = 0
		}
	}
	return m
}
