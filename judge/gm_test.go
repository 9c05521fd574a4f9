package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gmRuled(v Verdict, faults ...Fault) *GMRuling {
	g := &GMRuling{Verdict: v, Faults: faults}
	if err := g.Check([]string{"Hop", "Axe"}); err != nil {
		panic(err)
	}
	return g
}

func ptr[T any](v T) *T { return &v }

// refused is a tear whose photo could not be measured: tearcam leaves it undecided.
var refused = Measurement{Refused: "ann-1.jpg: registration refused"}

// TestGMRulingWorkedExamples drives the seed's worked examples (seeds/000_95befa804697ec6b.txt:
// "TEARING FAUX PAS": the player must make another tear; "CHARACTER DEGENERATION": no skills
// remaining, the character is removed) through tears tearcam left undecided and the GM ruled.
func TestGMRulingWorkedExamples(t *testing.T) {
	type step struct {
		tear    Tear
		m       Measurement
		gm      *GMRuling
		verdict Verdict // tearcam's own, kept
		skills  []SkillState
		owed    int
		out     OutReason
		over    []string // GMRuling.Overrules
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			// Tear 1 refused; the GM rules it a faux pas (no full letter): one tear owed, the
			// letters as before (nothing measured, counts carried, not measured since tear 1).
			// Tear 2, the penalty tear, is measured valid (H of Hop removed whole): it pays
			// the owed tear (seed: "another tear in addition"), owed 0.
			name: "owed tear after a GM faux pas paid by a penalty tear",
			steps: []step{
				{tear: use("Hop"), m: refused, gm: gmRuled(FauxPas, FaultNoFullLetter), verdict: Undecided,
					skills: notMeasured(left(3, 3, true), "Hop", "Axe"), owed: 1},
				{tear: penalty("Hop"), m: meas("ROO", "OOO"), verdict: Valid, skills: left(2, 3, true), owed: 0},
			},
		},
		{
			// Without the GM's ruling the owed count would wait for tear 1's verdict (0); the
			// GM's valid ruling owes nothing, and the GM's count (Hop 1) is the state.
			name: "GM valid with letters counted",
			steps: []step{
				{tear: use("Hop"), m: refused, gm: &GMRuling{Verdict: Valid, Remaining: map[string]int{"hop": 1}},
					verdict: Undecided, skills: notMeasured(left(1, 3, true), "Axe"), owed: 0},
			},
		},
		{
			// Tear 1 refused, the GM counts Hop 2 (the H was torn off: which letters is not
			// measured). Tear 2 is measured against the sheet before tear 1: H removed (by
			// tear 1), o and p whole. Hop stays 2, not 1: the letter the GM's count took is
			// not subtracted again (a tester, seed 11 case-011: Demolitions 5, truth 8).
			name: "GM count on an unmeasured tear, then a measurement against an older sheet",
			steps: []step{
				{tear: use("Hop"), m: refused, gm: &GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 2}},
					verdict: Undecided, skills: notMeasured(left(2, 3, true), "Axe")},
				{tear: use("Axe"), m: meas("ROO", "ROO"), verdict: Valid, skills: left(2, 2, true)},
			},
		},
		{
			// The GM's count stands over a later measurement that shows more letters whole
			// than it: Hop 1, o and p measured whole afterwards: 1, not certain which.
			name: "GM count below what a later measurement shows whole",
			steps: []step{
				{tear: use("Hop"), m: refused, gm: &GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 1}},
					verdict: Undecided, skills: notMeasured(left(1, 3, true), "Axe")},
				{tear: use("Axe"), m: meas("ROO", "ROO"), verdict: Valid, skills: notMeasured(left(1, 2, true), "Hop")},
			},
		},
		{
			// Seed: "If a character has no skills remaining ... the character is removed from
			// the game". Hop is gone (measured); the last tear for Axe is undecided and the GM
			// counts Axe 0: out, no_skills_left.
			name: "out when the GM counts no skill left",
			steps: []step{
				{tear: use("Hop"), m: meas("RRR", "OOO"), verdict: Valid, skills: left(0, 3, true)},
				{tear: use("Axe"), m: with(meas("GGG", "RRR"), func(m *Measurement) { m.Doubts = []string{"a shadow"} }),
					gm: &GMRuling{Verdict: Valid, Remaining: map[string]int{"Axe": 0}}, verdict: Undecided,
					skills: left(0, 0, false), out: OutNoSkillsLeft},
			},
		},
		{
			// The GM overrules a decided tear: tearcam measured a valid tear, the GM rules a
			// faux pas (the player changed grip: no fault tearcam can see, so the GM names the
			// closest, not_edge_to_edge). The ruling says where they differ.
			name: "GM overrules a decided tear",
			steps: []step{
				{tear: use("Hop"), m: meas("ROO", "OOO"), gm: gmRuled(FauxPas, FaultNotEdgeToEdge), verdict: Valid,
					skills: left(2, 3, true), owed: 1, over: []string{"verdict: tearcam ruled valid"}},
			},
		},
		{
			// Undecided (the template's fit in the piece within measurement error, the only
			// fault in question), but the letters are measured: H of Hop removed, 2 left. The
			// GM counts Hop 1: a measured count overruled, said so.
			name: "GM count overrules a measured count on an undecided tear",
			steps: []step{
				{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) {
					m.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "within 1 mm"}}
					m.TemplateFits = false
				}), gm: &GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 1}}, verdict: Undecided,
					skills: left(1, 3, true), over: []string{"Hop: tearcam measured 2 letters left"}},
			},
		},
		{
			// A faux pas owes a tear; the GM rules the paper left cannot cover the template: the
			// owed tear is asked now, so the character is out (too_little_paper).
			name: "owed tear and no paper: out",
			steps: []step{
				{tear: use("Hop"), m: refused, gm: &GMRuling{Verdict: FauxPas, Faults: []Fault{FaultPieceTooSmall}, PaperFitsTemplate: ptr(false)},
					verdict: Undecided, skills: notMeasured(left(3, 3, false), "Hop", "Axe"), owed: 1, out: OutTooLittlePaper},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newHopAxe()
			for i, s := range tc.steps {
				r := c.RuleGM(i+1, s.tear, s.m, s.gm)
				assert.Equal(t, s.verdict, r.Verdict, "tear %d verdict (tearcam's own)", i+1)
				assert.Equal(t, s.skills, r.Skills, "tear %d letters left", i+1)
				assert.Equal(t, s.owed, r.OwedTears, "tear %d owed", i+1)
				assert.Equal(t, s.out, r.OutReason, "tear %d out", i+1)
				assert.Equal(t, s.out != OutNone, r.Out, "tear %d out", i+1)
				if s.gm == nil {
					assert.Nil(t, r.GMRuling)
					continue
				}
				require.NotNil(t, r.GMRuling, "tear %d", i+1)
				assert.Equal(t, s.gm.Verdict, r.GMRuling.Verdict)
				assert.Equal(t, s.over, r.GMRuling.Overrules, "tear %d overrules", i+1)
			}
		})
	}
}

