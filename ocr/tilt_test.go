package ocr

import (
	"path/filepath"
	"testing"

	"tearcam/internal/synth"
	"tearcam/vision"
)

// TestTiltedReadsFindWord locates the skills of the project set's case-004 (testdata/images/
// synth: Bo's sheet), whose "Alchemy" (Breip, dark red, 6.7 mm capitals) was not found: its
// word region's estimated direction is a few degrees off its baseline, and there Tesseract
// reads it "AMeney" or "Meney" (29-43% like the name); turned 4-8° it reads "Alcueny" and
// "Aleneny" (57-71%). A skill still missing is read along small turns of the way up that
// read most like it (smallTilts): Alchemy must be located on its own word (the centre of its
// letters within half a cap height of the truth's), and every other skill where it was.
func TestTiltedReadsFindWord(t *testing.T) {
	l := newTestLocator(t)
	n := 0
	forFreshSheetsOf(t, []string{filepath.Join("..", "testdata", "images", "synth", "case-004")}, func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		if pt.Name != "Bo" {
			return
		}
		n++
		names := truthNames(pt)
		lays, err := l.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		if err != nil {
			t.Fatal(err)
		}
		for k, sk := range pt.Skills {
			chars := make([]rune, len(sk.Letters))
			for i, le := range sk.Letters {
				chars[i] = []rune(le.Char)[0]
			}
			if s := scoreLetters(lays[k], truthInFrame(pt, sk, fresh), chars, sk.CapHeightMM); !s.located {
				t.Errorf("%q not located on its own word: %d letters, notes %q", sk.Name, lays[k].Located, lays[k].Notes)
			}
		}
	})
	if n != 1 {
		t.Fatalf("%d sheets of Bo found in case-004, want 1", n)
	}
}
