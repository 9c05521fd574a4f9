package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// TestSplitDoubt: a letter whose outline lies wholly on the removed paper is removed whole
// unless its neighbour in the word is cut and their outlines touch: then ocr/'s division
// between the two may be off and the cut may be in this letter (ambiguous).
func TestSplitDoubt(t *testing.T) {
	_, before, after := topTorn() // the tear line is y = 50 mm
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
			l.Letters = append(l.Letters, inkLetter(&before.Image, wd.name[k:k+1], b))
		}
		l.Located = len(l.Letters)
		layouts = append(layouts, l)
	}
	// E's box is 35..43 mm and x's 46..54: a 3 mm gap, more than letterSplitGapMM.
	photographAfter(before, after)
	r, err := Measure(before, after, layouts, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, 2)
	assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterRemovedOrCut, judge.LetterCut}, r.Measurement.Letters[0].States)
	assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterCut}, r.Measurement.Letters[1].States)
}
