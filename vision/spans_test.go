package vision

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestSpanPartsMatchOpenCV labels random masks both ways: every pixel of every span must
// carry OpenCV's label (connectedComponents, 8-way, default algorithm) minus one, and the
// part counts must agree. The masks: blobs of random sizes (many close together, so that
// parts start in the same row pairs and column pairs), thin diagonal lines, and noise, on a
// frame the size of an A4 sheet at 4 px/mm (OpenCV labels it in parallel stripes) and on
// small odd-sized ones.
func TestSpanPartsMatchOpenCV(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, sz := range [][2]int{{840, 1188}, {101, 57}, {7, 9}, {1, 5}} {
		for trial := 0; trial < 6; trial++ {
			w, h := sz[0], sz[1]
			b := make([]byte, w*h)
			for k := 0; k < 1+rng.Intn(w*h/40+1); k++ {
				x, y := rng.Intn(w), rng.Intn(h)
				switch rng.Intn(3) {
				case 0: // a blob
					rx, ry := rng.Intn(6), rng.Intn(6)
					for yy := max(0, y-ry); yy <= min(h-1, y+ry); yy++ {
						for xx := max(0, x-rx); xx <= min(w-1, x+rx); xx++ {
							if rng.Intn(5) > 0 {
								b[yy*w+xx] = 255
							}
						}
					}
				case 1: // a diagonal line
					d := 1 - 2*rng.Intn(2)
					for n := 0; n < rng.Intn(30); n++ {
						if xx, yy := x+d*n, y+n; xx >= 0 && xx < w && yy < h {
							b[yy*w+xx] = 255
						}
					}
				default:
					b[y*w+x] = 255
				}
			}
			sp := spansOf(b, w, h, 255)
			part, n := spanParts(sp, nil)
			m := newMask(w, h, b)
			cc := gocv.NewMat()
			nc := gocv.ConnectedComponentsWithParams(m, &cc, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
			lab := int32s(cc)
			require.Equal(t, nc-1, n, "%dx%d trial %d: parts", w, h, trial)
			bad := 0
			for k, s := range sp {
				for x := s.x0; x < s.x1; x++ {
					if got, want := part[k]+1, lab[int(s.y)*w+int(x)]; got != want && bad < 10 {
						bad++
						t.Errorf("%dx%d trial %d: (%d, %d) part %d, OpenCV's label %d", w, h, trial, x, s.y, got, want)
					}
				}
			}
			cc.Close()
			m.Close()
		}
	}
}

// TestSpansOf: runs of a value along the rows of a 5x3 frame, and a union of two lists that
// joins the runs that touch.
func TestSpansOf(t *testing.T) {
	b := []byte{
		0, 1, 1, 0, 1,
		1, 1, 1, 1, 1,
		0, 0, 0, 0, 0,
	}
	assert.Equal(t, []span{{0, 1, 3}, {0, 4, 5}, {1, 0, 5}}, spansOf(b, 5, 3, 1))
	assert.Equal(t, []span{{0, 0, 1}, {0, 3, 4}, {2, 0, 5}}, spansOf(b, 5, 3, 0))
	assert.Equal(t, []span{{0, 0, 5}, {1, 0, 5}, {2, 0, 5}}, mergeSpans(spansOf(b, 5, 3, 1), spansOf(b, 5, 3, 0)))
	assert.Equal(t, []int32{0, 2, 2, 3}, rowStarts(spansOf(b, 5, 3, 0), 3))
}
