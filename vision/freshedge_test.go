package vision

import (
	"image"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freshCornersWithin asserts that s's corners are each within tol photo px of one of want's.
func freshCornersWithin(t *testing.T, s *SheetImage, want [4]pt, tol float64, name string) {
	t.Helper()
	for _, c := range s.Corners {
		best := math.Inf(1)
		for _, w := range want {
			best = math.Min(best, dist(ptOf(c), w))
		}
		assert.Less(t, best, tol, "%s: corner %v", name, c)
	}
}

// TestFreshSheetNearPhotoEdge: held-out seed 9 case-006 noor-0.jpg (felt), the untorn sheet's
// bottom side 10 px from the edge of the 1600x1200 photo. On the 640 px work image the strip of
// felt blurs into the sheet's blob, whose fitted side lies on the last row, and Fresh said "sheet
// cut off by the edge of the photo": four tears undecided. The full-resolution check finds the
// side and the felt below it. The same photo cut at rows 1193-1200 (a strip of 2.3-9.5 px
// left) is found with the same corners; cut at rows 1180-1190 (the frame through the paper,
// or along its edge), it is cut off.
func TestFreshSheetNearPhotoEdge(t *testing.T) {
	photo, err := ReadImage("testdata/seed9-fresh/case006-noor-0.jpg")
	require.NoError(t, err)
	defer photo.Close()
	// truth.json: corners_px.
	truth := [4]pt{{1279.575, 1190.113}, {540.954, 1190.682}, {551.271, 98.801}, {1308.897, 135.469}}
	for _, rows := range []int{1200, 1197, 1193, 1190, 1186, 1180} {
		view := photo.Region(image.Rect(0, 0, photo.Cols(), rows))
		crop := view.Clone()
		view.Close()
		s, err := Fresh(crop, a4)
		crop.Close()
		if rows >= 1193 {
			require.NoError(t, err, "rows %d", rows)
			freshCornersWithin(t, s, truth, 0.5, "noor-0")
			s.Close()
			continue
		}
		if s != nil {
			s.Close()
		}
		assert.ErrorIs(t, err, ErrSheetCutOff, "rows %d", rows)
	}
}

// TestFreshSplitPieceNotSheet: held-out seed 9 case-015 goran-0.jpg, a white sheet on a pale
// desk. The colour mask joins the sheet and the desk; opened (splitSheet) it leaves a third
// of the sheet, a "sheet" whose cut side is a colour step of 6 (true sides: 51 or more), and
// Fresh refused the photo as 0.30:1. A side the opening made must be a step, as GrabCut's
// are; GrabCut then finds the sheet.
func TestFreshSplitPieceNotSheet(t *testing.T) {
	photo, err := ReadImage("testdata/seed9-fresh/case015-goran-0.jpg")
	require.NoError(t, err)
	defer photo.Close()
	loc, err := locate(photo, nil, workLong, true)
	require.NoError(t, err)
	_, err = pickSheet(loc)
	require.ErrorIs(t, err, ErrNoSheet, "the colour mask alone finds no sheet: the test does not test the split")
	l2, r, err := splitSheet(loc, nil)
	require.NoError(t, err, "the opened mask holds a sheet-like piece")
	q := refineQuad(photo, l2.photoQuad(r), math.Max(4, 2/loc.scale))
	assert.Less(t, minSideStep(u8view(photo), photo.Cols(), photo.Rows(), q), 10.0, "the piece's cut side")

	s, err := Fresh(photo, a4)
	require.NoError(t, err)
	defer s.Close()
	truth := [4]pt{{1476.66, 111.581}, {1470.001, 951.708}, {249.696, 927.626}, {279.077, 114.58}}
	freshCornersWithin(t, s, truth, 1, "goran-0")
}

// TestFreshCornerOutsidePhoto: a turned sheet (the project set's case-005 emil-0.jpg, 45°)
// whose top corner the photo's edge cuts off by 1.3 px clips a tip of the blob too small for
// the work image's tests, and Fresh took it with the corner outside the photo (by 6.3 px it was
// refused; of the project set's ten fresh photos cut 1.5 or 6 px beyond their outermost corner
// on each side, 53 of 80 were taken). The refined corners show it: ErrSheetCutOff. With the
// corner 2.7 px inside, the sheet is found.
func TestFreshCornerOutsidePhoto(t *testing.T) {
	photo, err := ReadImage(filepath.Join("..", "testdata", "images", "synth", "case-005", "emil-0.jpg"))
	require.NoError(t, err)
	defer photo.Close()
	// truth.json: corners_px; the top corner is at y 45.24, 45.74 below the photo's edge.
	truth := [4]pt{{875.945, 45.242}, {1323.838, 446.006}, {736.541, 1053.575}, {306.226, 629.736}}
	for _, top := range []int{52, 47, 43} { // the corner 6.3 and 1.3 px outside, 2.7 px inside
		view := photo.Region(image.Rect(0, top, photo.Cols(), photo.Rows()))
		crop := view.Clone()
		view.Close()
		s, err := Fresh(crop, a4)
		crop.Close()
		if top == 43 {
			require.NoError(t, err)
			var shifted [4]pt
			for i, c := range truth {
				shifted[i] = pt{c.X, c.Y - float64(top)}
			}
			freshCornersWithin(t, s, shifted, 1, "emil-0")
			s.Close()
			continue
		}
		if s != nil {
			s.Close()
		}
		assert.ErrorIs(t, err, ErrSheetCutOff, "top %d", top)
	}
}

// TestFreshSplitReach: seed 3 case-007 ann-0.jpg (pale desk). The sheet is found only in the
// colour mask opened by splitSheet, whose outline lies up to the disk's radius from the
// sheet's: one corner 6.6 work px off, and refined with the usual 2 work px reach it stayed 16
// photo px off. The split's sides are refined with the opening's radius.
func TestFreshSplitReach(t *testing.T) {
	photo, err := ReadImage("testdata/seed3-fresh/case007-ann-0.jpg")
	require.NoError(t, err)
	defer photo.Close()
	s, err := Fresh(photo, a4)
	require.NoError(t, err)
	defer s.Close()
	truth := [4]pt{{1126.227, 69.908}, {1519.543, 560.204}, {775.015, 1086.783}, {387.408, 560.673}}
	freshCornersWithin(t, s, truth, 1, "ann-0")
}