// TestGMRulingUndecidedWithoutGM: the same tears without the GM's ruling stay where tearcam
// leaves them (owed tears wait, the character stays in): the GM's ruling is what resolves them.
func TestGMRulingUndecidedWithoutGM(t *testing.T) {
	c := newHopAxe()
	r := c.RuleGM(1, use("Hop"), refused, nil)
	assert.Equal(t, Undecided, r.Verdict)
	assert.Equal(t, 0, r.OwedTears)
	assert.Nil(t, r.GMRuling)
	c = newHopAxe()
	c.Rule(1, use("Hop"), meas("RRR", "OOO"))
	r = c.Rule(2, use("Axe"), with(meas("GGG", "RRR"), func(m *Measurement) { m.Doubts = []string{"a shadow"} }))
	assert.False(t, r.Out, "undecided never puts out")
}

// TestGMRulingSameAsTearcam: a GM ruling that agrees with a decided tear changes nothing but
// the record: same state as without it, no overrules.
func TestGMRulingSameAsTearcam(t *testing.T) {
	a, b := newHopAxe(), newHopAxe()
	m := faux("COO", "OOO")
	ra := a.Rule(1, use("Hop"), m)
	rb := b.RuleGM(1, use("Hop"), m, gmRuled(FauxPas, FaultNotEdgeToEdge, FaultNoFullLetter))
	require.NotNil(t, rb.GMRuling)
	assert.Empty(t, rb.GMRuling.Overrules)
	assert.Equal(t, ra.Skills, rb.Skills)
	assert.Equal(t, ra.OwedTears, rb.OwedTears)
	assert.Equal(t, ra.Verdict, rb.Verdict)
	assert.Equal(t, ra.Faults, rb.Faults)
}

