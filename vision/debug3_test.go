package vision

import (
	"os"
	"testing"
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
