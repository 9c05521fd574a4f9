package vision

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// TestExitDoubt: a letter whose exit stroke ocr/ gave to the next letter's outline (its ink
// reaching on into that outline, joined writing) is measured whole when the tear cuts only
// that stroke; exitDoubt makes it a doubt that includes the truth when the tear line crosses
// the next letter's outline within letterExitFrac of the word's median outline extent beyond
// the letter's own ink, along the writing, and leaves it whole beyond. The sheet above y = 50 mm
// is torn off. Each word has three letters, 6 mm wide, written up the sheet (the first on the
// sheet, the second across the tear, the third removed) or down it (the first removed, the
// second across the tear, the third on the sheet); the first and third outlines are 8 mm
// long, the second 11 mm, so the median extent is that of a 6 x 8 mm box (10 mm). The first
// letter's ink is its outline's box and, where it has an exit stroke (1 mm wide), a stroke
// from it across the tear into the second outline; the second letter's ink is its box, 7.5 mm
// of the outline, starting at its far end.
func TestExitDoubt(t *testing.T) {
	const med = 10.0 // the median outline extent, mm
	reach := letterExitFrac * med
	require.Greater(t, reach, 1.5)
	require.Less(t, reach, 5.0)
	within := reach - 1 // the tear this far beyond the first letter's own ink
	beyond := reach + 1
	fill := func(img *gocv.Mat, poly []pt) {
		var q []image.Point
		for _, v := range poly {
			q = append(q, mmToPx(v, DefaultPxPerMM).img())
		}
		v := gocv.NewPointsVectorFromPoints([][]image.Point{q})
		gocv.FillPoly(img, v, colorRGBA(20, 20, 20))
		v.Close()
	}
	outline := func(char string, poly []pt) judge.Letter {
		var o []judge.Point
		for _, v := range poly {
			o = append(o, judge.Point{X: v.X, Y: v.Y})
		}
		return judge.Letter{Char: char, Outline: o}
	}
	box := func(x, y0, y1 float64) []pt { return rectPoly(x, y0, 6, y1-y0, 0) }
	type word struct {
		name string
		up   bool    // written up the sheet (the first letter on the sheet)
		gap  float64 // the tear's distance from the first letter's own ink, mm
		exit bool    // the first letter has an exit stroke across the tear
		want judge.LetterState
	}
	words := []word{
		// On the sheet, its exit stroke cut within reach: the truth is cut; on the sheet or
		// cut (before: on the sheet for certain).
		{"mmi", true, within, true, judge.LetterOnSheetOrCut},
		// The same letter without an exit stroke (separate marks, not joined writing), its
		// neighbour cut beyond reach: on the sheet.
		{"nmi", true, beyond, false, judge.LetterOnSheet},
		// Removed, its neighbour cut within reach (no exit stroke): removed. exitDoubt leaves
		// removed letters to splitDoubt: their doubts make tears undecided (see exitDoubt).
		{"hng", false, within, false, judge.LetterRemoved},
	}
	_, before, after := topTorn()
	defer before.Close()
	defer after.Close()
	var layouts []judge.SkillLayout
	for k, wd := range words {
		x := 10 + 20*float64(k)
		var first, second, third, ink2 []pt
		var stroke []pt
		if wd.up {
			e := 50 + wd.gap // the first letter's own ink ends here (its top)
			first = box(x, e, e+8)
			second = box(x, e-11, e)
			ink2 = box(x, e-11, e-3.5)
			third = box(x, e-19, e-11)
			stroke = rectPoly(x, e-wd.gap-1.5, 1, wd.gap+1.5, 0)
		} else {
			e := 50 - wd.gap // the first letter's own ink ends here (its bottom)
			first = box(x, e-8, e)
			second = box(x, e, e+11)
			ink2 = box(x, e+3.5, e+11)
			third = box(x, e+11, e+19)
			stroke = rectPoly(x, e, 1, wd.gap+1.5, 0)
		}
		fill(&before.Image, first)
		fill(&before.Image, ink2)
		fill(&before.Image, third)
		if wd.exit {
			fill(&before.Image, stroke)
		}
		l := judge.SkillLayout{Name: wd.name, Located: 3}
		for i, p := range [][]pt{first, second, third} {
			l.Letters = append(l.Letters, outline(wd.name[i:i+1], p))
		}
		layouts = append(layouts, l)
	}
	photographAfter(before, after)
	r, err := Measure(before, after, layouts, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, len(words))
	for k, wd := range words {
		require.Len(t, r.Measurement.Letters[k].States, 3, wd.name)
		assert.Equal(t, wd.want, r.Measurement.Letters[k].States[0], wd.name)
	}
}
