package vision

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFillIslandsMatchesWhole: fillIslands, which labels the removed paper's bounding box
// first, fills exactly what labelling the whole frame fills (fillIslandsWhole), on random
// sheets with earlier holes, this tear's removals and specks of "paper" inside them, at
// the frame's edges too; the enclosed specks make some trials fill (counted, so the test
// sees both outcomes).
func TestFillIslandsMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	w, h := 160, 120
	filledTrials := 0
	for trial := 0; trial < 300; trial++ {
		bm := make([]byte, w*h)
		for i := range bm {
			bm[i] = 255
		}
		rect := func(b []byte, v byte) {
			x0, y0 := rng.Intn(w)-10, rng.Intn(h)-10
			x1, y1 := x0+1+rng.Intn(60), y0+1+rng.Intn(50)
			for y := max(0, y0); y < min(h, y1); y++ {
				for x := max(0, x0); x < min(w, x1); x++ {
					b[y*w+x] = v
				}
			}
		}
		for k := rng.Intn(3); k > 0; k-- {
			rect(bm, 0) // earlier holes
		}
		am := append([]byte(nil), bm...)
		for k := rng.Intn(4); k > 0; k-- {
			rect(am, 0) // this tear
		}
		for k := rng.Intn(6); k > 0; k-- {
			x, y := rng.Intn(w), rng.Intn(h)
			for yy := y; yy < min(h, y+1+rng.Intn(6)); yy++ {
				for xx := x; xx < min(w, x+1+rng.Intn(6)); xx++ {
					am[yy*w+xx] = 255 // specks of paper, inside removals or not
				}
			}
		}
		if trial%10 == 0 {
			clear(am) // no paper after: the largest part is none
		}
		a1, a2 := append([]byte(nil), am...), append([]byte(nil), am...)
		f1 := fillIslands(bm, a1, w, h)
		f2 := fillIslandsWhole(bm, a2, w, h)
		require.Equal(t, f2, f1, "trial %d: filled", trial)
		require.Equal(t, a2, a1, "trial %d: after mask", trial)
		if f2 != nil {
			filledTrials++
		}
	}
	assert.Greater(t, filledTrials, 10, "trials with an island")
	assert.Less(t, filledTrials, 290, "trials without one")
}
