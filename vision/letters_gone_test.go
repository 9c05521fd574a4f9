package vision

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
)

// TestLetterGoneInPhoto: a letter of five strokes (3 x 20 px, 5 px apart, at 4 px/mm) that the
// tear cuts 2 px (0.5 mm) deep has all its removed ink within the uncertainty radius of the
// tear line (4 px), so the masks alone call it on the sheet or cut. The after photo shows the
// table where the strokes' tips were: ink more than 1 px beyond the ink left (the photo's own
// blur) is gone, 15 px of 300, over the 4% a side needs (12), so the letter is cut
// (inkGone). The photo decides only when it shows the ink gone: where it shows the ink (the
// mask's line wrongly through the letter) or a table of the ink's colour (ghost ink), the
// letter stays on the sheet or cut; without the photo's colours, too.
func TestLetterGoneInPhoto(t *testing.T) {
	const w, h, line = 60, 60, 20 // the after-mask: paper from row line down
	paper, ink, table := [3]byte{240, 240, 240}, [3]byte{20, 20, 20}, [3]byte{60, 70, 90}
	stroke := func(x, y int) bool { return y >= line-2 && y < line+18 && x >= 10 && x < 35 && (x-10)%5 < 3 }
	g := make([]byte, w*h)
	bm, am := make([]byte, w*h), make([]byte, w*h)
	for i := range g {
		x, y := i%w, i/w
		g[i], bm[i] = 240, 255
		if stroke(x, y) {
			g[i] = 20
		}
		if y >= line {
			am[i] = 255
		}
	}
	lp := &letterPoly{poly: []pt{{9, line - 3}, {35, line - 3}, {35, line + 18}, {9, line + 18}}, centre: pt{22, line + 7}, box: image.Rect(9, line-3, 36, line+19)}
	photo := func(off func(x, y int) [3]byte) afterInk {
		return stripPhoto(w, h, line, paper, ink, off, stroke)
	}
	cases := []struct {
		name string
		ai   afterInk
		want judge.LetterState
	}{
		{"the table shows where the ink was", photo(func(int, int) [3]byte { return table }), judge.LetterCut},
		{"the photo shows the ink", photo(func(x, y int) [3]byte {
			if stroke(x, y) {
				return ink
			}
			return table
		}), judge.LetterOnSheetOrCut},
		{"a table the ink's colour", photo(func(int, int) [3]byte { return [3]byte{24, 22, 22} }), judge.LetterOnSheetOrCut},
		{"no colours", afterInk{}, judge.LetterOnSheetOrCut},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, letterState(lp, nil, g, bm, am, bm, am, c.ai, w, h, 4, 4, 2))
		})
	}
}

// TestPaleLetterInk: a pencil letter (strokes 40 grey levels under the paper, under the fixed
// ink threshold of 48) that the tear cuts 2 mm deep, with a few darker pixels (a pressed
// stroke's end) on the sheet. Measured on those few pixels alone it was on the sheet for
// certain; its ink is now what is darker than half-way to its own darkest, and it is cut.
// Paper with no writing (its grain, 3 levels) still holds no ink: the outline alone decides.
func TestPaleLetterInk(t *testing.T) {
	const w, h, line = 60, 60, 20
	stroke := func(x, y int) bool { return y >= line-8 && y < line+12 && x >= 10 && x < 35 && (x-10)%5 < 3 }
	mk := func(pale, dark byte) []byte {
		g := make([]byte, w*h)
		for i := range g {
			x, y := i%w, i/w
			g[i] = byte(240 - 3*((x+y)%2))
			switch {
			case stroke(x, y) && y >= line+10:
				g[i] = dark
			case stroke(x, y):
				g[i] = pale
			}
		}
		return g
	}
	bm, am := make([]byte, w*h), make([]byte, w*h)
	for i := range bm {
		bm[i] = 255
		if i/w >= line {
			am[i] = 255
		}
	}
	lp := &letterPoly{poly: []pt{{9, line - 9}, {35, line - 9}, {35, line + 12}, {9, line + 12}}, centre: pt{22, line + 1}, box: image.Rect(9, line-9, 36, line+13)}
	assert.Equal(t, judge.LetterCut, letterState(lp, nil, mk(200, 185), bm, am, bm, am, afterInk{}, w, h, 4, 2, 1), "pencil")
	assert.Equal(t, judge.LetterCut, letterState(lp, nil, mk(20, 20), bm, am, bm, am, afterInk{}, w, h, 4, 2, 1), "pen")
	// no writing: the outline straddles the tear, so it is unknown
	assert.Equal(t, judge.LetterUnknown, letterState(lp, nil, mk(240, 240), bm, am, bm, am, afterInk{}, w, h, 4, 2, 1), "blank")
}

