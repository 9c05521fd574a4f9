package ocr

import "sort"

// tipReach is how far (in letter pitches, along the ink) keepTips follows a hairline past a
// cut; 0 turns keepTips off.
//
// keepTips in every word cut inside a mark (not only joined-up ones: words of upright fonts
// whose letters touch have exit strokes too), tipReach 0.3: outlines within 1 mm of the
// truth's 89.2 -> 90.3% (TestSynthSheets, 40 sheets from seed 100; located 99.6% and letters
// right 96.7% unchanged); TestSegDiag: 88.9 -> 90.0%, DancingScript 64 -> 70%, Breip 90 ->
// 91%, femkeklaver 90 -> 92%; tipReach 0.15 and 0.5 the same within 0.1%, tipShare 0.3 or
// 0.5 0.1% less; only in joined-up words (joinedEnds' words): 89.3%. What stays is where
// the glyphs overlap at a join (an e's exit curve under an n's entry): no hairline, both
// letters' ink. The generator's letter reaching into the next letter's outline beyond its
// own more than 1 mm: 6.8 -> 5.6% of the boundaries, the reason vision/'s split doubt reach
// went from 1 to 0.9 mm (letterSplitReachMM): with 1 mm the bundled sample's "hand" (its 'h'
// removed whole, 1.0 mm from the ink of the cut 'a' across the tear once the 'h' keeps its
// exit stroke's tip) went undecided.
var tipReach = 0.3

// tipShare is the most of a letter's ink keepTips may hand back to the letter before it.
const tipShare = 0.15

// tipThin is the widest stroke keepTips takes for a hairline: its half width against the
// body strokes' (the 90th percentile of the ink's distance to blank), rounded down to whole
// pixels. 0.5 before: the joining strokes of DancingScript and the bold script fonts are
// thicker than half the body stroke and were not followed. 2/3 (TestSegDiag, 40 sheets from
// seed 100): outlines within 1 mm of the truth's 89.8 -> 90.2% (DancingScript 70 -> 72%,
// no family lower; letters right 95.8% unchanged); 0.6 89.8%, 0.75 90.1%, 1 89.1% (bodies
// handed back). Cutting a thin stretch at its thinnest column instead of its end
// (joinedEnds) was 88.5% (DancingScript 61%): the thinnest column is near the stroke's
// start, and the next letter takes the stroke.
var tipThin = 0.67

// keepTips gives the tip of a joining hairline back to the letter it leaves: after the cut
// at boundary b (between letters b and b+1, for each b in bounds), the thin ink of letter
// b+1 (hairlines: ink a morphological opening at the word's stroke scale removes) joined
// along thin ink, within tipReach pitches, to letter b's ink goes to letter b. In a script
// hand the exit stroke rises into the next letter's columns before it meets that letter's
// body, so a cut where the column ink rises (strokeEnd) leaves the stroke's last pixels to the
// next letter, and a letter's outline (a convex hull) loses its edge by 1-2 mm. At most
// tipShare of letter b+1's ink moves. groups is changed in place.
func (f *segFrame) keepTips(groups [][]int32, bounds []int, pitch float64) {
	if tipReach <= 0 || len(bounds) == 0 {
		return
	}
	w := f.im.w
	x0, y0, x1, y1 := 1<<30, 1<<30, -1, -1
	for _, g := range groups {
		for _, p := range g {
			x, y := int(p)%w, int(p)/w
			x0, x1 = min(x0, x), max(x1, x)
			y0, y1 = min(y0, y), max(y1, y)
		}
	}
	if x1 < 0 {
		return
	}
	// A one-pixel border keeps neighbour look-ups inside the grid.
	x0, y0 = x0-1, y0-1
	gw, gh := x1-x0+2, y1-y0+2
	lab := make([]int, gw*gh) // letter+1, 0: no ink
	for i, g := range groups {
		for _, p := range g {
			lab[(int(p)/w-y0)*gw+int(p)%w-x0] = i + 1
		}
	}
	// Chessboard distance to the nearest blank (two passes).
	dt := make([]int, gw*gh)
	for y := 1; y < gh-1; y++ {
		for x := 1; x < gw-1; x++ {
			k := y*gw + x
			if lab[k] == 0 {
				continue
			}
			dt[k] = 1 + min(dt[k-1], dt[k-gw-1], dt[k-gw], dt[k-gw+1])
		}
	}
	for y := gh - 2; y >= 1; y-- {
		for x := gw - 2; x >= 1; x-- {
			k := y*gw + x
			if lab[k] == 0 {
				continue
			}
			dt[k] = min(dt[k], 1+min(dt[k+1], dt[k+gw-1], dt[k+gw], dt[k+gw+1]))
		}
	}
	// The stroke scale: the 90th percentile of the ink's distances is about half the width
	// of the body strokes; hairlines are under half of that.
	var ds []int
	for _, d := range dt {
		if d > 0 {
			ds = append(ds, d)
		}
	}
	sort.Ints(ds)
	r := int(tipThin * float64(ds[len(ds)*9/10]))
	if r < 1 {
		return // strokes too thin to tell hairlines from bodies
	}
	// Body: the opening by a (2r+1)-square: ink within r of a pixel more than r from blank.
	body := make([]bool, gw*gh)
	for y := 0; y < gh; y++ {
		for x := 0; x < gw; x++ {
			if dt[y*gw+x] <= r {
				continue
			}
			for yy := max(0, y-r); yy <= min(gh-1, y+r); yy++ {
				for xx := max(0, x-r); xx <= min(gw-1, x+r); xx++ {
					body[yy*gw+xx] = true
				}
			}
		}
	}
	reach := int(tipReach * pitch)
	nb := [8]int{-gw - 1, -gw, -gw + 1, -1, 1, gw - 1, gw, gw + 1}
	for _, b := range bounds {
		if b+1 >= len(groups) {
			continue
		}
		from, to := b+1, b+2 // labels
		// Thin ink of letter b+1 touching letter b's ink, then along thin ink of b+1.
		dist := map[int]int{}
		var queue []int
		for _, p := range groups[b+1] {
			k := (int(p)/w-y0)*gw + int(p)%w - x0
			if body[k] {
				continue
			}
			for _, d := range nb {
				if lab[k+d] == from {
					dist[k] = 1
					queue = append(queue, k)
					break
				}
			}
		}
		for qi := 0; qi < len(queue); qi++ {
			k := queue[qi]
			if dist[k] >= reach {
				continue
			}
			for _, d := range nb {
				kk := k + d
				if kk < 0 || kk >= len(lab) || lab[kk] != to || body[kk] {
					continue
				}
				if _, ok := dist[kk]; !ok {
					dist[kk] = dist[k] + 1
					queue = append(queue, kk)
				}
			}
		}
		if len(queue) == 0 || float64(len(queue)) > tipShare*float64(len(groups[b+1])) {
			continue
		}
		var keep []int32
		for _, p := range groups[b+1] {
			k := (int(p)/w-y0)*gw + int(p)%w - x0
			if _, ok := dist[k]; ok {
				lab[k] = from
				groups[b] = append(groups[b], p)
			} else {
				keep = append(keep, p)
			}
		}
		groups[b+1] = keep
	}
}
