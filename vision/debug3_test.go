package vision

import (
	"os"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// TestRegDebug registers VISION_AFTER to VISION_FRESH (a4) and logs the result; with
// VISION_DEBUG_DIR it also leaves the frame mask there. Debug only.
func TestRegDebug(t *testing.T) {
	f0, f1 := os.Getenv("VISION_FRESH"), os.Getenv("VISION_AFTER")
	if f0 == "" {
		t.Skip("debug only")
	}
	a, _ := ReadImage(f0)
	defer a.Close()
	b, _ := ReadImage(f1)
	defer b.Close()
	fr, err := Fresh(a, a4)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	r, err := Register(fr, b)
	t.Logf("%v", err)
	if r != nil {
		t.Logf("%v %v", r.ResidualMM, r.Notes)
		r.Close()
	}
}

// TestMeasureDebug measures VISION_AFTER against VISION_FRESH and writes the removed mask.
func TestMeasureDebug(t *testing.T) {
	f0, f1 := os.Getenv("VISION_FRESH"), os.Getenv("VISION_AFTER")
	if f0 == "" || os.Getenv("VISION_DEBUG_DIR") == "" {
		t.Skip("debug only")
	}
	a, _ := ReadImage(f0)
	defer a.Close()
	b, _ := ReadImage(f1)
	defer b.Close()
	fr, err := Fresh(a, a4)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	r, err := Register(fr, b)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := Measure(fr, r, nil, template.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t.Logf("pieces %d area %.0f outlines %d", m.Pieces, m.AreaMM2, len(m.PieceOutlines))
	for _, o := range m.PieceOutlines {
		t.Logf("piece outline %d points, first %v", len(o), o[0])
	}
	gocv.IMWrite(debugDir+"/removed.png", m.Removed)
	gocv.IMWrite(debugDir+"/aftermask.png", r.Mask)
}
