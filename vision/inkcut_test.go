package vision

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInkCutSynth: held-out seed 8, sheets on a beige or grey desk whose photos were refused
// because the fresh sheet's writing did not show on what the mask called paper. Against the
// truth's paper (truthPaperInFrame; lost: paper more than 1 mm inside the truth's outline
// called table, extra: desk more than 1 mm outside it called paper):
//   - case-015 goran-2 (a corner torn off): 816 mm² extra beside the torn side before, 6
//     after (865 mm² cut); the 29 mm² lost is mostly a patch near the right side that the mask
//     lost before too, which must not seed the desk (as a seed it took the blank ruled strip
//     beyond the margin line with it, 6495 mm²).
//   - goran-3 (cut off by the photo's edge): 1923 mm² extra, in the bite and an island of
//     "paper" around "Coo" of a torn-off "Cooking"; none after.
//   - goran-4 (a bite): 5366 mm² extra, in the bite and beside the torn side; none after.
//   - case-019 fatima-5 stays refused: the cut would leave 2220 mm² of grey desk beside a
//     tear, with no writing on it, called paper.
func TestInkCutSynth(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed8-case015")
	defer fresh.Close()
	for _, c := range []struct {
		tear              int // 1-based
		minCut, maxCut    float64
		maxLost, maxExtra float64
	}{
		{2, 700, 1000, 35, 10},
		{3, 1800, 2500, -1, 5}, // lost: the part outside the photo counts as lost
		{4, 5000, 6500, 5, 5},
	} {
		tt := pl.Tears[c.tear-1]
		after := register(tt.Photo.File)
		w, h := after.Mask.Cols(), after.Mask.Rows()
		truth := truthPaperInFrame(fresh, pl, c.tear, w, h)
		lost, extra := maskMisses(t, truth, after.Mask.ToBytes(), w, h, after.PxPerMM, 1)
		t.Logf("%s: cut %.0f mm²; paper lost %.1f mm², desk called paper %.1f mm²", tt.Photo.File, after.tableCut, lost, extra)
		require.True(t, after.tableCut >= c.minCut && after.tableCut <= c.maxCut, "%s: cut %.0f mm²", tt.Photo.File, after.tableCut)
		if c.maxLost >= 0 {
			require.Less(t, lost, c.maxLost, tt.Photo.File)
		}
		require.Less(t, extra, c.maxExtra, tt.Photo.File)
		after.Close()
	}

	pl5, fresh5, _ := bundledCase(t, "seed8-case019")
	defer fresh5.Close()
	img, err := ReadImage(filepath.Join("testdata", "seed8-case019", pl5.Tears[4].Photo.File))
	require.NoError(t, err)
	defer img.Close()
	s, err := Register(fresh5, img)
	if s != nil {
		s.Close()
	}
	var pe *PaperMaskError
	require.True(t, errors.As(err, &pe), "fatima-5 must stay refused: %v", err)
	require.InDelta(t, 346, pe.InkMM2, 10)
}