func TestGMRulingCheck(t *testing.T) {
	skills := []string{"Hop", "Tea Ceremony"}
	tests := []struct {
		name string
		g    GMRuling
		err  string // "" valid
	}{
		{"valid", GMRuling{Verdict: Valid}, ""},
		{"faux pas", GMRuling{Verdict: FauxPas, Faults: []Fault{FaultSeveralPieces, FaultNoFullLetter}}, ""},
		{"counts", GMRuling{Verdict: Valid, Remaining: map[string]int{"tea ceremony": 11, "Hop": 0}}, ""},
		{"no verdict", GMRuling{}, "no verdict"},
		{"undecided", GMRuling{Verdict: Undecided}, "the GM decides"},
		{"unknown verdict", GMRuling{Verdict: "fine"}, `unknown verdict "fine"`},
		{"unknown fault", GMRuling{Verdict: FauxPas, Faults: []Fault{"grip"}}, `unknown fault "grip"`},
		{"faux pas without faults", GMRuling{Verdict: FauxPas}, "needs faults"},
		{"valid with faults", GMRuling{Verdict: Valid, Faults: []Fault{FaultNoFullLetter}}, "takes no faults"},
		{"unknown skill", GMRuling{Verdict: Valid, Remaining: map[string]int{"Axe": 1}}, `unknown skill "Axe"`},
		{"too many letters", GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 4}}, `"Hop" has 3 letters: want 0 to 3, not 4`},
		{"unknown out", GMRuling{Verdict: Valid, Out: "tired"}, `unknown out "tired"`},
		{"out last ditch", GMRuling{Verdict: Valid, Out: OutLastDitch}, "last ditch"},
		{"no skills left with letters", GMRuling{Verdict: Valid, Out: OutNoSkillsLeft, Remaining: map[string]int{"Hop": 1}}, "no_skills_left"},
		{"paper contradiction", GMRuling{Verdict: Valid, Out: OutTooLittlePaper, PaperFitsTemplate: ptr(true)}, "paper only shrinks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Check(skills)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBadGMRuling))
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	g := GMRuling{Verdict: FauxPas, Faults: []Fault{FaultSeveralPieces, FaultNoFullLetter}, Remaining: map[string]int{"tea ceremony": 11}}
	require.NoError(t, g.Check(skills))
	assert.Equal(t, []Fault{FaultNoFullLetter, FaultSeveralPieces}, g.Faults, "faults in reporting order")
	assert.Equal(t, map[string]int{"Tea Ceremony": 11}, g.Remaining, "names as declared")
	assert.Equal(t, "faux_pas (no_full_letter, several_pieces); letters left Tea Ceremony 11", g.Label(skills))
}

// TestGMRulingJSON: the ruling's JSON keeps tearcam's verdict and adds gm_ruling; the same
// input gives the same bytes.
func TestGMRulingJSON(t *testing.T) {
	run := func() []byte {
		p := RulePlayer(PlayerInput{Name: "Ann", Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
			Tears: []TearInput{{Tear: use("Hop"), Measurement: refused,
				GM: &GMRuling{Verdict: FauxPas, Faults: []Fault{FaultNoFullLetter}, Remaining: map[string]int{"Hop": 2, "Axe": 3}, Note: "grip changed"}}}})
		b, err := json.Marshal(p.Tears[0])
		require.NoError(t, err)
		return b
	}
	a := run()
	assert.Equal(t, string(a), string(run()))
	var got map[string]any
	require.NoError(t, json.Unmarshal(a, &got))
	assert.Equal(t, "undecided", got["verdict"])
	assert.Equal(t, map[string]any{"verdict": "faux_pas", "faults": []any{"no_full_letter"},
		"remaining": map[string]any{"Axe": 3.0, "Hop": 2.0}, "note": "grip changed"}, got["gm_ruling"])
	assert.Equal(t, 1.0, got["owed_tears"])
}

// TestGMRulingNoSkillsDeclared: in discovery mode (no skills declared yet) a GM's ruling owes
// tears as ruled but never puts the character out for having no skill left.
func TestGMRulingNoSkillsDeclared(t *testing.T) {
	c := NewCharacter("Ann", nil, nil)
	r := c.RuleGM(1, Tear{Kind: KindPenalty}, Measurement{Refused: "no skills declared for Ann"}, &GMRuling{Verdict: FauxPas, Faults: []Fault{FaultPieceTooSmall}})
	assert.False(t, r.Out)
	assert.Equal(t, 1, r.OwedTears)
}

