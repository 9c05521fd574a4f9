package ocr

import (
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// renderedWord renders name alone on a sheet (font file base name, cap height in mm, upright)
// and returns the ink and the word's region read left to right, with the sheet for its truth.
func renderedWord(t *testing.T, name, font string, capMM float64, seed int64) (*inkMap, *region, *synth.Sheet) {
	t.Helper()
	var path string
	for _, f := range synth.FontFiles {
		if filepath.Base(f) == font {
			path = f
		}
	}
	sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{
		Skills: []string{name}, Fonts: []string{path}, PxPerMM: 4, Ruled: -1,
		MinCapMM: capMM, MaxCapMM: capMM, Upright: true,
	})
	if err != nil {
		t.Skipf("render %s: %v", name, err)
	}
	m := sheetMat(t, sh)
	empty := gocv.NewMat()
	im, err := extractInk(m, empty, 4)
	m.Close()
	empty.Close()
	if err != nil {
		t.Fatal(err)
	}
	var comps []int
	for i := range im.comps {
		comps = append(comps, i)
	}
	rg := im.newRegion(comps)
	if rg.ux < 0 {
		rg = rg.rotated(math.Pi, im.w)
	}
	return im, rg, sh
}

// TestDotsGoToTheirLetters: an i's or j's dot is that letter's ink. Cut by marks alone, a dot
// went to the mark it overlaps most along the line, or else to the letter before it: in a
// slanted or loose hand, over the letter before the i or the one after (an upright Origami in
// dkgBd at 12 mm: the r took the first i's dot, 4.1 mm from the truth's r; Investigation in
// Breip: the g and the o took the dots, 3.9 and 4.5 mm off). With as many dots as i's and
// j's, each goes to its letter: the i's and j's, and the letters that took their dots, are
// within 1 mm of the truth's outlines (other letters of these words may be cut elsewhere
// for other reasons: descender loops).
func TestDotsGoToTheirLetters(t *testing.T) {
	for _, tc := range []struct {
		name, font string
		capMM      float64
		tookDot    []int // letters that took a dot that was not theirs
	}{
		{"Juggling", "dkg.ttf", 12, nil},
		{"Origami", "dkgBd.ttf", 12, []int{1}},
		{"Investigation", "Breip.ttf", 12, []int{7, 11}},
		{"Singing", "Breip.ttf", 12, nil},
		{"Climbing", "Breip.ttf", 6, []int{6}},
	} {
		im, rg, sh := renderedWord(t, tc.name, tc.font, tc.capMM, 3)
		lays, _, _ := im.letterOutlines(&view{rg: rg}, tc.name)
		truth := sh.Skills[0].Letters
		if len(lays) != len(truth) {
			t.Fatalf("%s: %d letters, want %d", tc.name, len(lays), len(truth))
		}
		for i, le := range truth {
			if le.Char != 'i' && le.Char != 'j' && !slices.Contains(tc.tookDot, i) {
				continue
			}
			if h := hausdorff(lays[i].Outline, truthOutline(le)); h > 1 {
				t.Errorf("%s in %s: letter %d %q is %.2f mm from the truth's outline", tc.name, tc.font, i, le.Char, h)
			}
		}
	}
}
