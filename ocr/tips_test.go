package ocr

import "testing"

// TestKeepTipsHairline: two letter bodies (10x20 px blocks) joined by a one-pixel hairline
// leaving the first at its foot and rising into the second's columns to meet its body, the
// second with a hairline of its own leaving it (its exit stroke); the word cut straight at
// column 23, part of the way along the joining hairline. keepTips gives the joining
// hairline's pixels past the cut back to the first letter and moves nothing else: the
// second letter's body and its own exit stroke stay, the first letter loses nothing.
func TestKeepTipsHairline(t *testing.T) {
	const w, h = 70, 32
	owner := map[int32]int{} // the drawn letter of each ink pixel
	put := func(x, y, l int) { owner[int32(y*w+x)] = l }
	for y := 5; y <= 24; y++ {
		for x := 5; x <= 14; x++ {
			put(x, y, 0)
		}
		for x := 28; x <= 37; x++ {
			put(x, y, 1)
		}
	}
	// The joining hairline: from the first body's foot (x 15, y 24) up to the second's side
	// (x 27, y 12), one pixel wide, 8-connected.
	for x := 15; x <= 27; x++ {
		put(x, 24-(x-15), 0)
	}
	// The second letter's exit stroke: along its foot to x 45.
	for x := 38; x <= 45; x++ {
		put(x, 24, 1)
	}
	groups := make([][]int32, 2)
	for p := range owner {
		l := 0
		if int(p)%w >= 23 {
			l = 1
		}
		groups[l] = append(groups[l], p)
	}
	moved := 0
	for _, p := range groups[1] {
		if owner[p] == 0 {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("the straight cut gave the second letter none of the hairline: no test")
	}
	f := &segFrame{im: &inkMap{w: w, h: h}}
	f.keepTips(groups, []int{0}, 23)
	for l, g := range groups {
		for _, p := range g {
			if owner[p] != l {
				t.Errorf("pixel (%d, %d) of letter %d given to letter %d", int(p)%w, int(p)/w, owner[p], l)
			}
		}
	}
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	if n != len(owner) {
		t.Errorf("%d pixels after keepTips, want %d", n, len(owner))
	}
}

// TestKeepTipsThickJoin: two letter bodies 12 px wide (the body stroke: half width 6 px,
// the 90th percentile of the ink's distance to blank 5 px) joined by a straight stroke 5 px
// thick (half width 3 px: more than half the body's, under two thirds of it), the word cut
// straight across it 4 px before the second body. The joining stroke is the first letter's
// (drawn as its exit); keepTips (tipThin 2/3) gives its pixels past the cut back to the
// first letter, and none of the second letter's body.
func TestKeepTipsThickJoin(t *testing.T) {
	const w, h = 80, 36
	owner := map[int32]int{}
	put := func(x, y, l int) { owner[int32(y*w+x)] = l }
	for y := 5; y <= 28; y++ {
		for x := 5; x <= 16; x++ {
			put(x, y, 0)
		}
		for x := 31; x <= 42; x++ {
			put(x, y, 1)
		}
	}
	for y := 24; y <= 28; y++ {
		for x := 17; x <= 30; x++ {
			put(x, y, 0)
		}
	}
	const cut = 27
	groups := make([][]int32, 2)
	past := 0 // the joining stroke's pixels the straight cut gives the second letter
	for p := range owner {
		l := 0
		if int(p)%w >= cut {
			l = 1
			if owner[p] == 0 {
				past++
			}
		}
		groups[l] = append(groups[l], p)
	}
	f := &segFrame{im: &inkMap{w: w, h: h}}
	f.keepTips(groups, []int{0}, 40)
	back := 0
	for _, p := range groups[0] {
		if owner[p] == 1 {
			t.Errorf("pixel (%d, %d) of the second letter's body given to the first", int(p)%w, int(p)/w)
		}
		if int(p)%w >= cut {
			back++
		}
	}
	if back*2 < past {
		t.Errorf("%d of the joining stroke's %d pixels past the cut given back, want at least half", back, past)
	}
	if n := len(groups[0]) + len(groups[1]); n != len(owner) {
		t.Errorf("%d pixels after keepTips, want %d", n, len(owner))
	}
}
