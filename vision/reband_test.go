package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestReband: the text band of an annotated image is drawn again for a new ruling, the
// sheet's picture kept as it is: the result is, pixel for pixel, what withBand draws for the
// new ruling over the original picture (a new place the new text names ringed on it, numbered
// after the old ones), whether the new band is taller or shorter than the old.
func TestReband(t *testing.T) {
	const ppm = DefaultPxPerMM
	// The picture: 105 x 148 mm at 4 px/mm, with a gradient so that a crop one row off
	// would differ.
	pic := gocv.NewMatWithSize(592, 420, gocv.MatTypeCV8UC3)
	defer pic.Close()
	for y := 0; y < pic.Rows(); y++ {
		for x := 0; x < pic.Cols(); x++ {
			pic.SetUCharAt(y, 3*x, uint8(y%256))
			pic.SetUCharAt(y, 3*x+1, uint8(x%256))
			pic.SetUCharAt(y, 3*x+2, uint8((x+y)%256))
		}
	}
	oldLines := []string{"tear 1: use Hop: undecided", "undecided: the fit is in doubt at (20, 30) mm", "letters left: Hop 3"}
	tests := []struct {
		name     string
		verdict  string
		lines    []string
		newPlace bool
	}{
		{"the GM's ruling: a longer band", "GM ruled valid (tearcam: undecided)",
			append(append([]string{}, oldLines[:2]...), "undecided -> GM ruled valid; letters left Hop 2; a longer line that the band has to wrap at least once on a 420 px wide image", "letters left: Hop 2"), false},
		{"a shorter band", "valid", []string{"tear 1: use Hop: valid"}, false},
		{"a new place", "GM ruled faux_pas (tearcam: undecided)",
			append(append([]string{}, oldLines...), `undecided -> GM ruled faux_pas (several_pieces); "a second piece at (60, 90) mm"`), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			marked, _ := markPlaces(oldLines)
			drawn := withBand(pic, "undecided", marked)
			defer drawn.Close()
			got, err := Reband(drawn, "undecided", oldLines, tc.verdict, tc.lines, ppm)
			require.NoError(t, err)
			defer got.Close()

			// The reference: the picture, with the new place drawn when there is one, under
			// the band withBand draws for the new lines numbered after the old ones.
			ref := pic.Clone()
			defer ref.Close()
			index := map[string]int{}
			_, places := numberPlaces(index, nil, oldLines)
			newMarked, all := numberPlaces(index, places, tc.lines)
			if tc.newPlace {
				require.Len(t, all, 2)
				drawPlace(&ref, 2, all[1], ppm)
				assert.Contains(t, newMarked[len(newMarked)-1], "(60, 90) mm [2]")
				assert.Contains(t, newMarked[1], "(20, 30) mm [1]", "an old place keeps its number")
			} else {
				assert.Len(t, all, len(places))
			}
			want := withBand(ref, tc.verdict, newMarked)
			defer want.Close()
			require.Equal(t, want.Rows(), got.Rows())
			require.Equal(t, want.Cols(), got.Cols())
			diff := gocv.NewMat()
			defer diff.Close()
			gocv.AbsDiff(want, got, &diff)
			gray := gocv.NewMat()
			defer gray.Close()
			gocv.CvtColor(diff, &gray, gocv.ColorBGRToGray)
			assert.Equal(t, 0, gocv.CountNonZero(gray), "pixels differing from the reference")
		})
	}

	// Not an image drawn for those lines: no taller than the band they make.
	short := gocv.NewMatWithSize(20, 420, gocv.MatTypeCV8UC3)
	defer short.Close()
	_, err := Reband(short, "undecided", oldLines, "valid", nil, ppm)
	assert.ErrorIs(t, err, ErrBadInput)
	empty := gocv.NewMat()
	defer empty.Close()
	_, err = Reband(empty, "undecided", oldLines, "valid", nil, ppm)
	assert.ErrorIs(t, err, ErrBadInput)
}
