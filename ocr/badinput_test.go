package ocr

import (
	"errors"
	"image"

	"math/rand"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// blankSheet is an off-white A4 sheet at 4 px/mm with nothing written on it. Close it.
func blankSheet(t testing.TB) gocv.Mat {
	t.Helper()
	m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(225, 238, 242, 0), 1188, 840, gocv.MatTypeCV8UC3)
	return m
}

func TestNewLocatorWithoutLanguageData(t *testing.T) {
	t.Setenv("TESSDATA_PREFIX", t.TempDir())
	l, err := NewLocator(1)
	if err == nil {
		l.Close()
		t.Fatal("NewLocator succeeded without eng.traineddata")
	}
	if !errors.Is(err, ErrNoLanguageData) {
		t.Fatalf("error %v is not ErrNoLanguageData", err)
	}
	if !strings.Contains(err.Error(), "tesseract-ocr-eng") {
		t.Errorf("error %q does not say which package to install", err)
	}
}

func TestLocateBadInput(t *testing.T) {
	l, err := NewLocator(1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sheet := blankSheet(t)
	defer sheet.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	small := gocv.NewMatWithSize(10, 10, gocv.MatTypeCV8U)
	defer small.Close()
	tests := []struct {
		name          string
		sheet, mask   gocv.Mat
		ppm           float64
		skills        []string
		wantBadSkills bool
	}{
		{"empty image", empty, empty, 4, []string{"Archery"}, false},
		{"zero scale", sheet, empty, 0, []string{"Archery"}, false},
		{"mask of another size", sheet, small, 4, []string{"Archery"}, false},
		{"skill declared twice", sheet, empty, 4, []string{"Archery", "ARCHERY"}, true},
		{"empty skill", sheet, empty, 4, []string{"Archery", ""}, true},
		{"skill without letters", sheet, empty, 4, []string{"--"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.Locate(tc.sheet, tc.mask, tc.ppm, tc.skills)
			if err == nil {
				t.Fatal("Locate accepted bad input")
			}
			if errors.Is(err, ErrBadSkills) != tc.wantBadSkills {
				t.Fatalf("error %v: ErrBadSkills %v, want %v", err, errors.Is(err, ErrBadSkills), tc.wantBadSkills)
			}
		})
	}
}

// TestLocateBlankSheet: nothing written, so every skill is explicitly not found.
func TestLocateBlankSheet(t *testing.T) {
	l, err := NewLocator(1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sheet := blankSheet(t)
	defer sheet.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	lays, err := l.Locate(sheet, empty, 4, []string{"Archery", "Cooking"})
	if err != nil {
		t.Fatal(err)
	}
	for _, lay := range lays {
		if lay.Located != 0 || len(lay.Letters) != 0 || lay.Confidence != 0 {
			t.Errorf("%q located on a blank sheet: %+v", lay.Name, lay)
		}
		if len(lay.Notes) == 0 || !strings.Contains(lay.Notes[0], "not found") {
			t.Errorf("%q: notes %q do not say not found", lay.Name, lay.Notes)
		}
	}
	words, err := l.Discover(sheet, empty, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 0 {
		t.Errorf("Discover found %d words on a blank sheet: %+v", len(words), words)
	}
}

// TestLocateNonLatin declares a Cyrillic skill next to the sheet's own: it is reported not
// found with the reason, and the others are still located.
func TestLocateNonLatin(t *testing.T) {
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sh, err := synth.RenderSheet(rand.New(rand.NewSource(4)), synth.SheetSpec{PxPerMM: 4})
	if err != nil {
		t.Fatal(err)
	}
	m := sheetMat(t, sh)
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	names := append(sh.SkillNames(), "Кулинария")
	lays, err := l.Locate(m, empty, 4, names)
	if err != nil {
		t.Fatal(err)
	}
	last := lays[len(lays)-1]
	if last.Located != 0 || !strings.Contains(strings.Join(last.Notes, " "), "Latin") {
		t.Errorf("non-Latin skill: %+v", last)
	}
	found := 0
	for k, sk := range sh.Skills {
		if scoreSkill(lays[k], sk).located {
			found++
		}
	}
	if found < 5 {
		t.Errorf("only %d of 6 Latin skills located next to a non-Latin one", found)
	}
}

// TestDiscover lists the words of rendered sheets without declared skills: most skills must
// be among them (a 75% match), with confidences in 0..1 and outlines on the sheet.
func TestDiscover(t *testing.T) {
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var total, found int
	for seed := int64(1); seed <= 3; seed++ {
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{PxPerMM: 4})
		if err != nil {
			t.Fatal(err)
		}
		m := sheetMat(t, sh)
		empty := gocv.NewMat()
		words, err := l.Discover(m, empty, 4)
		m.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, w := range words {
			texts = append(texts, w.Text)
			if w.Confidence < 0 || w.Confidence > 1 {
				t.Errorf("confidence %v out of 0..1", w.Confidence)
			}
			r := image.Rect(0, 0, 211, 298)
			for _, p := range w.Outline {
				if !image.Pt(int(p.X), int(p.Y)).In(r) {
					t.Errorf("outline point %v off the sheet", p)
				}
			}
		}
		for _, n := range sh.SkillNames() {
			total++
			if cliFinds(strings.Join(texts, "\n"), n) {
				found++
			}
		}
		t.Logf("seed %d: discovered %q", seed, texts)
	}
	t.Logf("Discover: %d of %d skills among the words found", found, total)
	if found*2 < total {
		t.Errorf("Discover found only %d of %d skills", found, total)
	}
}
