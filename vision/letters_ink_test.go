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

// TestLetterStatesInkOnly: only ink decides. A coarse OCR outline reaching off the
// before-paper (past an earlier tear) does not make its letter gone; in joined writing, where
// outlines overlap, a neighbour's stroke crossing the tear does not make a letter cut or
// ambiguous (each pixel belongs to the nearest outline centre); an outline with no ink at
// all that crosses the tear is unknown, not a certain state; one wholly on paper torn off, well
// away from the tear, is removed.
func TestLetterStatesInkOnly(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	earlier := rectPoly(0, 0, 150, 50, 0) // torn off before: the before-sheet starts at y=50
	tear := rectPoly(0, 150, 150, 50, 0)  // this tear: everything below y=150
	bm := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, [][]pt{earlier})
	am := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, [][]pt{earlier, tear})
	before, after := sheetFromMask(bm, p), sheetFromMask(am, p)
	defer before.Close()
	defer after.Close()
	// The letters are judged on the fresh sheet's image: paper everywhere.
	before.Image.SetTo(gocv.NewScalar(240, 240, 240, 0))
	letters := []struct {
		char    string
		ink     []pt // drawn dark on the before-image (nil: none)
		outline []pt
	}{
		{"g", rectPoly(20, 55, 6, 8, 0), rectPoly(18, 45, 10, 20, 0)},   // outline 5 mm past the earlier tear
		{"A", rectPoly(50, 140, 6, 6, 0), rectPoly(48, 138, 14, 18, 0)}, // on the sheet, 4 mm from the tear
		{"B", rectPoly(60, 146, 6, 8, 0), rectPoly(57, 138, 12, 18, 0)}, // across the tear; overlaps A's outline
		{"N", nil, rectPoly(100, 145, 6, 8, 0)},                         // no ink, across the tear
		{"S", rectPoly(120, 100, 6, 8, 0), rectPoly(119, 99, 8, 10, 0)}, // plainly on the sheet
		{"P", nil, rectPoly(30, 165, 6, 8, 0)},                          // no ink, wholly on the torn-off paper
		{"Q", nil, rectPoly(80, 150.6, 6, 8, 0)},                        // no ink, torn off but 0.6 mm from the tear
		{"R", nil, rectPoly(130, 120, 6, 8, 0)},                         // no ink, wholly on the sheet
	}
	var layout judge.SkillLayout
	layout.Name = "gABNSPQR"
	for _, l := range letters {
		if l.ink != nil {
			var q []image.Point
			for _, v := range l.ink {
				q = append(q, mmToPx(v, DefaultPxPerMM).img())
			}
			v := gocv.NewPointsVectorFromPoints([][]image.Point{q})
			gocv.FillPoly(&before.Image, v, colorRGBA(20, 20, 20))
			v.Close()
		}
		var o []judge.Point
		for _, v := range l.outline {
			o = append(o, judge.Point{X: v.X, Y: v.Y})
		}
		layout.Letters = append(layout.Letters, judge.Letter{Char: l.char, Outline: o})
	}
	layout.Located = len(layout.Letters)
	photographAfter(before, after)
	r, err := Measure(before, after, []judge.SkillLayout{layout}, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, 1)
	// An inkless outline wholly on paper torn off is removed when it lies more than a
	// millimetre beyond the usual reach from the tear (P), unknown closer (Q).
	assert.Equal(t, []judge.LetterState{judge.LetterOnSheet, judge.LetterOnSheet, judge.LetterCut, judge.LetterUnknown, judge.LetterOnSheet,
		judge.LetterRemoved, judge.LetterUnknown, judge.LetterOnSheet},
		r.Measurement.Letters[0].States)
}
