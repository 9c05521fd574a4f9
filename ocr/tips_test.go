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
