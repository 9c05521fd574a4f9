package vision

import (
	"testing"

	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// TestGhostLettersNotOnSheet: seed 3 case-003, tear 4 (cut_only), measured from emil-2 (the
// photo before tear 3, which cuts the sheet off) to emil-4 on a pale desk. The letters "Hops"
// of Hopscotch went with the piece, but the after mask keeps an 8 x 30 mm strip of desk around
// them as paper (the change test's pale-desk weakness), so their ink read "on the sheet": one
// letter for certain, one whole-or-cut, and the referee counted 7 letters of Hopscotch left
// where the truth has 5. The photo shows no ink there: no removed letter may now be measured
// as (even partly) certainly on the sheet, and every letter the truth leaves whole on the
// sheet must still be measured so.
func TestGhostLettersNotOnSheet(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed3-case003")
	defer fresh.Close()
	b, a := register(pl.Tears[1].Photo.File), register(pl.Tears[3].Photo.File)
	defer b.Close()
	defer a.Close()
	toOurs := homog(pl.Sheet.Homography).inv().mul(homog(fresh.H)).inv() // truth mm -> our mm
	layouts := truthLayouts(pl, toOurs)
	res, err := Measure(b, a, layouts, template.Default())
	require.NoError(t, err)
	defer res.Close()
	want := pl.Tears[3].ExactLetters
	got := res.Measurement.Letters
	require.Len(t, got, len(want))
	for si, sk := range want {
		for li, ws := range sk.States {
			gs := got[si].States[li]
			t.Logf("%s letter %d: truth %s, measured %s", sk.Name, li+1, ws, gs)
			switch ws {
			case judge.LetterRemoved, judge.LetterGone:
				require.NotContains(t, []judge.LetterState{judge.LetterOnSheet, judge.LetterOnSheetOrCut, judge.LetterCut}, gs,
					"%s letter %d is off the sheet", sk.Name, li+1)
			case judge.LetterOnSheet:
				require.Contains(t, []judge.LetterState{judge.LetterOnSheet, judge.LetterOnSheetOrCut}, gs,
					"%s letter %d is whole on the sheet", sk.Name, li+1)
			}
		}
	}
}
