package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// TestSplitDoubt: a letter measured whole on one side of the tear is in doubt (removed or
// cut, on the sheet or cut) only when its outline touches a neighbour's whose ink on the other
// side of the tear comes within letterSplitReachMM of it, or within letterSplitFarMM when some
// of the letter's own ink lies within the tear's uncertainty radius: ocr/'s boundary between
// the two may be off that much in joined writing, and the cut may be in this letter. Letters
// are solid boxes of ink (6 mm wide), each word written downwards across the tear line
// y = 50 mm (the sheet above it removed), the outline of each letter its ink's; the distance
// from a whole letter's outline to its cut neighbour's ink on the other side follows from the
// boxes (the tear line is where the cut letter's ink changes side).
func TestSplitDoubt(t *testing.T) {
	reach, far := letterSplitReachMM, letterSplitFarMM
	require.Less(t, 2*reach+1, far+1) // the "beyond" cases below lie between the two or beyond far
	box := func(x, y0, y1 float64) []pt { return rectPoly(x, y0, 6, y1-y0, 0) }
	// within: the whole letter's outline ends 0.8 reach from the tear line, the cut letter
	// starts 0.2 mm beyond it: its ink across the tear begins 0.8 reach from the outline.
	within := 0.8 * reach
	// beyond: the same, between reach and far (2 reach + 1 mm).
	beyond := 2*reach + 1
	// A letter whose box ends 2 mm above the tear, with a leg (0.5 mm wide, at its left
	// edge) reaching to 0.3 mm of the tear line: the leg's ink is within the uncertainty
	// radius (a few pixels, under the letter's side share, so the letter is still measured
	// removed). The cut letter beside it (x from 2 mm right of the leg) starts 0.2 mm below
	// the box: its ink across the tear lies 2 mm from the box and 1.53 mm from the leg, both
	// between reach and far.
	leg := func(x float64) []pt {
		return []pt{{x, 40}, {x + 6, 40}, {x + 6, 48}, {x + 0.5, 48}, {x + 0.5, 49.7}, {x, 49.7}}
	}
	words := []struct {
		name  string
		polys [][]pt
		want  []judge.LetterState
	}{
		// Removed letter above a cut one, within reach: removed or cut.
		{"Do", [][]pt{box(10, 50-within-8, 50-within), box(10, 50-within+0.2, 56)}, []judge.LetterState{judge.LetterRemovedOrCut, judge.LetterCut}},
		// The same, beyond reach: removed whole (before, any removed letter touching a cut
		// one was "removed or cut"). The cut letter comes first in the word: a letter followed
		// by a cut one is exitDoubt's (letters_exit_test.go).
		{"oF", [][]pt{box(25, 50-beyond+0.2, 56), box(25, 50-beyond-8, 50-beyond)}, []judge.LetterState{judge.LetterCut, judge.LetterRemoved}},
		// Beyond reach but within far, the letter's own ink (its leg) within the tear's
		// uncertainty: removed or cut.
		{"Lo", [][]pt{leg(40), box(42.5, 48.2, 56)}, []judge.LetterState{judge.LetterRemovedOrCut, judge.LetterCut}},
		// The same letter without its leg: removed.
		{"oJ", [][]pt{box(57.5, 48.2, 56), box(55, 40, 48)}, []judge.LetterState{judge.LetterCut, judge.LetterRemoved}},
		// A letter on the sheet below a cut one, within reach: on the sheet or cut (before,
		// on the sheet for certain whatever its neighbour).
		{"ok", [][]pt{box(70, 44, 50+within-0.2), box(70, 50+within, 50+within+8)}, []judge.LetterState{judge.LetterCut, judge.LetterOnSheetOrCut}},
		// The same, beyond reach: on the sheet.
		{"om", [][]pt{box(85, 44, 50+beyond-0.2), box(85, 50+beyond, 50+beyond+8)}, []judge.LetterState{judge.LetterCut, judge.LetterOnSheet}},
		// Outlines apart (3 mm, more than letterSplitGapMM): ocr/ did not divide ink there.
		{"Ex", [][]pt{box(100, 35, 43), box(100, 46, 54)}, []judge.LetterState{judge.LetterRemoved, judge.LetterCut}},
	}
	_, before, after := topTorn()
	defer before.Close()
	defer after.Close()
	var layouts []judge.SkillLayout
	for _, wd := range words {
		l := judge.SkillLayout{Name: wd.name}
		for k, p := range wd.polys {
			l.Letters = append(l.Letters, inkLetter(&before.Image, wd.name[k:k+1], p))
		}
		l.Located = len(l.Letters)
		layouts = append(layouts, l)
	}
	photographAfter(before, after)
	r, err := Measure(before, after, layouts, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, len(words))
	for k, wd := range words {
		assert.Equal(t, wd.want, r.Measurement.Letters[k].States, wd.name)
	}
}