// TestGMRulingInvariants: random tears, each undecided one ruled by the GM at random (a count
// per skill no higher than before): tearcam's own verdict, faults and reason are what Rule
// gives; owed tears follow the GM's verdict; the GM's counts are the letters left; out is
// sticky, and no letter left puts the character out.
func TestGMRulingInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := []Kind{KindUse, KindDamage, KindPenalty}
	allStates := []LetterState{LetterOnSheet, LetterOnSheet, LetterRemoved, LetterCut, LetterUnknown, LetterAmbiguous, LetterRemovedOrCut}
	randStates := func() []LetterState {
		out := make([]LetterState, 3)
		for i := range out {
			out[i] = allStates[rng.IntN(len(allStates))]
		}
		return out
	}
	failures, ruled := 0, 0
	for seq := 0; seq < 1000 && failures < 10; seq++ {
		c := newHopAxe()
		prev := TearRuling{Skills: c.Skills(), PaperFitsTemplate: true}
		for i := 1; i <= 6; i++ {
			tear := Tear{Kind: kinds[rng.IntN(len(kinds))], Skill: []string{"Hop", "Axe"}[rng.IntN(2)]}
			m := Measurement{RemovedAreaMM2: 500, Pieces: 1 + rng.IntN(2), EdgeToEdge: rng.IntN(4) != 0, TemplateFits: rng.IntN(4) != 0,
				PaperFitsTemplate: rng.IntN(6) != 0, Letters: []SkillLetters{{Name: "Hop", States: randStates()}, {Name: "Axe", States: randStates()}}}
			if rng.IntN(6) == 0 {
				m = Measurement{Refused: "blurred"}
			}
			own := c.clone().Rule(i, tear, m)
			var gm *GMRuling
			if own.Verdict == Undecided && !prev.Out {
				gm = &GMRuling{Verdict: Valid}
				if rng.IntN(2) == 0 {
					gm = &GMRuling{Verdict: FauxPas, Faults: []Fault{AllFaults[rng.IntN(len(AllFaults))]}}
				}
				if rng.IntN(2) == 0 {
					gm.Remaining = map[string]int{"Hop": rng.IntN(prev.Skills[0].Remaining + 1), "Axe": rng.IntN(prev.Skills[1].Remaining + 1)}
				}
				require.NoError(t, gm.Check([]string{"Hop", "Axe"}))
				ruled++
			}
			r := c.RuleGM(i, tear, m, gm)
			fail := func(format string, a ...any) {
				failures++
				t.Errorf("sequence %d tear %d (%+v, gm %+v): "+format, append([]any{seq, i, tear, gm}, a...)...)
			}
			if r.Verdict != own.Verdict || !slices.Equal(r.Faults, own.Faults) || r.UndecidedReason != own.UndecidedReason {
				fail("tearcam's ruling %s %v %q became %s %v %q", own.Verdict, own.Faults, own.UndecidedReason, r.Verdict, r.Faults, r.UndecidedReason)
			}
			if gm != nil && !r.Out {
				want := prev.OwedTears
				if tear.Kind == KindPenalty && want > 0 {
					want--
				}
				if gm.Verdict == FauxPas {
					want++
				}
				if r.OwedTears != want {
					fail("owed %d, want %d", r.OwedTears, want)
				}
			}
			if gm != nil && gm.Remaining != nil {
				if got := remaining(r.Skills); got[0] != gm.Remaining["Hop"] || got[1] != gm.Remaining["Axe"] {
					fail("letters left %v, the GM counted %v", got, gm.Remaining)
				}
			}
			if prev.Out && (!r.Out || r.OutReason != prev.OutReason) {
				fail("out %s became %v/%s", prev.OutReason, r.Out, r.OutReason)
			}
			if gm != nil && slices.Max(remaining(r.Skills)) == 0 && !r.Out {
				fail("no letter left but not out")
			}
			prev = r
		}
	}
	assert.Greater(t, ruled, 500, "the GM ruled enough tears")
}

