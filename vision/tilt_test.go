package vision

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSideTiltMM: a side's untorn samples on a straight line from +1 mm to -1 mm over 110
// mm (a side turned by the alignment) give a turn of 1 mm whatever a fifth of them (a tear
// line the torn-stretch test missed) say; samples all at 0 give 0; a side with under
// minTiltSamples samples, or spanning under minTiltSpanMM, counts for nothing.
func TestSideTiltMM(t *testing.T) {
	const step = 4 // keys per mm, as untornSamples gets them (int(ppm))
	side := func(s, n int, f func(i int) float64) (sg []float64, keys []int) {
		for i := 0; i < n; i++ {
			sg = append(sg, f(i))
			keys = append(keys, s<<20|i*step)
		}
		return sg, keys
	}
	all := func(n int) []bool {
		k := make([]bool, n)
		for i := range k {
			k[i] = true
		}
		return k
	}
	turned := func(i int) float64 { return 1 - 2*float64(i)/110 }
	sg, keys := side(1, 111, turned)
	require.InDelta(t, 1.0, sideTiltMM(sg, keys, step, all(len(sg))), 1e-9)

	// A fifth of the samples 3 mm off the line (every fifth one): the same turn.
	sg, keys = side(1, 111, func(i int) float64 {
		if i%5 == 2 {
			return turned(i) + 3
		}
		return turned(i)
	})
	require.InDelta(t, 1.0, sideTiltMM(sg, keys, step, all(len(sg))), 0.05)

	// Left out by keep: the same as without them.
	keep := all(len(sg))
	for i := range keep {
		keep[i] = i%5 != 2
	}
	require.InDelta(t, 1.0, sideTiltMM(sg, keys, step, keep), 1e-9)

	sg, keys = side(0, 200, func(int) float64 { return 0 })
	require.Zero(t, sideTiltMM(sg, keys, step, all(len(sg))))

	sg, keys = side(2, minTiltSamples-1, turned)
	require.Zero(t, sideTiltMM(sg, keys, step, all(len(sg))))
	sg, keys = side(3, int(minTiltSpanMM)-1, func(i int) float64 { return float64(i) })
	require.Zero(t, sideTiltMM(sg, keys, step, all(len(sg))))
}

// TestRegisterTurnedSideNotConfirming: held-out seed 13 case-018 hana-5.jpg, a remnant of a
// lined sheet on a purple desk whose 28 ink patches lie in two words (each 0.01-0.21 mm off
// the truth). Their homography is wrong away from them: its untorn right side runs from 1 mm
// outside the frame's side to 1 mm inside it, which the percentile over every edge sample
// (0.50 mm) passed as confirming, and it was accepted 1.06 mm off on its paper. The turned
// side does not confirm it: refused, or (from a better alignment) within 1 mm of the truth.
func TestRegisterTurnedSideNotConfirming(t *testing.T) {
	keepRefused = true
	defer func() { keepRefused = false }()
	pl, fresh, _ := bundledCase(t, "seed13-case018")
	defer fresh.Close()
	tt := pl.Tears[4]
	require.Equal(t, "hana-5.jpg", tt.Photo.File)
	img, err := ReadImage(filepath.Join("testdata", "seed13-case018", tt.Photo.File))
	require.NoError(t, err)
	defer img.Close()
	after, err := Register(fresh, img)
	if after != nil {
		defer after.Close()
	}
	if err != nil {
		require.True(t, errors.Is(err, ErrRegistration), "%v", err)
		return
	}
	e := synthRegErr(fresh, after, homog(pl.Sheet.Homography), homog(tt.Photo.Homography), fresh.Paper)
	t.Logf("accepted: true error %.2f mm, residual %.2f mm, %v", e, after.ResidualMM, after.Notes)
	require.Less(t, e, 1.0, "true error on the paper left")
}