// TestLetterSliverCut: ten strokes (3 x 20 px) on the sheet 4 px from the tear line, the first
// reaching on to 5 px past it: 9 of the 627 ink pixels lie beyond the uncertainty radius (2 px) on paper
// both masks call removed. That is under the 4% a side needs (25), so the letter is not
// cut for certain, but neither is it on the sheet for certain: on the sheet or cut. With
// the stroke stopping 1 px past the line (all its removed ink uncertain), or at the line, it
// is on the sheet.
func TestLetterSliverCut(t *testing.T) {
	const w, h, line = 80, 60, 20
	bm, am := make([]byte, w*h), make([]byte, w*h)
	for i := range bm {
		bm[i] = 255
		if i/w >= line {
			am[i] = 255
		}
	}
	lp := &letterPoly{poly: []pt{{9, line - 6}, {60, line - 6}, {60, line + 25}, {9, line + 25}}, centre: pt{34, line + 9}, box: image.Rect(9, line-6, 61, line+26)}
	for _, c := range []struct {
		past int // how far the first stroke reaches past the line
		want judge.LetterState
	}{{5, judge.LetterOnSheetOrCut}, {1, judge.LetterOnSheet}, {0, judge.LetterOnSheet}} {
		g := make([]byte, w*h)
		for i := range g {
			x, y := i%w, i/w
			g[i] = 240
			if x >= 10 && x < 60 && (x-10)%5 < 3 && y < line+24 && (y >= line+4 || (x < 13 && y >= line-c.past)) {
				g[i] = 20
			}
		}
		assert.Equal(t, c.want, letterState(lp, nil, g, bm, am, bm, am, afterInk{}, w, h, 4, 2, 1), "%d px past the line", c.past)
	}
}

// TestLetterEvidenceFromNeighbour: a word of two letters on a 25 x 15 mm frame whose after-mask
// keeps the paper from row 20 down, measured with a registration residual of 1 mm (the
// uncertainty radius 6 px). "a" lies wholly on the sheet, far from the tear; "b" (five
// strokes, rows 6 to 22) reaches 3 px past the line: by the masks alone it is removed or cut
// (45 px on the sheet side, all uncertain), and it has no ink of its own certainly on the
// sheet to compare the photo with, so its neighbour's ink is the reference (neighbourInk).
// Where the after photo shows b's ink below the line, with the table above it unlike the
// ink, "b" is cut (45 px kept, over the 10 its side needs); where it shows the table there
// (the mask's line 3 px off: the paper and the ink went), it is removed; over a table the
// ink's colour, or without the photo's colours, the doubt stays.
func TestLetterEvidenceFromNeighbour(t *testing.T) {
	const w, h, line = 100, 60, 20
	paper, ink := [3]byte{240, 240, 240}, [3]byte{20, 20, 20}
	strokeA := func(x, y int) bool { return y >= 34 && y < 50 && x >= 10 && x < 30 && (x-10)%5 < 3 }
	strokeB := func(x, y int) bool { return y >= 6 && y < line+3 && x >= 50 && x < 75 && (x-50)%5 < 3 }
	g := make([]byte, w*h)
	bm, am := make([]byte, w*h), make([]byte, w*h)
	for i := range g {
		x, y := i%w, i/w
		g[i], bm[i] = 240, 255
		if strokeA(x, y) || strokeB(x, y) {
			g[i] = 20
		}
		if y >= line {
			am[i] = 255
		}
	}
	removed := make([]byte, w*h)
	for i := range removed {
		if am[i] == 0 {
			removed[i] = 255
		}
	}
	mm := func(x, y float64) judge.Point { return judge.Point{X: x / 4, Y: y / 4} }
	layout := judge.SkillLayout{Name: "ab", Located: 2, Letters: []judge.Letter{
		{Char: "a", Outline: []judge.Point{mm(9, 33), mm(31, 33), mm(31, 51), mm(9, 51)}},
		{Char: "b", Outline: []judge.Point{mm(49, 5), mm(76, 5), mm(76, line+3), mm(49, line+3)}},
	}}
	// photo: the after photo, showing the table (off) above row edge and b's ink below it.
	photo := func(edge int, off [3]byte) afterInk {
		return stripPhoto(w, h, edge, paper, ink, func(int, int) [3]byte { return off },
			func(x, y int) bool { return strokeA(x, y) || strokeB(x, y) })
	}
	table := [3]byte{60, 70, 90}
	cases := []struct {
		name string
		ai   afterInk
		want judge.LetterState
	}{
		{"b's ink shown below the line", photo(line, table), judge.LetterCut},
		{"the table shown where the mask keeps b's ink", photo(line+3, table), judge.LetterRemoved},
		{"a table the ink's colour", photo(line+3, [3]byte{24, 22, 22}), judge.LetterRemovedOrCut},
		{"no colours", afterInk{}, judge.LetterRemovedOrCut},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := &SheetImage{PxPerMM: 4, inkGray: g}
			got := letterStates(before, bm, am, removed, c.ai, w, h, []judge.SkillLayout{layout}, 1)
			require.Len(t, got, 1)
			assert.Equal(t, []judge.LetterState{judge.LetterOnSheet, c.want}, got[0].States)
		})
	}
}

// stripPhoto is an after photo (w x h, the sheet frame) showing off(x, y) above row edge and,
// from it down, the paper with the ink where stroke holds (seen as ink there).
func stripPhoto(w, h, edge int, paper, ink [3]byte, off func(x, y int) [3]byte, stroke func(x, y int) bool) afterInk {
	ai := afterInk{seen: make([]byte, w*h), bgr: make([]byte, 3*w*h)}
	for i := range ai.seen {
		x, y := i%w, i/w
		c := paper
		switch {
		case y < edge:
			c = off(x, y)
		case stroke(x, y):
			c, ai.seen[i] = ink, 255
		}
		copy(ai.bgr[3*i:], c[:])
	}
	return ai
}
