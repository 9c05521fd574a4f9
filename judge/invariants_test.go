package judge

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRuleInvariants rules random tear sequences on random measurements (fixed seed) and
// checks what must hold whatever the measurements say: letters left never grow; a faux pas
// has faults and only it has; an undecided ruling has a reason and leaves owed tears and
// paper as they were, and the letters too when nothing was measured reliably; owed tears never go negative; once out, always out for the
// same reason; nothing is available once out; no_skills_left exactly when no letter is left.
func TestRuleInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []Kind{KindUse, KindUse, KindDamage, KindPenalty, KindLastDitch}
	skills := []string{"Hop", "Axe", "Juggling", ""}
	allStates := []LetterState{LetterOnSheet, LetterOnSheet, LetterOnSheet, LetterRemoved, LetterCut, LetterGone, LetterUnknown, LetterAmbiguous, LetterOnSheetOrCut, LetterRemovedOrCut}
	randStates := func(n int) []LetterState {
		if rng.IntN(20) == 0 {
			return nil
		}
		out := make([]LetterState, n)
		for i := range out {
			out[i] = allStates[rng.IntN(len(allStates))]
		}
		return out
	}
	failures := 0
	seen := map[string]int{}
	for seq := 0; seq < 2000 && failures < 10; seq++ {
		c := newHopAxe()
		var prev TearRuling
		prev.Skills = c.Skills()
		prev.PaperFitsTemplate = true
		for i := 1; i <= 8; i++ {
			tear := Tear{Kind: kinds[rng.IntN(len(kinds))], Skill: skills[rng.IntN(len(skills))], Hit: rng.IntN(2) == 0}
			if tear.Kind == KindLastDitch && rng.IntN(4) != 0 {
				tear.Kind = KindUse
			}
			m := Measurement{
				RemovedAreaMM2: float64(rng.IntN(3) * 500), Pieces: rng.IntN(3),
				EdgeToEdge: rng.IntN(4) != 0, TemplateFits: rng.IntN(4) != 0, PaperFitsTemplate: rng.IntN(6) != 0,
				Letters: []SkillLetters{{Name: "Hop", States: randStates(3)}, {Name: "Axe", States: randStates(3)}},
			}
			if rng.IntN(15) == 0 {
				m.Refused = "blurred"
			}
			if rng.IntN(15) == 0 {
				m.Doubts = []string{"doubt"}
			}
			if rng.IntN(8) == 0 {
				m.Uncertain = append(m.Uncertain, Doubt{About: AboutPaperFits, Text: "near"})
			}
			if rng.IntN(15) == 0 {
				m.Uncertain = append(m.Uncertain, Doubt{About: []Quantity{AboutRemoved, AboutPieces, AboutEdgeToEdge, AboutTemplateFits, AboutLetters}[rng.IntN(5)], Skill: "Hop", Text: "near"})
			}
			r := c.Rule(i, tear, m)
			seen[string(r.Verdict)]++
			if !prev.Out {
				seen["out:"+string(r.OutReason)]++
			}
			fail := func(format string, a ...any) {
				failures++
				t.Errorf("sequence %d tear %d (%+v): "+format, append([]any{seq, i, tear}, a...)...)
			}
			for k := range r.Skills {
				if r.Skills[k].Remaining > prev.Skills[k].Remaining {
					fail("%s grew from %d to %d", r.Skills[k].Name, prev.Skills[k].Remaining, r.Skills[k].Remaining)
				}
				if r.Out && r.Skills[k].Available {
					fail("%s available while out", r.Skills[k].Name)
				}
				if !r.Out && r.Skills[k].Available != (r.Skills[k].Remaining > 0) {
					fail("%s availability wrong", r.Skills[k].Name)
				}
			}
			if (r.Verdict == FauxPas) != (len(r.Faults) > 0) {
				fail("verdict %s with faults %v", r.Verdict, r.Faults)
			}
			if r.Faults == nil {
				fail("nil faults")
			}
			if !slices.IsSortedFunc(r.Faults, func(a, b Fault) int { return faultOrder(a) - faultOrder(b) }) {
				fail("faults out of order: %v", r.Faults)
			}
			if (r.Verdict == Undecided) != (r.UndecidedReason != "") {
				fail("verdict %s with reason %q", r.Verdict, r.UndecidedReason)
			}
			if r.Verdict == Undecided && !prev.Out {
				// Owed tears and paper wait for the verdict; letters are physical (a letter
				// torn off is gone whatever the verdict) unless nothing was measured reliably.
				if r.OwedTears != prev.OwedTears || r.PaperFitsTemplate != prev.PaperFitsTemplate {
					fail("undecided changed owed tears or paper")
				}
				if (r.LettersAsBefore || m.Refused != "" || len(m.Doubts) > 0) && !slices.Equal(remaining(r.Skills), remaining(prev.Skills)) {
					fail("undecided changed the letters although nothing was measured reliably")
				}
			}
			if r.OwedTears < 0 {
				fail("owed %d", r.OwedTears)
			}
			if prev.Out && (!r.Out || r.OutReason != prev.OutReason) {
				fail("out %s became %v/%s", prev.OutReason, r.Out, r.OutReason)
			}
			if r.Out != (r.OutReason != OutNone) {
				fail("out %v with reason %q", r.Out, r.OutReason)
			}
			noneLeft := slices.Max(remaining(r.Skills)) == 0
			if !prev.Out && r.OutReason == OutNoSkillsLeft && !noneLeft {
				fail("no_skills_left with letters left")
			}
			if !prev.Out && !r.Out && noneLeft && r.Verdict != Undecided {
				fail("no letter left but not out")
			}
			if !prev.Out && tear.Kind == KindLastDitch && r.OutReason != OutLastDitch {
				fail("last ditch not out")
			}
			prev = r
		}
	}
	// The generator reaches every verdict and every way out.
	for _, k := range []string{"valid", "faux_pas", "undecided", "out:no_skills_left", "out:too_little_paper", "out:last_ditch"} {
		if seen[k] == 0 {
			t.Errorf("no %s in the random sequences: %v", k, seen)
		}
	}
	t.Logf("%v", seen)
}

func remaining(s []SkillState) []int {
	out := make([]int, len(s))
	for i, k := range s {
		out[i] = k.Remaining
	}
	return out
}

func faultOrder(f Fault) int {
	return slices.Index([]Fault{FaultNothingRemoved, FaultNoFullLetter, FaultPieceTooSmall, FaultNotEdgeToEdge, FaultSeveralPieces}, f)
}