// TestGMZeroStaysCertain: the GM's count of 0 for a skill a weak read located stays certain
// on later tears. Without it (a tester, the bundled sample: the GM ruled "Text: 0" on tear 2,
// tear 3 printed "Text 0?" again, and throw offered --gm-confirms for Text) the weak read's
// doubt came back with the next measurement. A weak read's 0 that the GM did not rule stays
// uncertain (the control), and a letter never comes back to the sheet after the GM's 0.
func TestGMZeroStaysCertain(t *testing.T) {
	weakHop := func() *Character {
		weak := layout("Hop")
		weak.Confidence = 0.3 // under WeakReadConfidence, and under VerdictReadConfidence
		return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
	}
	// Tear 1: damage Hop, all its letters measured removed or cut; tearcam leaves the tear
	// undecided (the skill torn for is a weak read). Tear 2: use Axe, A removed; Hop's
	// letters measured gone (tear 1 took them).
	tear1, tear2 := damage("Hop"), use("Axe")
	m1, m2 := meas("RCC", "OOO"), meas("GGG", "ROO")
	tests := []struct {
		name string
		gm   *GMRuling
		// hop2: Hop after tear 2 (0 letters either way), measured or not.
		hop2Measured bool
		lostFor      string // CanUse("Hop") error text, as expected after tear 2
	}{
		{"the GM ruled Hop 0", &GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 0}}, true, `Ann: "Hop" has no full letter left`},
		{"the GM ruled the verdict only (control)", &GMRuling{Verdict: Valid}, false, `Ann may have lost "Hop"`},
		{"no GM ruling (control)", nil, false, `Ann may have lost "Hop"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := weakHop()
			r1 := c.RuleGM(1, tear1, m1, tc.gm)
			require.Equal(t, Undecided, r1.Verdict, "tear 1: the skill torn for is a weak read")
			require.Equal(t, 0, r1.Skills[0].Remaining, "tear 1: Hop's letters are all removed or cut")
			r2 := c.RuleGM(2, tear2, m2, nil)
			assert.Equal(t, Valid, r2.Verdict, "tear 2: A of Axe removed whole")
			assert.Equal(t, SkillState{"Hop", 0, false, tc.hop2Measured}, r2.Skills[0], "tear 2: Hop")
			assert.Equal(t, SkillState{"Axe", 2, true, true}, r2.Skills[1], "tear 2: Axe")
			err := c.CanUse("Hop")
			require.ErrorIs(t, err, ErrSkillLost)
			assert.Contains(t, err.Error(), tc.lostFor)
			err = c.Validate(damage("Hop"))
			require.ErrorIs(t, err, ErrSkillLost)
			assert.Contains(t, err.Error(), tc.lostFor)
		})
	}
}

// TestGMLineSkillOrderAndIgnored: the GM's letter counts print in the sheet's declared order
// (Hop before Axe, not alphabetically), and a ruling on a tear after the character is out
// says it was ignored and why (the seed: a character with no skills left is removed from
// play, so nothing after that tear is ruled).
func TestGMLineSkillOrderAndIgnored(t *testing.T) {
	counted := &GMRuling{Verdict: FauxPas, Faults: []Fault{FaultNoFullLetter}, Remaining: map[string]int{"Axe": 3, "Hop": 2}}
	require.NoError(t, counted.Check([]string{"Hop", "Axe"}))
	p := RulePlayer(PlayerInput{Name: "Ann", Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
		Tears: []TearInput{
			{Tear: use("Hop"), Measurement: refused, GM: counted},
			// Every letter of both skills removed whole: out (no_skills_left) at tear 2.
			{Tear: damage("Axe"), Measurement: meas("RRR", "RRR")},
			{Tear: use("Hop"), Measurement: refused, GM: gmRuled(Valid)},
		}})
	require.Len(t, p.Tears, 3)
	assert.Equal(t, "undecided → GM ruled faux_pas (no_full_letter); letters left Hop 2, Axe 3", GMLine(p.Tears[0]))
	require.True(t, p.Tears[1].Out)
	last := p.Tears[2]
	require.NotNil(t, last.GMRuling)
	assert.Equal(t, "Ann is already out (no_skills_left, tear 2): a ruling on a later tear changes nothing", last.GMRuling.Ignored)
	assert.Empty(t, last.GMRuling.Overrules)
	assert.Equal(t, "undecided → GM ruled valid: ignored, Ann is already out (no_skills_left, tear 2): a ruling on a later tear changes nothing", GMLine(last))
	assert.Equal(t, Undecided, last.Verdict)
	assert.True(t, last.Out, "still out")
	// A ruling that stands is not marked ignored.
	assert.Empty(t, p.Tears[0].GMRuling.Ignored)
}

// TestGMAdviceFitsTheMode: an undecided reason ends with how the GM records the ruling: in
// the manifest by default (audit), in the caller's words when set (watch), naming the tear.
func TestGMAdviceFitsTheMode(t *testing.T) {
	doubt := meas("ROO", "OOO")
	doubt.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "fit within 1 mm"}}
	for _, tc := range []struct {
		name   string
		advice GMAdvice
		want   string
	}{
		{"audit", nil, "lays the template on the paper torn off (it does not fit inside: piece_too_small), then records the ruling on this tear (gm: in the manifest)"},
		{"watch", func(player string, index int) string {
			return fmt.Sprintf("types %q", fmt.Sprintf("%s: gm %d valid", player, index))
		},
			`lays the template on the paper torn off (it does not fit inside: piece_too_small), then types "Ann: gm 2 valid"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCharacter("Ann", []string{"Hop", "Axe"}, []SkillLayout{layout("Hop"), layout("Axe")})
			c.SetGMAdvice(tc.advice)
			c.Rule(1, use("Axe"), meas("OOO", "ROO"))
			r := c.Rule(2, use("Hop"), doubt)
			require.Equal(t, Undecided, r.Verdict)
			assert.True(t, strings.HasSuffix(r.UndecidedReason, tc.want), r.UndecidedReason)
		})
	}
}

