package vision

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/template"
)

// TestShadeHoleFilled: held-out seed 9 case-007 (a white sheet on a pale desk). chidi-1's
// photo has a hand's soft shadow over the right half of the sheet; its core was lost by the
// paper mask as a 1014 mm² hole touching no edge (no step bounds it), and the tear was
// undecided ("it may be paper the paper mask missed"). chidi-3's hole (1922 mm², torn) is
// bounded by its tear line all round and stays. Seed 7 case-019 kofi-2 (TestHoleLooksLikePaper):
// two holes of 35-45 mm² in a band of shade beside "Occult Lore", paper. Areas from the truth
// (maskMisses, 1 mm tolerance), with fillShadeHoles off and on; the figures are this test's
// own log (chidi-1: lost 1014 -> 0 mm²; chidi-3: lost 3, table called paper 20, unchanged; kofi-2:
// lost 148 -> 22 mm²).
func TestShadeHoleFilled(t *testing.T) {
	for _, c := range []struct {
		bundle, photo string
		tear          int
		lostOff       float64 // at least, fillShadeHoles off
		lost, extra   float64 // at most, on
		note          bool
	}{
		{"seed9-case007", "chidi-1.jpg", 1, 900, 10, 10, true},
		{"seed9-case007", "chidi-3.jpg", 3, 0, 10, 30, false},
		{"seed7-case019", "kofi-2.jpg", 2, 50, 30, 10, true}, // 22 mm² lost elsewhere
	} {
		t.Run(c.bundle+"/"+c.photo, func(t *testing.T) {
			pl, fresh, register := bundledCase(t, c.bundle)
			defer fresh.Close()
			var lost, extra [2]float64
			var notes [2][]string
			for k, off := range []bool{true, false} {
				shadeHolesOff = off
				s := register(c.photo)
				shadeHolesOff = false
				w, h := s.Mask.Cols(), s.Mask.Rows()
				truth := truthPaperInFrame(fresh, pl, c.tear, w, h)
				got := s.Mask.ToBytes()
				for i := range got {
					if len(s.unknown) == len(got) && s.unknown[i] != 0 {
						got[i] = truth[i] // the photo cuts the sheet off: what it does not show is no error
					}
				}
				lost[k], extra[k] = maskMisses(t, truth, got, w, h, s.PxPerMM, 1)
				notes[k] = s.Notes
				s.Close()
			}
			t.Logf("%s: paper lost %.0f -> %.0f mm², table called paper %.0f -> %.0f mm²", c.photo, lost[0], lost[1], extra[0], extra[1])
			assert.GreaterOrEqual(t, lost[0], c.lostOff, "without the fill")
			assert.LessOrEqual(t, lost[1], c.lost)
			assert.LessOrEqual(t, extra[1], c.extra)
			shade := func(ns []string) bool {
				for _, n := range ns {
					if strings.Contains(n, "taken for shaded paper") {
						return true
					}
				}
				return false
			}
			assert.False(t, shade(notes[0]))
			assert.Equal(t, c.note, shade(notes[1]), "%v", notes[1])
		})
	}
}

// TestTearLineUnseen: seed 2 case-007 fatima-3 (nothing torn; a pale desk): once the shaded
// 187 mm² hole at (164, 20) mm is given back to the paper (fillShadeHoles), the mask still
// lacks a shaded strip along the right side, which reaches the sheet's edge and has no
// writing on it: measured against fatima-2 it was a 249 mm² piece, ruled no_full_letter for
// certain. No tear line bounds it in the photo, so the removal is in doubt, at a place the
// truth has paper; it is unknown on fatima-3's sheet (markMissed). The project set's
// case-003 ines-4 (a bite on the pale desk, against ines-3): its tear line shows, no such doubt.
func TestTearLineUnseen(t *testing.T) {
	doubt := func(res *TearResult) string {
		for _, d := range res.Measurement.Uncertain {
			if strings.Contains(d.Text, "no tear line bounding it") {
				return d.Text
			}
		}
		return ""
	}
	t.Run("shade along the edge", func(t *testing.T) {
		pl, fresh, register := bundledCase(t, "seed2-case007")
		defer fresh.Close()
		before, after := register("fatima-2.jpg"), register("fatima-3.jpg")
		defer before.Close()
		defer after.Close()
		res, err := Measure(before, after, nil, template.Default())
		require.NoError(t, err)
		defer res.Close()
		text := doubt(res)
		require.NotEmpty(t, text, "doubts: %v", res.Measurement.Uncertain)
		doubtOnTruthPaper(t, text, fresh, pl, 3)
		// The doubted piece is unknown on fatima-3's sheet (markMissed), not "no paper" for
		// certain: the next tear's "before" does not take it as gone (held-out seed 17
		// case-015 dana-2: such a piece taken off the next tear's corner made it too small
		// for the template, piece_too_small ruled for certain).
		ppm := after.PxPerMM
		marked := 0
		for _, v := range after.unknown {
			if v == unknownMissed {
				marked++
			}
		}
		var piece float64
		_, err = fmt.Sscanf(text[strings.Index(text, "removed piece (")+len("removed piece ("):], "%f", &piece)
		require.NoError(t, err, text)
		t.Logf("doubted piece %.0f mm², marked unknown %.0f mm²", piece, float64(marked)/(ppm*ppm))
		assert.Greater(t, piece, 200.0)
		assert.InDelta(t, piece, float64(marked)/(ppm*ppm), 0.35*piece, "the doubted piece (its pixels before the 1.5 mm opening) marked unknown")
	})
	t.Run("a bite", func(t *testing.T) {
		dir := filepath.Join("..", "testdata", "images", "synth", "case-003")
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		fresh := synthFresh(t, filepath.Join(dir, tr.Players[0].Sheet.File), truthPaper(tr))
		defer fresh.Close()
		reg := func(f string) *SheetImage {
			img, err := ReadImage(filepath.Join(dir, f))
			require.NoError(t, err)
			defer img.Close()
			s, err := Register(fresh, img)
			require.NoError(t, err)
			return s
		}
		before, after := reg("ines-3.jpg"), reg("ines-4.jpg")
		defer before.Close()
		defer after.Close()
		res, err := Measure(before, after, nil, template.Default())
		require.NoError(t, err)
		defer res.Close()
		require.Equal(t, 1, res.Pieces)
		assert.Empty(t, doubt(res))
	})
}
