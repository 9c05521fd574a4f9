package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNeighbourGlyphInk: a letter's outline reaching over the gap onto its neighbour's glyph
// gives that part back to the neighbour; a joined-up stroke across both letters stays split by
// outline.
func TestNeighbourGlyphInk(t *testing.T) {
	const w = 100
	rect := func(x0, y0, x1, y1 int) []int { // pixels x0 <= x < x1, y0 <= y < y1
		var px []int
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				px = append(px, y*w+x)
			}
		}
		return px
	}
	// Glyph A: x 10-29, y 10-29 (400 px); glyph B: x 34-49 (a 4 px gap). B's outline also holds
	// A's last two columns (x 28-29: 40 px), A's outline the rest of A.
	aOwn := rect(10, 10, 28, 30)
	aStray := rect(28, 10, 30, 30)
	bOwn := rect(34, 10, 50, 30)
	inks := []letterInk{{ink: aOwn}, {ink: append(append([]int(nil), aStray...), bOwn...)}}
	got := neighbourGlyphInk(inks, w)
	require.Len(t, got, 1, "only B loses pixels")
	assert.ElementsMatch(t, bOwn, got[1], "B keeps its own glyph and gives back A's columns")

	// The same outlines over one joined stroke: A and B joined by a 4 px bridge (x 30-33).
	// A's outline holds 360 of its 736 px, B's the other 376: neither holds 3/4.
	bridge := rect(30, 18, 34, 22)
	inks = []letterInk{{ink: aOwn}, {ink: append(append(append([]int(nil), aStray...), bridge...), bOwn...)}}
	assert.Empty(t, neighbourGlyphInk(inks, w), "a stroke shared by both letters stays split by outline")

	// A letter whose outline holds nothing but its neighbour's stroke keeps it (nothing of its
	// own to measure instead).
	inks = []letterInk{{ink: aOwn}, {ink: aStray}}
	assert.Empty(t, neighbourGlyphInk(inks, w))

	// Fixed letters (no ink measured) take no part.
	inks = []letterInk{{fixed: true}, {ink: append(append([]int(nil), aStray...), bOwn...)}}
	assert.Empty(t, neighbourGlyphInk(inks, w))
}
