package vision

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGNRefineRecovers: evidence generated from a known homography; starting from a
// perturbed one, gnRefine must recover it (truth computed independently: the generator).
func TestGNRefineRecovers(t *testing.T) {
	W, H := 210.0, 297.0
	truth := homographyFrom4([4]pt{{0, 0}, {W, 0}, {W, H}, {0, H}}, [4]pt{{300, 100}, {1100, 140}, {1150, 1100}, {250, 1050}})
	var pairs []pair
	for _, u := range []pt{{30, 40}, {150, 60}, {100, 200}, {40, 250}, {180, 270}, {120, 120}, {60, 150}, {170, 180}} {
		pairs = append(pairs, pair{u: u, v: truth.apply(u)})
	}
	var edges []edgeSample
	for x := 10.0; x < W-10; x += 2 {
		edges = append(edges, edgeSample{side: 0, v: truth.apply(pt{x, 0})}, edgeSample{side: 2, v: truth.apply(pt{x, H})})
	}
	for y := 10.0; y < H-10; y += 2 {
		edges = append(edges, edgeSample{side: 1, v: truth.apply(pt{W, y})}, edgeSample{side: 3, v: truth.apply(pt{0, y})})
	}
	start := truth.mul(homog{1.003, 0.002, 0.8, -0.001, 0.998, -0.5, 0, 0, 1})
	got, rms, drop := gnRefine(start, pairs, edges, W, H, 1600, 1200)
	t.Logf("rms %.4f drop %.2f", rms, drop)
	worst := 0.0
	for _, p := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		worst = math.Max(worst, dist(got.apply(p), truth.apply(p)))
	}
	assert.Less(t, worst, 0.05, "px")
}
