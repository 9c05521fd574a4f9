package vision

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
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

// TestMaskRunsCountsParts: the row runs' parts are OpenCV's connected components, 4- and
// 8-connected (ConnectedComponentsWithParams: labels minus the background), and each run's
// part is the label OpenCV gives its pixels (the same partition), on random specks, bars
// and diagonal chains that only 8-connectivity joins; the labels OpenCV gives too.
func TestMaskRunsCountsParts(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 206; trial++ {
		// Small frames, and a few of a sheet frame's size (OpenCV labels those in stripes,
		// one a thread).
		w, h, blobs := 90, 70, rng.Intn(40)
		if trial >= 200 {
			w, h, blobs = 840, 1188, 3000
		}
		m := make([]byte, w*h)
		for k := blobs; k > 0; k-- {
			x, y := rng.Intn(w), rng.Intn(h)
			switch rng.Intn(3) {
			case 0: // a block
				for yy := y; yy < min(h, y+1+rng.Intn(8)); yy++ {
					for xx := x; xx < min(w, x+1+rng.Intn(20)); xx++ {
						m[yy*w+xx] = 255
					}
				}
			case 1: // a diagonal chain
				for s := 0; s < rng.Intn(12) && x+s < w && y+s < h; s++ {
					m[(y+s)*w+x+s] = 255
				}
			default: // an anti-diagonal chain
				for s := 0; s < rng.Intn(12) && x-s >= 0 && y+s < h; s++ {
					m[(y+s)*w+x-s] = 255
				}
			}
		}
		for _, conn := range []int{4, 8} {
			mr := newMaskRuns(m, w, h, conn == 8)
			mm := newMask(w, h, m)
			labels := gocv.NewMat()
			n := gocv.ConnectedComponentsWithParams(mm, &labels, conn, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
			lb := int32s(labels)
			require.Equal(t, n-1, mr.parts(), "trial %d, %d-connected: parts", trial, conn)
			ml, mn := mr.labels(w, h, conn == 8)
			require.Equal(t, n, mn, "trial %d, %d-connected: labels", trial, conn)
			require.Equal(t, lb[:w*h], ml, "trial %d, %d-connected: labels", trial, conn)
			// The same partition: one label per part, one part per label.
			partOf, labelOf := map[int32]int{}, map[int]int32{}
			for r, rn := range mr.runs {
				root := mr.find(r)
				for x := rn.x0; x < rn.x1; x++ {
					l := lb[rn.y*w+x]
					if p, ok := partOf[l]; ok {
						require.Equal(t, p, root, "trial %d: label %d in two parts", trial, l)
					}
					if q, ok := labelOf[root]; ok {
						require.Equal(t, q, l, "trial %d: part %d with two labels", trial, root)
					}
					partOf[l], labelOf[root] = root, l
				}
			}
			for k := 0; k < 50; k++ { // runAt: the run holding a pixel, none on 0
				x, y := rng.Intn(w), rng.Intn(h)
				r := mr.runAt(x, y)
				if m[y*w+x] == 0 {
					require.Equal(t, -1, r)
				} else {
					require.True(t, r >= 0 && mr.runs[r].y == y && mr.runs[r].x0 <= x && x < mr.runs[r].x1, "trial %d: run at (%d, %d)", trial, x, y)
				}
			}
			labels.Close()
			mm.Close()
		}
	}
}
