package ocr

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// TestDensePageBounded locates six skills on a photographed printed page (hundreds of
// words, none of them a declared skill): the search must stay within the read budget (and
// the few last looks beyond it: readTwins, evidence.forced) and
// say so in the notes, instead of reading every word region at every angle (over a
// thousand reads, half a minute and more on this machine).
func TestDensePageBounded(t *testing.T) {
	dir := realdataDir(t)
	if testing.Short() {
		t.Skip("reads a whole printed page")
	}
	path := filepath.Join(dir, "sheets", "docscan_doc-3.jpg")
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Skipf("cannot read %s", path)
	}
	// The photo is not rectified: scale it as a page about 300 mm wide (as TestRealPhotos).
	ppm := float64(img.Cols()) / 300
	empty := gocv.NewMat()
	defer empty.Close()
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	skills := []string{"Packing", "List", "About", "Setup", "Guide", "Notice"}
	t0 := time.Now()
	lays, err := l.Locate(img, empty, ppm, skills)
	if err != nil {
		t.Fatal(err)
	}
	n := l.reads.Load()
	t.Logf("%d reads in %v", n, time.Since(t0))
	// Beyond the budget: the twin looks (twinBudget) and a read with only the name's
	// letters per skill read not good.
	if max := readBudget + twinBudget + len(skills); n > int64(max) {
		t.Errorf("%d Tesseract reads, want at most the budget of %d plus %d twin reads and %d forced reads", n, readBudget, twinBudget, len(skills))
	}
	for _, la := range lays {
		cut, good := false, false
		for _, note := range la.Notes {
			cut = cut || strings.Contains(note, "search cut short")
			var read string
			var pct float64
			if _, err := fmt.Sscanf(note, "read %q (%f%% like the name)", &read, &pct); err == nil {
				good = pct >= 100*goodSim
			}
		}
		// Only a skill already read well may go without saying the search was cut.
		if !cut && !(la.Located > 0 && good) {
			t.Errorf("%s: the budget cut the search but the notes do not say so: %q", la.Name, la.Notes)
		}
	}
}
