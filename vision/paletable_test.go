package vision

import (
	"testing"
)

// TestRegisterPaleTableMargin: a pale sheet on a pale grey table (independent synthetic set
// seed 2, case-003 fatima-0 and fatima-2; true alignment error 0.09 mm). The colour test
// calls the table paper, and the margin veto compared each margin pixel with the fresh
// sheet's edge pixel, whose min..max interval spans the fresh photo's own paper-table blur:
// table lay within it, paper spilled up to 5 mm beyond the sheet's sides and the untorn
// edges read 2.5 mm off, so a right alignment was refused. The veto now compares with the
// sheet 1 mm inside its edge.
func TestRegisterPaleTableMargin(t *testing.T) {
	a, err := ReadImage("testdata/paletable-0.jpg")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ReadImage("testdata/paletable-2.jpg")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fr, err := Fresh(a, a4)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	r, err := Register(fr, b)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	defer r.Close()
	if r.ResidualMM > 0.6 {
		t.Errorf("residual %.2f mm, want at most 0.6 (notes %v)", r.ResidualMM, r.Notes)
	}
}
