package vision

import (
	"errors"
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
	// The alignment must be accepted. The paper mask is then refused (PaperMaskError): the
	// colour test calls the pale table where the top was torn off paper (4558 mm² against the
	// generator's truth), and the fresh sheet's writing does not show there.
	var pe *PaperMaskError
	if !errors.As(err, &pe) {
		t.Fatalf("want the alignment accepted and the paper mask refused, got %v", err)
	}
	if pe.InkMM2 < 20 {
		t.Errorf("ink missing %.0f mm² at (%.0f, %.0f) mm: want the writing torn off with the top (truth: tear 1 removed 22819 mm² there)", pe.InkMM2, pe.AtMM[0], pe.AtMM[1])
	}
	if pe.ResidualMM > 0.6 {
		t.Errorf("residual %.2f mm, want at most 0.6", pe.ResidualMM)
	}
	_ = r
}
