package ocr

import (
	"math/rand"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// TestTinyArea: a mark is tiny (a dot or an accent, no letter of its own) against a letter's
// ink. "Tracking" written in DancingScript-Bold (40 sheets from seed 100, sheet 22) is two
// marks once its i's dot is joined to its mark: the capital T and "racking" joined up. With
// areas like these (a T of 400 px, "racking" of 2500), against the median mark's ink the T
// was a fifth of it and so "tiny", and no division of the marks into letters existed (a tiny
// mark only joins a letter beside it): the word was cut on its column profile alone. The
// median mark holds more than two letters' ink (2900/8 each), so the ink per letter is the
// reference: the T is a letter.
func TestTinyArea(t *testing.T) {
	old := tinyLetter
	tinyLetter = true
	defer func() { tinyLetter = old }()
	cases := []struct {
		name  string
		areas []int
		n     int
		want  int
	}{
		{"capital beside a joined-up word", []int{2500, 400}, 8, 2900 / 8 / 5},
		// With the dot apart the median is the T's: 80 px, the dot tiny, the T not.
		{"capital, joined-up word and a dot", []int{2500, 400, 20}, 8, 400 / 5},
		// Print: one mark per letter, the median is a letter's ink.
		{"one mark per letter", []int{300, 310, 280, 20, 330}, 4, 300 / 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tinyArea(append([]int{}, c.areas...), c.n); got != c.want {
				t.Errorf("tinyArea = %d, want %d", got, c.want)
			}
		})
	}
}

// TestJoinedUpCuts: with cursiveEnd (off by default: see there), in joined-up writing the
// stroke joining two letters is the letter's it leaves, so a cut goes where the next letter's
// body rises. On the rendered
// sheets of seed 100 (synth.RenderSheet, 4 px/mm), each letter's outline is compared with
// the truth's; the skills in DancingScript below had few letters within 1 mm before (on the
// 40 sheets, DancingScript's outlines within 1 mm: 51 -> 69%).
func TestJoinedUpCuts(t *testing.T) {
	o1, o2 := cursiveEnd, tinyLetter
	cursiveEnd, tinyLetter = true, true
	defer func() { cursiveEnd, tinyLetter = o1, o2 }()
	cases := []struct {
		sheet  int64
		skill  string
		within int // letters within 1 mm of the truth's outline (Hausdorff), at least
	}{
		// Before: 5 of 11, 2 of 8 (the T taken for a dot, the word cut on its profile alone:
		// see TestTinyArea) and 1 of 7.
		{14, "Demolitions", 10},
		{22, "Tracking", 4},
		{24, "Fencing", 4},
	}
	l := newTestLocator(t)
	for _, c := range cases {
		t.Run(c.skill, func(t *testing.T) {
			sh, err := synth.RenderSheet(rand.New(rand.NewSource(100+c.sheet)), synth.SheetSpec{PxPerMM: 4})
			if err != nil {
				t.Fatal(err)
			}
			m := sheetMat(t, sh)
			defer m.Close()
			empty := gocv.NewMat()
			defer empty.Close()
			lays, err := l.Locate(m, empty, sh.PxPerMM, sh.SkillNames())
			if err != nil {
				t.Fatal(err)
			}
			for k, sk := range sh.Skills {
				if sk.Name != c.skill {
					continue
				}
				s := scoreSkill(lays[k], sk)
				if !s.located {
					t.Fatalf("%s not located: %q", sk.Name, lays[k].Notes)
				}
				within := 0
				for _, h := range s.hd {
					if h <= 1 {
						within++
					}
				}
				t.Logf("%s (%s, cap %.1f mm): letters within 1 mm %d of %d, distances %.2f", sk.Name, sk.Font, sk.CapHeightMM, within, len(s.hd), s.hd)
				if within < c.within {
					t.Errorf("%s: %d letters within 1 mm of the truth's outline, want at least %d", sk.Name, within, c.within)
				}
			}
		})
	}
}
