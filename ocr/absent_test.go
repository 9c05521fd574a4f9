package ocr

import (
	"image"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/vision"
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

// TestAbsentSkillLeavesOthers declares, beside the bundled sample's four words, a skill that
// is not on the sheet ("Cooking"): it must be reported not found, and the four words located
// as without it, each on the same number of letters and with its identity confidence no more
// than 0.05 lower. Every region is read with the letters of all the declared skills allowed,
// and Cooking's o let Tesseract read "hand" as "honed": its read with only the name's letters
// then looked like another word forced into them, and the identity fell from 0.99 to the
// refusal cap of 0.3 (rereadFound reads the located words again without the letters of the
// skills not found).
func TestAbsentSkillLeavesOthers(t *testing.T) {
	l := newTestLocator(t)
	n := 0
	ForEachFreshSheet(t, filepath.Join("..", "testdata", "images"), func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		n++
		names := truthNames(pt)
		base, err := l.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		if err != nil {
			t.Fatal(err)
		}
		more, err := l.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, append(append([]string{}, names...), "Cooking"))
		if err != nil {
			t.Fatal(err)
		}
		if got := more[len(names)]; got.Located != 0 || len(got.Notes) == 0 || got.Notes[0] != "not found" {
			t.Errorf("Cooking: located %d letters, notes %q; want not found", got.Located, got.Notes)
		}
		for k, name := range names {
			b, m := base[k], more[k]
			if m.Located != b.Located || m.Identity < b.Identity-0.05 {
				t.Errorf("%q with Cooking declared: %d letters, identity %.2f (notes %q); without: %d, %.2f", name, m.Located, m.Identity, m.Notes, b.Located, b.Identity)
			}
		}
	})
	if n != 1 {
		t.Fatalf("%d sample sheets found, want 1", n)
	}
}
