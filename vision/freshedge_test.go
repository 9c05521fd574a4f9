package vision

import (
	"image"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
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
	assert.Less(t, refinedMinStep(photo, l2, r), 10.0, "the piece's cut side")
	freshFoundAt(t, photo, [4]pt{{1476.66, 111.581}, {1470.001, 951.708}, {249.696, 927.626}, {279.077, 114.58}}, 1, "goran-0")
}

// refinedMinStep is the smallest colour step across a side (minSideStep) of region r of l
// refined on photo as Fresh refines the colour models' sheet.
func refinedMinStep(photo gocv.Mat, l *located, r *region) float64 {
	q, _, _ := refineQuad(photo, l.photoQuad(r), math.Max(4, 2/l.scale))
	return minSideStep(u8view(photo), photo.Cols(), photo.Rows(), q)
}

// freshFoundAt asserts that Fresh finds the sheet in photo with its corners each within tol
// photo px of one of want's.
func freshFoundAt(t *testing.T, photo gocv.Mat, want [4]pt, tol float64, name string) {
	t.Helper()
	s, err := Fresh(photo, a4)
	require.NoError(t, err, name)
	defer s.Close()
	freshCornersWithin(t, s, want, tol, name)
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

// TestFreshSideNotAStep: held-out seed 9 case-011 dana-0.jpg, a cream sheet on a pale desk
// with a bright patch beside it. The colour models' blob ran over the patch and its
// quadrilateral passed every test of the work image (fill 0.97, support 0.80), one side across
// the desk with a colour step of 7 (true sides: 16 or more on every photo found right): Fresh
// took it with corners 155 px off, and every later photo of the session was measured
// against a wrong sheet. Every side must be a step now, whichever way the sheet was found;
// GrabCut finds this one.
func TestFreshSideNotAStep(t *testing.T) {
	photo, err := ReadImage("testdata/seed9-case011/dana-0.jpg")
	require.NoError(t, err)
	defer photo.Close()
	loc, err := locate(photo, nil, workLong, true)
	require.NoError(t, err)
	r, err := pickSheet(loc)
	require.NoError(t, err, "the colour blob passes the work image's tests: the test does not test the step")
	assert.Less(t, refinedMinStep(photo, loc, r), 10.0, "the side across the desk")
	// truth.json: corners_px.
	freshFoundAt(t, photo, [4]pt{{394.74, 601.582}, {760.967, 107.613}, {1451.77, 634.6}, {1076.672, 1126.364}}, 1, "dana-0")
}

// TestFreshSideBeyondReach: a side of the blob farther from the sheet's side than refineQuad's
// reach found no edge there and kept the blob's position. Seed 6 case-007 ines-0 (pale desk):
// the colour blob stopped 6-9 px inside the bottom side (shaded paper given to the table), the
// corners left 6.9 px off; seed 10 case-019 lena-0 (pale desk): GrabCut took in the sheet's
// shadow along one side, 13.4 px off (1.45% of the diagonal). Looked for again at three times
// the reach, as a step the way the other sides step (the shadow's outer edge steps the other
// way), both are within 1 px of truth.json's corners.
func TestFreshSideBeyondReach(t *testing.T) {
	for _, tc := range []struct {
		file  string
		truth [4]pt // truth.json: corners_px
	}{
		{"testdata/seed6-fresh/case007-ines-0.jpg", [4]pt{{1393.01, 1142.67}, {867.45, 1163.184}, {774.521, 320.807}, {1336.826, 290.359}}},
		{"testdata/seed10-fresh/case019-lena-0.jpg", [4]pt{{1077.941, 209.033}, {1477.238, 569.616}, {984.517, 1130.052}, {595.173, 734.932}}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			photo, err := ReadImage(tc.file)
			require.NoError(t, err)
			defer photo.Close()
			freshFoundAt(t, photo, tc.truth, 1, tc.file)
		})
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

// brightenBeyond multiplies the BGR photo's pixels farther than off px beyond the line
// through a and b (on the side away from the photo's centre) by k.
func brightenBeyond(img gocv.Mat, a, b pt, off, k float64) {
	w, h := img.Cols(), img.Rows()
	d := b.sub(a).mul(1 / dist(a, b))
	n := pt{-d.Y, d.X}
	if n.dot(pt{float64(w) / 2, float64(h) / 2}.sub(a)) > 0 {
		n = n.mul(-1)
	}
	px := u8view(img)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if n.dot(pt{float64(x), float64(y)}.sub(a)) > off {
				for c := 0; c < 3; c++ {
					i := 3*(y*w+x) + c
					px[i] = uint8(clampf(float64(px[i])*k, 0, 255))
				}
			}
		}
	}
}

