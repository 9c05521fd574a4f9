package ocr

import (
	"path/filepath"
	"testing"

	"tearcam/internal/synth"
	"tearcam/vision"
)

// TestExactReadPlacesLetters regenerates case-014 of the independent synthetic set of seed
// 10 (tearcam-synth --seed 10 --cases 20) and locates Mateo's skills on his fresh photo as
// the referee does (vision.Fresh, then Locate). "Intimidation" in Dancing Script reads
// 77% like its name; its letters were cut by that read's symbols and the second letter
// ('n') lay off its ink by the generator's truth (I*timidation, a letter 8.4 mm off). Read
// again with only its letters allowed, at 1.25 times the size in mode 13, it reads
// "Intimidation" exactly, and cut by that read's symbols every letter's centre lies on its
// letter (exactRead).
func TestExactReadPlacesLetters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generates a case and locates a sheet")
	}
	spec := synth.SetSpecs(synth.SetOptions{Seed: 10, Cases: 20})[13]
	if spec.Name != "case-014" {
		t.Fatalf("spec %s, want case-014", spec.Name)
	}
	c, err := synth.GenerateCase(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	l := newTestLocator(t)
	seen := false
	forFreshSheetsOf(t, []string{dir}, func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		if pt.Name != "Mateo" {
			return
		}
		names := truthNames(pt)
		lays, evs := locateWithEvidence(t, l, fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		for k, sk := range pt.Skills {
			if sk.Name != "Intimidation" {
				continue
			}
			seen = true
			s := scoreLetters(lays[k], truthInFrame(pt, sk, fresh), letterChars(sk), sk.CapHeightMM)
			t.Logf("%s (%s): read %.0f%% like the name, exact read %s, letters %s, notes %q", sk.Name, sk.Font, 100*evs[k].sim, exactOf(evs[k]), s.marks, lays[k].Notes)
			if evs[k].exact == nil {
				t.Errorf("%s: no read with only its letters reads the name exactly", sk.Name)
			}
			if !s.lettersRight {
				t.Errorf("%s: letters %s, want every letter's centre on its letter (within 1 mm of its true outline)", sk.Name, s.marks)
			}
		}
	})
	if !seen {
		t.Fatalf("Mateo's fresh sheet not found in %s", filepath.Base(dir))
	}
}
