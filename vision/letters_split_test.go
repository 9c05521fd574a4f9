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

// TestSplitDoubt: a letter whose outline lies wholly on the removed paper is removed whole
// unless its neighbour in the word is cut and their outlines touch: then ocr/'s division
// between the two may be off and the cut may be in this letter (ambiguous).
func TestSplitDoubt(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	tear := []pt{{0, 0}, {150, 0}, {150, 50}, {0, 50}} // the top 50 mm is removed
	bm := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil)
	am := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, [][]pt{tear})
	before, after := sheetFromMask(bm, p), sheetFromMask(am, p)
	defer before.Close()
	defer after.Close()
	// Word 1, written downwards: "R" far above, "D" just above the tear line touching "o"
	// (0.3 mm gap), "o" across the tear line y=50 (cut).
	// Word 2: "E" above the tear, 3 mm from the cut "x": a clear gap, so E stays removed.
	words := []struct {
		name  string
		boxes [][]pt
	}{
		{"RDo", [][]pt{rectPoly(20, 20, 6, 8, 0), rectPoly(20, 38, 6, 8, 0), rectPoly(20, 46.3, 6, 8, 0)}},
		{"Ex", [][]pt{rectPoly(60, 35, 6, 8, 0), rectPoly(60, 46, 6, 8, 0)}},
	}
	var layouts []judge.SkillLayout
	for _, wd := range words {
		l := judge.SkillLayout{Name: wd.name}
		for k, b := range wd.boxes {
			var q []image.Point
			var o []judge.Point
			for _, v := range b {
				q = append(q, mmToPx(v, DefaultPxPerMM).img())
				o = append(o, judge.Point{X: v.X, Y: v.Y})
			}
			v := gocv.NewPointsVectorFromPoints([][]image.Point{q})
			gocv.FillPoly(&before.Image, v, colorRGBA(20, 20, 20))
			v.Close()
			l.Letters = append(l.Letters, judge.Letter{Char: wd.name[k : k+1], Outline: o})
		}
		l.Located = len(l.Letters)
		layouts = append(layouts, l)
	}
	// E's box is 35..43 mm and x's 46..54: a 3 mm gap, more than letterSplitGapMM.
	r, err := Measure(before, after, layouts, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, 2)
	assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterAmbiguous, judge.LetterCut}, r.Measurement.Letters[0].States)
	assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterCut}, r.Measurement.Letters[1].States)
}
