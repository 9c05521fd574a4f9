package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// TestSpeckInInkNotRemoved: held-out seed 9 case-011 dana-1, a tear that removed nothing
// (truth: nothing_removed). The photo is sharper than the fresh one, and its paper mask left
// two specks of "no paper" of 1-2 mm in the ink where Swordsmanship's "o" joins the "r": no
// piece (Measure ignores them), but the letter states, read from the masks, called the "o"
// cut and the "r" on_sheet_or_cut, and every later tear measured from this sheet read the
// "o" as gone: tear 5 removed it whole and was ruled no_full_letter for certain (truth:
// piece_too_small only). Specks enclosed by paper are paper now: every letter of every skill
// (the truth's outlines) is on the sheet, and the sheet carried forward has no hole there.
func TestSpeckInInkNotRemoved(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed9-case011")
	defer fresh.Close()
	after := register(pl.Tears[0].Photo.File)
	defer after.Close()
	require.Empty(t, pl.Tears[0].Pieces)
	toOurs := homog(fresh.H).inv().mul(homog(pl.Sheet.Homography))
	r, err := Measure(fresh, after, truthLayouts(pl, toOurs), template.Default())
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, 0, r.Measurement.Pieces)
	for _, sk := range r.Measurement.Letters {
		for i, st := range sk.States {
			assert.Equal(t, judge.LetterOnSheet, st, "%s letter %d", sk.Name, i+1)
		}
	}
	// The "o" (truth outline, bounding box 77.25-85.75 x 175.9-183.25 mm): paper all over.
	ppm := after.PxPerMM
	w := after.Mask.Cols()
	am := after.Mask.ToBytes()
	holes := 0
	for y := 175.9; y <= 183.25; y += 0.25 {
		for x := 77.25; x <= 85.75; x += 0.25 {
			q := mmToPx(toOurs.apply(pt{x, y}), ppm)
			if am[int(q.Y+0.5)*w+int(q.X+0.5)] == 0 {
				holes++
			}
		}
	}
	assert.Zero(t, holes, "points of the o's box the after mask calls not paper (before: specks)")
}

// TestFillSpecks: exact masks (paper 150 x 200 mm). The after mask lacks a 3 mm square in the
// middle of the sheet (a speck: paper all round, too small for a piece), a 3 mm square 0.5 mm
// from the left side (along the sheet's edge: left alone, as Measure's edge rules decide
// such missing paper), and a 30 x 40 mm bite at the right side (a piece). Measure fills the
// first in the after mask, and only it.
func TestFillSpecks(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	speck := rectPoly(70, 100, 3, 3, 0)
	edge := rectPoly(0.5, 50, 3, 3, 0)
	bite := rectPoly(120, 150, 30, 40, 0)
	before := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), p)
	defer before.Close()
	after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{speck, edge, bite}), p)
	defer after.Close()
	r, err := Measure(before, after, nil, template.Default())
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, 1, r.Measurement.Pieces)
	assert.InDelta(t, 1200, r.Measurement.RemovedAreaMM2, 30)
	am := after.Mask.ToBytes()
	at := func(x, y float64) byte { return am[int(y*ppm)*sz.X+int(x*ppm)] }
	assert.EqualValues(t, 255, at(71.5, 101.5), "the speck is paper")
	assert.EqualValues(t, 0, at(2, 51.5), "missing paper along the edge stays")
	assert.EqualValues(t, 0, at(135, 170), "the bite stays")
}