// TestGMCountOutlivesAContradictedLayout: the GM counted letters of a skill left where the
// fresh sheet's weak read had placed them on paper a tear took (the read was on another
// word). A later measurement of those places says "gone before this tear"; the GM's count
// stands, not certain, and stays on later tears, rather than falling to "0?" without a word
// of the GM's count (a tester: "Text 4" by the GM on tear 2, "Text 0?" on tear 3).
func TestGMCountOutlivesAContradictedLayout(t *testing.T) {
	weakHop := func() *Character {
		weak := layout("Hop")
		weak.Confidence = 0.3
		return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
	}
	tests := []struct {
		name    string
		gm      *GMRuling
		hopLeft int  // Hop's letters left after tears 2 and 3
		noted   bool // tear 2 notes the GM's count
	}{
		{"the GM counted Hop 3", &GMRuling{Verdict: FauxPas, Faults: []Fault{FaultNoFullLetter}, Remaining: map[string]int{"Hop": 3}}, 3, true},
		{"the GM counted Hop 2", &GMRuling{Verdict: Valid, Remaining: map[string]int{"Hop": 2}}, 2, true},
		{"the GM ruled the verdict only (control)", &GMRuling{Verdict: Valid}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := weakHop()
			r1 := c.RuleGM(1, damage("Hop"), meas("RCC", "OOO"), tc.gm)
			require.Equal(t, tc.hopLeft, r1.Skills[0].Remaining, "tear 1: the GM's count, or as measured (all removed or cut)")
			r2 := c.RuleGM(2, use("Axe"), meas("GGG", "ROO"), nil)
			assert.Equal(t, Valid, r2.Verdict, "tear 2: A of Axe removed whole; Hop is not the skill torn for")
			assert.Equal(t, SkillState{"Hop", tc.hopLeft, tc.hopLeft > 0, false}, r2.Skills[0], "tear 2: Hop")
			assert.Equal(t, SkillState{"Axe", 2, true, true}, r2.Skills[1], "tear 2: Axe")
			gmNote := false
			for _, n := range r2.Notes {
				if strings.Contains(n, "the GM counted") && strings.Contains(n, `"Hop"`) {
					gmNote = true
				}
			}
			assert.Equal(t, tc.noted, gmNote, "tear 2 notes: %q", r2.Notes)
			r3 := c.RuleGM(3, use("Axe"), meas("GGG", "GRO"), nil)
			assert.Equal(t, Valid, r3.Verdict, "tear 3: x of Axe removed whole")
			assert.Equal(t, SkillState{"Hop", tc.hopLeft, tc.hopLeft > 0, false}, r3.Skills[0], "tear 3: Hop")
			assert.Equal(t, SkillState{"Axe", 1, true, true}, r3.Skills[1], "tear 3: Axe")
		})
	}
}
