package vision

import (
	"testing"

	"gocv.io/x/gocv"
)

// TestSplitSheetFromTablePatch: the colour mask of a fresh photo (independent synthetic set
// seed 3, case-015 bo-0.jpg, at work resolution) where a pale table's bright patch touches
// the sheet through the gaps of the dashed shadow along its right side: one blob with no
// quadrilateral, and Fresh said "no sheet of paper found". Cutting the thin necks finds the
// sheet, its corners where the truth has them.
func TestSplitSheetFromTablePatch(t *testing.T) {
	m := gocv.IMRead("testdata/split-bo0-mask.png", gocv.IMReadGrayScale)
	defer m.Close()
	if m.Empty() {
		t.Fatal("testdata/split-bo0-mask.png missing")
	}
	w, h := m.Cols(), m.Rows()
	l := &located{scale: 0.4, w: w, h: h, mask: m.ToBytes()}
	l.regions = findRegions(m, l.mask, w, h, true)
	if _, err := pickSheet(l); err == nil {
		t.Fatalf("the joined blob is a sheet without splitting: the test does not test the split")
	}
	l2, r, err := splitSheet(l, nil)
	if err != nil {
		t.Fatalf("no sheet after cutting the necks: %v", err)
	}
	if len(l2.mask) != w*h {
		t.Fatalf("mask of %d px", len(l2.mask))
	}
	// The truth's corners (photo px) at work resolution.
	for _, c := range []pt{{842.692, 1046.322}, {180.086, 997.911}, {308.886, 77.547}, {970.553, 110.08}} {
		want := pt{(c.X+0.5)*0.4 - 0.5, (c.Y+0.5)*0.4 - 0.5}
		best := 1e9
		for _, q := range r.quad {
			best = min(best, dist(q, want))
		}
		if best > 3 {
			t.Errorf("corner %v: nearest found %.1f work px away (quad %v)", want, best, r.quad)
		}
	}
}
