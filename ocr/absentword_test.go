package ocr

import (
	"math/rand"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
)

// TestSkillOnAnotherWord is the testers' case: "Hound" declared but not on the sheet, which
// holds the word "hand" (rendered sheets, seeds 1-16: printed, joined and italic fonts).
// Wherever a weak read places it on that word, its word is not called sure (identity under
// judge.VerdictIdentityConfidence), and where the read is also under
// judge.VerdictReadConfidence (seeds 11 and 16: "hand" 45% and "hard" 40% like the name,
// as the testers saw it at 44%) the judge makes a tear for it undecided. Measured, and not
// caught by that rule (before the identity confidence either): reads 55% like the name at
// exactly 0.5 (seeds 5, 7), and reads 60% like it (10 sheets) at 0.63, which is not even a
// weak location: most skills read 60% like their own name lie on their own word.
func TestSkillOnAnotherWord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: locates 16 sheets")
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for seed := int64(1); seed <= 16; seed++ {
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{PxPerMM: 4, Skills: []string{"hand", "Archery", "Cooking", "History", "Fencing", "Brewing"}})
		if err != nil {
			t.Fatal(err)
		}
		m := sheetMat(t, sh)
		empty := gocv.NewMat()
		names := sh.SkillNames()
		names[0] = "Hound"
		lays, err := l.Locate(m, empty, sh.PxPerMM, names)
		m.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
		h := lays[0]
		t.Logf("seed %d (%s): located %d, confidence %.3f, identity %.3f, outline %.3f %q", seed, sh.Skills[0].Font, h.Located, h.Confidence, h.Identity, h.Outline, h.Notes)
		if h.Located == 0 {
			continue
		}
		if h.Identity < h.Confidence {
			t.Errorf("seed %d: confidence %.3f above identity %.3f", seed, h.Confidence, h.Identity)
		}
		if h.Confidence < judge.WeakReadConfidence {
			if h.Identity >= judge.VerdictIdentityConfidence {
				t.Errorf("seed %d: Hound on another word by a weak read, yet its word called sure (identity %.3f)", seed, h.Identity)
			}
		}
	}
}
