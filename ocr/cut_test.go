package ocr

import "testing"

// TestCutAtStrokeEnd: with strokeEnd, a cut through a joining stroke goes to the stroke's
// end, where the next letter's body rises. The profile is the core band's ink per column across the "e" to
// "s" of a rendered "Wrestling" (DancingScript-Bold, 40 sheets from seed 100; a typical
// column holds 17.6 px of ink): the e's body to column 5, its hairline rising to the s over
// columns 6-14 (thinnest, 4 px, at 9-10), the s's body from column 15, where the truth's s
// begins (the profile below starts at column 3). The thinnest column would give the s two
// thirds of the e's stroke.
func TestCutAtStrokeEnd(t *testing.T) {
	old := strokeEnd
	strokeEnd = true
	defer func() { strokeEnd = old }()
	cases := []struct {
		name string
		prof []float64
		mean float64
		want int // the index of least cost
	}{
		{"joining stroke", []float64{21, 20, 19, 14, 12, 6, 4, 4, 7, 7, 9, 12, 27, 34, 35}, 17.6, 11}, // column 14
		// Two marks apart: the gap is cut where the next mark begins.
		{"gap", []float64{20, 22, 0, 0, 0, 0, 24, 25}, 20, 5},
		// No thin stroke (a bowl's two sides): the least ink.
		{"no stroke", []float64{30, 25, 19, 22, 28}, 17.6, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cc := cutCosts(c.prof, c.mean, 3, strokeEnd)
			best := 0
			for k := range cc {
				if cc[k] < cc[best] {
					best = k
				}
			}
			if best != c.want {
				t.Errorf("least cost at column %d (costs %.2f), want %d", best, cc, c.want)
			}
		})
	}
	// The first letter's entry stroke is no join: the I of a rendered "Intimidation"
	// (DancingScript-Bold, seed 10 case-014; about 11 px in a typical column) rises from a
	// hairline over columns 0-4 and leaves by one over columns 11-14 to the n, whose body
	// starts at column 15. Cut at the entry stroke's end (column 4), the I would be 4
	// columns wide and the n would take the I's body (I*timidation with joinedEnds,
	// TestExactReadPlacesLetters); the end of the stroke to the n must cost less.
	t.Run("entry stroke", func(t *testing.T) {
		prof := []float64{1, 4, 5, 5, 6, 14, 17, 19, 21, 20, 16, 8, 6, 5, 5, 12, 14, 12, 12, 11}
		cc := cutCosts(prof, 11, 3, strokeEnd)
		if cc[14] >= cc[4] {
			t.Errorf("a cut at the end of the stroke to the n costs %.2f, at the end of the entry stroke %.2f (costs %.2f): want less", cc[14], cc[4], cc)
		}
	})
}
