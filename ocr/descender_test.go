package ocr

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
)

// A g whose descender loop reaches back under the letter before it (joined-up fonts)
// spans, along the line, that letter too: the two were once merged as lying over one another
// and the loop cut off with the n (Fishing's n and g 16.6 and 12.2 mm off). Letters are told apart by their ink on the
// core band, so the loop stays with its g: the letters' outlines match the truth's.
func TestDescenderLoopStaysWithItsLetter(t *testing.T) {
	for _, tc := range []struct {
		name, font string
		capMM      float64
	}{
		{"Swimming", "dkg.ttf", 6.2},
		{"Fishing", "dkgBd.ttf", 16},
		{"Wrestling", "dkg.ttf", 5.2},
	} {
		var path string
		for _, f := range synth.FontFiles {
			if filepath.Base(f) == tc.font {
				path = f
			}
		}
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(11)), synth.SheetSpec{
			Skills: []string{tc.name}, Fonts: []string{path}, PxPerMM: 4, Ruled: -1,
			MinCapMM: tc.capMM, MaxCapMM: tc.capMM, Upright: true,
		})
		if err != nil {
			t.Skipf("render %s: %v", tc.name, err)
		}
		m := sheetMat(t, sh)
		empty := gocv.NewMat()
		im, err := extractInk(m, empty, 4)
		m.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The word's region: all the ink (the sheet holds the word alone), read left to
		// right.
		var comps []int
		for i := range im.comps {
			comps = append(comps, i)
		}
		rg := im.newRegion(comps)
		if rg.ux < 0 {
			rg = rg.rotated(math.Pi, im.w)
		}
		lays, _, _ := im.letterOutlines(&view{rg: rg}, tc.name)
		truth := sh.Skills[0].Letters
		if len(lays) != len(truth) {
			t.Fatalf("%s: %d letters, want %d", tc.name, len(lays), len(truth))
		}
		for i, le := range truth {
			var q []judge.Point
			for _, p := range le.Outline {
				q = append(q, judge.Point{X: p.X, Y: p.Y})
			}
			h := hausdorff(lays[i].Outline, q)
			t.Logf("%s %c: %.2f mm", tc.name, le.Char, h)
			// The g and the n its loop reaches back under (the letters before them may
			// be cut elsewhere for other reasons).
			if i >= len(truth)-2 && h > 1 {
				t.Errorf("%s: letter %d %q is %.1f mm from the truth's outline", tc.name, i, le.Char, h)
			}
		}
	}
}
