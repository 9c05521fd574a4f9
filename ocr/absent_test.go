package ocr

import (
	"image"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestSingleLettersNotWords declares one-letter skills on breta_page09.jpg, rectified to A4
// at 4 px/mm by the corners TestHandwrittenSheet uses: the sheet says "Text written by hand"
// and holds no letter written on its own, so none of them may be placed (a letter read out
// of a longer word is not that word).
func TestSingleLettersNotWords(t *testing.T) {
	dir := realdataDir(t)
	img := gocv.IMRead(filepath.Join(dir, "sheets/breta_page09.jpg"), gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Fatal("cannot read breta_page09.jpg")
	}
	src := gocv.NewPointVectorFromPoints([]image.Point{{252, 228}, {2320, 220}, {2352, 3200}, {232, 3212}})
	defer src.Close()
	dst := gocv.NewPointVectorFromPoints([]image.Point{{0, 0}, {840, 0}, {840, 1188}, {0, 1188}})
	defer dst.Close()
	h := gocv.GetPerspectiveTransform(src, dst)
	defer h.Close()
	sheet := gocv.NewMat()
	defer sheet.Close()
	gocv.WarpPerspective(img, &sheet, h, image.Pt(840, 1188))
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	lays, err := l.Locate(sheet, empty, 4, []string{"A", "B", "C", "D", "E", "F", "G"})
	if err != nil {
		t.Fatal(err)
	}
	for _, lay := range lays {
		if lay.Located > 0 {
			t.Errorf("%q is not written on the sheet but was located: %q", lay.Name, lay.Notes)
		}
	}
}

// TestPrintedPageSkillsAbsent declares six skills on a photographed printed page (an article
// on comics translation) that holds none of them: among its hundreds of words some read half
// like any name, and none may be taken for a skill.
func TestPrintedPageSkillsAbsent(t *testing.T) {
	dir := realdataDir(t)
	if testing.Short() {
		t.Skip("reads a whole printed page")
	}
	img := gocv.IMRead(filepath.Join(dir, "sheets", "cc0_a4-on-dark-background.jpg"), gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Fatal("cannot read cc0_a4-on-dark-background.jpg")
	}
	empty := gocv.NewMat()
	defer empty.Close()
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lays, err := l.Locate(img, empty, float64(img.Cols())/260, []string{"Packing", "List", "About", "Setup", "Guide", "Notice"})
	if err != nil {
		t.Fatal(err)
	}
	for _, lay := range lays {
		if lay.Located > 0 {
			t.Errorf("%q is not on the page but was located: %q", lay.Name, lay.Notes)
		}
	}
}