// TestFreshDeskPatchNotSecondSheet: on a pale desk a bright patch of desk between the sheet's
// shadow and the photo's edge is a blob of "paper" shaped like a quadrilateral, the photo's
// edge counting as its outline (seed 20 case-067 lena-0 of 120 cases: a third of the sheet's
// area, fill 0.927 and support 0.78, just short of sheetLike's 0.93). A one-sheet photo of
// held-out seed 15 was refused "several sheets of paper in the photo: found 2". Here that photo
// with the desk beyond the sheet's lowest side 2% brighter (its blob fill 0.96): pickSheet
// finds two sheets, but the patch's sides across the desk are colour steps of 3 (a sheet's
// are 48 or more), so it is no sheet and Fresh finds the one sheet. Two real sheets are still
// refused (TestFreshBadInput, TestRegisterTwoSheets).
func TestFreshDeskPatchNotSecondSheet(t *testing.T) {
	spec := synth.SetSpecs(synth.SetOptions{Seed: 20, Cases: 120})[66]
	spec.Tears = []synth.TearPlan{} // the fresh photo only
	c, err := synth.GenerateCase(spec)
	require.NoError(t, err)
	var want [4]pt
	for i, p := range c.Truth.Players[0].Sheet.CornersPx {
		want[i] = pt{p[0], p[1]}
	}
	img, err := DecodeImage(c.Photos[0].JPEG)
	require.NoError(t, err)
	defer img.Close()
	lo := 0 // the side lowest in the photo
	for i := range want {
		if want[i].Y+want[(i+1)%4].Y > want[lo].Y+want[(lo+1)%4].Y {
			lo = i
		}
	}
	brightenBeyond(img, want[lo], want[(lo+1)%4], 12, 1.02)

	loc, err := locate(img, nil, workLong, true)
	require.NoError(t, err)
	_, err = pickSheet(loc)
	require.ErrorIs(t, err, ErrSeveralSheets, "the case: the desk patch is sheet-like")

	s, err := Fresh(img, truthPaper(&c.Truth))
	require.NoError(t, err)
	defer s.Close()
	freshCornersWithin(t, s, want, 2, "lena-0 with a brighter desk")
}

// TestFreshDeskPatchInsideNotSecondSheet: a sheet-like blob with no colour step across a side
// is no sheet even when it lies wholly inside the photo (pickSheetIn; seed 20 case-003 jun-0
// has such a blob, the lit half of its sheet: fill 0.88, step 3). Here seed 20 case-067 lena-0
// with its desk beyond the lowest side 2% brighter (TestFreshDeskPatchNotSecondSheet) and the
// photo's outer 12 px 8% darker, as a vignette would make them: the desk patch no longer
// reaches the photo's edge (fill 0.96, steps of 3-4), pickSheet finds two sheets, and
// Fresh refused the photo "found 2" before; the sheet is found within 2 px now.
func TestFreshDeskPatchInsideNotSecondSheet(t *testing.T) {
	spec := synth.SetSpecs(synth.SetOptions{Seed: 20, Cases: 120})[66]
	spec.Tears = []synth.TearPlan{} // the fresh photo only
	c, err := synth.GenerateCase(spec)
	require.NoError(t, err)
	var want [4]pt
	for i, p := range c.Truth.Players[0].Sheet.CornersPx {
		want[i] = pt{p[0], p[1]}
	}
	img, err := DecodeImage(c.Photos[0].JPEG)
	require.NoError(t, err)
	defer img.Close()
	lo := 0 // the side lowest in the photo
	for i := range want {
		if want[i].Y+want[(i+1)%4].Y > want[lo].Y+want[(lo+1)%4].Y {
			lo = i
		}
	}
	brightenBeyond(img, want[lo], want[(lo+1)%4], 12, 1.02)
	w, h, px := img.Cols(), img.Rows(), u8view(img)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x < 12 || y < 12 || x >= w-12 || y >= h-12 {
				for ch := 0; ch < 3; ch++ {
					px[3*(y*w+x)+ch] = uint8(float64(px[3*(y*w+x)+ch]) * 0.92)
				}
			}
		}
	}

	loc, err := locate(img, nil, workLong, true)
	require.NoError(t, err)
	_, err = pickSheet(loc)
	require.ErrorIs(t, err, ErrSeveralSheets, "the case: the desk patch is sheet-like")
	for _, r := range sheetRegions(loc) {
		require.Zero(t, r.touches, "the case: no sheet-like blob reaches the photo's edge")
	}

	s, err := Fresh(img, truthPaper(&c.Truth))
	require.NoError(t, err)
	defer s.Close()
	freshCornersWithin(t, s, want, 2, "lena-0 with a brighter desk and a darker frame")
}
