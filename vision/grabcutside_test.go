package vision

import (
	"testing"

	"tearcam/template"
)

// TestFreshGrabCutSideAcrossPaper: a near-white sheet on a pale blue-grey table, the table
// bright at the bottom and the sheet shaded at the top (independent synthetic set seed 2,
// case-015 hana-0.jpg). The shaded paper is the colour of the table beside it (Lab 172/125/122
// against 176/125/122), so the colour models find no sheet, and GrabCut's blob leaves out the
// shaded third of the sheet: its quadrilateral passed every test (the paper ratio too, within
// 20% in perspective) and Fresh once returned a sheet 310 px off at two corners. That side has
// the same colour on both sides of it (median step 3, a true side's at least 51 on the
// synthetic sets), so it was refused, and the sheet was not found (three tears undecided).
// The sheet's outline is a brightness step all round: the region the photo's edges enclose
// (locateEdges) finds it. Corners from truth.json (photo px); found within 0.6 px.
func TestFreshGrabCutSideAcrossPaper(t *testing.T) {
	img, err := ReadImage("testdata/grabcut-half-0.jpg")
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	s, err := Fresh(img, template.Paper{Name: "letter", WidthMM: 215.9, HeightMM: 279.4})
	if err != nil {
		t.Fatalf("sheet not found: %v", err)
	}
	defer s.Close()
	for _, c := range []pt{{1239.961, 1121.018}, {615.294, 1122.472}, {551.487, 317.416}, {1159.053, 257.718}} {
		best := 1e9
		for _, k := range s.Corners {
			best = min(best, dist(pt{float64(k.X), float64(k.Y)}, c))
		}
		// 2 px is 0.2% of the diagonal (1058 px); the colour models' corners on the synthetic
		// set are within 0.04%.
		if best > 2 {
			t.Errorf("corner %v found %.1f px away (corners %v)", c, best, s.Corners)
		}
	}
}
