package ocr

import (
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// TestSkillInThreePieces writes "Herbalism" in three pieces along one line ("Herb", "ali",
// "sm", each stamped on its own, about half a letter height apart beyond what word grouping
// joins), as a large word in a script with wide letter gaps came out of a photo (seed 6
// case-003: 16 mm capitals, three word regions). Each piece alone, and each two together,
// read far from the name; the three read as one must be located, on all three pieces.
func TestSkillInThreePieces(t *testing.T) {
	const w, h = 1000, 600
	const font, capMM, deg = "ComicNeue-Regular.otf", 12.0, 20.0
	canvas := make([]uint8, w*h)
	for i := range canvas {
		canvas[i] = 235
	}
	owner := make([]int, w*h)
	c, s := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
	at := 150.0
	for id, piece := range []string{"Herb", "ali", "sm"} {
		st := stampWord(t, piece, font, capMM)
		at += float64(st.w) / 2
		st.paste(canvas, owner, w, h, 150+at*c, 150+at*s, deg, id+1)
		at += float64(st.w)/2 + 0.9*capMM*4
	}
	m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8U, canvas)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	im, err := extractInk(m, empty, 4)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(im.groupWords(wordGap)); n != 3 {
		t.Fatalf("test layout: %d word regions, want the three pieces apart", n)
	}
	l := newTestLocator(t)
	lays, err := l.Locate(m, empty, 4, []string{"Herbalism", "Cooking", "Archery"})
	if err != nil {
		t.Fatal(err)
	}
	lay := lays[0]
	if lay.Located != 9 {
		t.Fatalf("Herbalism: %d letters located, notes %q", lay.Located, lay.Notes)
	}
	// Letters 0-3 on "Herb", 4-6 on "ali", 7-8 on "sm": each letter's centre on its piece's ink.
	want := []int{1, 1, 1, 1, 2, 2, 2, 3, 3}
	for i, le := range lay.Letters {
		ctr := centroid(le.Outline)
		best, bd := 0, math.Inf(1)
		for p, o := range owner {
			if o == 0 {
				continue
			}
			if d := math.Hypot(float64(p%w)/4-ctr.X, float64(p/w)/4-ctr.Y); d < bd {
				best, bd = o, d
			}
		}
		if best != want[i] {
			t.Errorf("letter %d of Herbalism lies on piece %d, want %d (notes %q)", i, best, want[i], lay.Notes)
		}
	}
}
