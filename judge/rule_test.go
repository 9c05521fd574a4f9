package judge

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/template"
)

// The test character has two short skills so that letter states can be written by hand:
// "Hop" (3 letters) and "Axe" (3 letters). Letter states are strings, one rune per letter:
// O on sheet, R removed, C cut, G gone, U unknown, A ambiguous, S on the sheet or cut,
// X removed or cut.

func states(s string) []LetterState {
	if s == "-" {
		return nil
	}
	m := map[rune]LetterState{'O': LetterOnSheet, 'R': LetterRemoved, 'C': LetterCut,
		'G': LetterGone, 'U': LetterUnknown, 'A': LetterAmbiguous, 'S': LetterOnSheetOrCut, 'X': LetterRemovedOrCut}
	out := make([]LetterState, 0, len(s))
	for _, r := range s {
		out = append(out, m[r])
	}
	return out
}

// layout locates every letter of name (a 1 mm square per letter), except the letters whose
// 0-based positions are in unlocated.
func layout(name string, unlocated ...int) SkillLayout {
	l := SkillLayout{Name: name, Confidence: 0.9}
	skip := map[int]bool{}
	for _, u := range unlocated {
		skip[u] = true
	}
	for i, r := range LetterRunes(name) {
		x := float64(i * 2)
		let := Letter{Char: string(r)}
		if !skip[i] {
			let.Outline = []Point{{x, 0}, {x + 1, 0}, {x + 1, 1}, {x, 1}}
			l.Located++
		}
		l.Letters = append(l.Letters, let)
	}
	return l
}

func newHopAxe() *Character {
	return NewCharacterFromLayouts("Ann", []SkillLayout{layout("Hop"), layout("Axe")})
}

// meas is a clean one-piece, edge-to-edge tear whose piece covers the template and leaves
// enough paper, with the given letter states for Hop and Axe ("-" for not measured).
func meas(hop, axe string) Measurement {
	return Measurement{
		RemovedAreaMM2: 1500, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFitsTemplate: true,
		Letters: []SkillLetters{{Name: "Hop", States: states(hop)}, {Name: "Axe", States: states(axe)}},
	}
}

func with(m Measurement, f func(*Measurement)) Measurement { f(&m); return m }

func use(skill string) Tear     { return Tear{Kind: KindUse, Skill: skill} }
func damage(skill string) Tear  { return Tear{Kind: KindDamage, Skill: skill} }
func penalty(skill string) Tear { return Tear{Kind: KindPenalty, Skill: skill} }

// left is Hop's and Axe's letters left, measured (every letter left was located).
func left(hop, axe int, avail bool) []SkillState {
	return []SkillState{{"Hop", hop, avail && hop > 0, true}, {"Axe", axe, avail && axe > 0, true}}
}

// notMeasured marks the named skills' letters left as not measured.
func notMeasured(ss []SkillState, names ...string) []SkillState {
	for i := range ss {
		if slices.Contains(names, ss[i].Name) {
			ss[i].Measured = false
		}
	}
	return ss
}

func TestRuleOneTear(t *testing.T) {
	tests := []struct {
		name      string
		char      func() *Character // nil: newHopAxe
		tear      Tear
		m         Measurement
		verdict   Verdict
		faults    []Fault
		reason    string // substring of undecided_reason
		removed   int
		skills    []SkillState
		owed      int
		out       OutReason
		noteMatch string // substring of one note
	}{
		// Seed "RULES FOR TEARING": one full letter of the used skill, edge to edge, one piece
		// covering the template: valid. H removed -> Hop keeps o,p (2); Axe untouched (3).
		{name: "valid use", tear: use("Hop"), m: meas("ROO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: left(2, 3, true)},
		// Damage: same rule on the skill the GM names.
		{name: "valid damage", tear: damage("Axe"), m: meas("OOO", "RRO"),
			verdict: Valid, faults: []Fault{}, removed: 2, skills: left(3, 1, true)},
		// DESIGN.md: a cut letter is on neither: not a full letter removed, no longer left.
		{name: "no full letter: only cut", tear: use("Hop"), m: meas("COO", "OOO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: left(2, 3, true), owed: 1},
		// The letter must be of the named skill: an Axe letter does not count for Hop.
		{name: "no full letter: other skill's letter", tear: use("Hop"), m: meas("OOO", "ROO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: left(3, 2, true), owed: 1},
		{name: "piece too small alone", tear: use("Hop"),
			m:       with(meas("ROO", "OOO"), func(m *Measurement) { m.TemplateFits = false }),
			verdict: FauxPas, faults: []Fault{FaultPieceTooSmall}, removed: 1, skills: left(2, 3, true), owed: 1},
		{name: "not edge to edge alone", tear: use("Hop"),
			m:       with(meas("ROO", "OOO"), func(m *Measurement) { m.EdgeToEdge = false }),
			verdict: FauxPas, faults: []Fault{FaultNotEdgeToEdge}, removed: 1, skills: left(2, 3, true), owed: 1},
		{name: "several pieces alone", tear: use("Hop"),
			m:       with(meas("ROO", "OOO"), func(m *Measurement) { m.Pieces = 2 }),
			verdict: FauxPas, faults: []Fault{FaultSeveralPieces}, removed: 1, skills: left(2, 3, true), owed: 1},
		// Nothing removed: there is no removed paper, so the faults about it (letters, size,
		// edges, pieces) do not apply: nothing_removed alone.
		{name: "nothing removed", tear: use("Hop"),
			m: with(meas("OOO", "OOO"), func(m *Measurement) {
				m.Pieces, m.RemovedAreaMM2, m.TemplateFits, m.EdgeToEdge = 0, 0, false, false
			}),
			verdict: FauxPas, faults: []Fault{FaultNothingRemoved}, skills: left(3, 3, true), owed: 1},
		// Every piece fault together plus the letter fault, in the order of the constants;
		// one faux pas owes one tear however many faults it has.
		{name: "all faults but nothing_removed", tear: use("Hop"),
			m: with(meas("COO", "OOO"), func(m *Measurement) {
				m.Pieces, m.TemplateFits, m.EdgeToEdge = 3, false, false
			}),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter, FaultPieceTooSmall, FaultNotEdgeToEdge, FaultSeveralPieces},
			skills: left(2, 3, true), owed: 1},
		{name: "two piece faults", tear: damage("Axe"),
			m: with(meas("OOO", "ROO"), func(m *Measurement) {
				m.Pieces, m.TemplateFits = 2, false
			}),
			verdict: FauxPas, faults: []Fault{FaultPieceTooSmall, FaultSeveralPieces}, removed: 1, skills: left(3, 2, true), owed: 1},

		// Undecided: nothing in the character's state changes (3 and 3 letters, nothing owed).
		{name: "refused", tear: use("Hop"), m: Measurement{Refused: "sheet not found in ann-1.jpg"},
			verdict: Undecided, faults: []Fault{}, reason: "measurement refused: sheet not found in ann-1.jpg", skills: notMeasured(left(3, 3, true), "Hop", "Axe"),
			noteMatch: "letters left not measured since tear 1 (what it tore off was not measured"},
		{name: "named skill not measured", tear: use("Hop"), m: meas("-", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `letters of "Hop" (the skill torn for) were not located`, skills: left(3, 3, true)},
		{name: "other located skill not measured", tear: use("Hop"), m: meas("ROO", "-"),
			verdict: Undecided, faults: []Fault{}, reason: `letters of "Axe" were not measured`, removed: 1, skills: left(2, 3, true)},
		// No letter of Hop certainly removed and one too close to call: removed whole it makes
		// the tear valid, cut it makes it no_full_letter, so the verdict is undecided.
		{name: "ambiguous letter of named skill", tear: use("Hop"), m: meas("AOO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `whether a full letter of "Hop" was removed is too close to call: letter 1 ('H') of "Hop" is within measurement error of the tear`, skills: notMeasured(left(3, 3, true), "Hop")},
		// A letter of Hop certainly removed: the tear is valid whatever the ambiguous second
		// letter is. That letter is counted as left (H gone, o and p left: 2), and Hop's count
		// is flagged as not measured.
		{name: "ambiguous letter beside a removed one", tear: use("Hop"), m: meas("RAO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop"),
			noteMatch: `letter 2 ('o') of "Hop" is within measurement error of the tear`},
		// An ambiguous letter of another skill cannot change the verdict on Hop: valid, Hop
		// 3-2 = 1 left, Axe's A counted left (3) but not measured.
		{name: "ambiguous letter of another skill", tear: use("Hop"), m: meas("RRO", "AOO"),
			verdict: Valid, faults: []Fault{}, removed: 2, skills: notMeasured(left(1, 3, true), "Axe"),
			noteMatch: "letters left not certain"},
		// The same with no letter of Hop removed: a certain faux pas (no_full_letter).
		{name: "ambiguous letter of another skill, faux pas", tear: use("Hop"), m: meas("CCO", "AOO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: notMeasured(left(1, 3, true), "Axe"), owed: 1},
		// On the sheet or cut: not removed whole either way, so with H cut no full letter of
		// Hop was removed: a certain faux pas. o is counted as left (with p: 2), not measured.
		{name: "on-sheet-or-cut letter of named skill", tear: use("Hop"), m: meas("CSO", "OOO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: notMeasured(left(2, 3, true), "Hop"), owed: 1,
			noteMatch: `letter 2 ('o') of "Hop" is whole on the sheet or cut`},
		// Removed or cut, and no letter certainly removed: it could be the full letter, so
		// the verdict is undecided.
		{name: "removed-or-cut letter of named skill", tear: use("Hop"), m: meas("XOO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `whether a full letter of "Hop" was removed is too close to call: letter 1 ('H') of "Hop" may be removed whole (a full letter) or only cut (not one)`, skills: left(2, 3, true)},
		// Beside a certainly removed letter: valid, and the removed-or-cut o is not left
		// either way, so Hop's count (p: 1) is certain.
		{name: "removed-or-cut letter beside a removed one", tear: use("Hop"), m: meas("RXO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: left(1, 3, true),
			noteMatch: `letter 2 ('o') of "Hop" is removed whole or cut`},
		// In another skill: Axe certainly loses its A (2 left, measured).
		{name: "removed-or-cut letter of another skill", tear: use("Hop"), m: meas("RRO", "XOO"),
			verdict: Valid, faults: []Fault{}, removed: 2, skills: left(1, 2, true)},
		// An unmeasured letter of another skill cannot change the verdict on Hop: valid, Hop
		// 3-1 = 2 left, Axe's e counted left (3) but not measured.
		{name: "unknown letter of another skill", tear: use("Hop"), m: meas("ROO", "OOU"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Axe"),
			noteMatch: `letter 3 ('e') of "Axe" could not be measured: counted as left`},
		// An unmeasured letter of Hop with none removed could be the full letter: undecided.
		{name: "unknown letter of named skill", tear: use("Hop"), m: meas("COU", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `whether a full letter of "Hop" was removed is too close to call: letter 3 ('p') of "Hop" could not be measured`, skills: notMeasured(left(2, 3, true), "Hop")},
		// A penalty that names no skill may take its letter from any: every letter too close
		// to call is named, with its skill.
		{name: "unnamed penalty, letters of two skills too close to call", tear: penalty(""), m: meas("AOO", "OXO"),
			verdict: Undecided, faults: []Fault{}, reason: `whether a full letter of any skill was removed is too close to call: letter 1 ('H') of "Hop" is within measurement error of the tear, letter 2 ('x') of "Axe" may be removed whole (a full letter) or only cut (not one)`,
			skills: notMeasured(left(3, 2, true), "Hop")},
		{name: "wrong letter count", tear: use("Hop"), m: meas("ROOO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `"Hop" has 3 letters but 4 were measured`, skills: left(3, 3, true)},
		{name: "free text doubt", tear: use("Hop"),
			m:       with(meas("ROO", "OOO"), func(m *Measurement) { m.Doubts = []string{"template fit within 1 mm"} }),
			verdict: Undecided, faults: []Fault{}, reason: "a measurement is in doubt: template fit within 1 mm", removed: 1, skills: notMeasured(left(3, 3, true), "Hop", "Axe")},
		{name: "structured doubt that matters", tear: use("Hop"),
			m: with(meas("ROO", "OOO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "fit within 1 mm"}}
			}),
			verdict: Undecided, faults: []Fault{}, reason: "whether the template fits inside the removed piece is in doubt: fit within 1 mm", removed: 1, skills: left(2, 3, true)},
		// Not edge to edge for certain: a faux pas whether or not the piece covers the
		// template. piece_too_small is not listed (measured false, but in doubt); a note says
		// it may also apply.
		{name: "template doubt beside a certain fault", tear: use("Hop"),
			m: with(faux("ROO", "OOO"), func(m *Measurement) {
				m.TemplateFits = false
				m.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "fit within 1 mm"}}
			}),
			verdict: FauxPas, faults: []Fault{FaultNotEdgeToEdge}, removed: 1, skills: left(2, 3, true), owed: 1,
			noteMatch: "fit within 1 mm, so piece_too_small may also apply: a faux pas either way"},
		// Two doubts that each flip one fault, and no certain fault: either could make it valid.
		{name: "two single-fault doubts, nothing certain", tear: use("Hop"),
			m: with(meas("ROO", "OOO"), func(m *Measurement) {
				m.EdgeToEdge = false
				m.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "fit within 1 mm"}, {About: AboutEdgeToEdge, Text: "edge within 1 mm"}}
			}),
			verdict: Undecided, faults: []Fault{}, reason: "whether the tear goes from one edge of the sheet to another is in doubt: edge within 1 mm", removed: 1, skills: left(2, 3, true)},
		// A strip along the edge that may be a second piece, beside a certain fault.
		{name: "pieces doubt beside a certain fault", tear: use("Hop"),
			m: with(meas("OOO", "OOO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutPieces, Text: "missing paper along the edge"}}
			}),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: left(3, 3, true), owed: 1,
			noteMatch: "so several_pieces may also apply"},
		// Nothing was removed, so whether a piece covers the template cannot matter.
		{name: "structured doubt that cannot matter", tear: use("Hop"),
			m: with(meas("OOO", "OOO"), func(m *Measurement) {
				m.Pieces, m.RemovedAreaMM2 = 0, 0
				m.Uncertain = []Doubt{{About: AboutTemplateFits, Text: "fit within 1 mm"}}
			}),
			verdict: FauxPas, faults: []Fault{FaultNothingRemoved}, skills: left(3, 3, true), owed: 1,
			noteMatch: "whether the template fits inside the removed piece is in doubt, which cannot change the ruling: fit within 1 mm"},
		{name: "letters removed but nothing removed", tear: use("Hop"),
			m:       with(meas("ROO", "OOO"), func(m *Measurement) { m.Pieces = 0 }),
			verdict: Undecided, faults: []Fault{}, reason: "letters measured removed while no paper was removed", removed: 1, skills: notMeasured(left(3, 3, true), "Hop", "Axe")},
		{name: "unknown skill", tear: use("Juggling"), m: meas("ROO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `tear not allowed: Ann has no skill "Juggling"`, skills: notMeasured(left(3, 3, true), "Hop", "Axe")},
		// Not allowed, and the photo shows nothing torn off: the counts stand as measured.
		{name: "unknown skill, nothing torn", tear: use("Juggling"), m: with(meas("OOO", "OOO"), func(m *Measurement) { m.Pieces, m.RemovedAreaMM2 = 0, 0 }),
			verdict: Undecided, faults: []Fault{}, reason: `tear not allowed: Ann has no skill "Juggling"`, skills: left(3, 3, true)},
		{name: "no skill named", tear: use(""), m: meas("ROO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: "use tear names no skill", skills: notMeasured(left(3, 3, true), "Hop", "Axe")},
		{name: "unknown kind", tear: Tear{Kind: "bite", Skill: "Hop"}, m: meas("ROO", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `unknown tear kind`, skills: notMeasured(left(3, 3, true), "Hop", "Axe")},
		// A GM names skills as spoken: case and spaces do not matter.
		{name: "skill name case", tear: use(" hop"), m: meas("ROO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: left(2, 3, true)},

		// A skill located on a weak read (it may be another word): its count, even 0, is never
		// a measurement; the ruling itself stands.
		{name: "weak read", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.3
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Axe"), m: meas("RRR", "ROO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(0, 2, true), "Hop"),
			noteMatch: "located on the fresh sheet by a weak read, so its letters may lie on another word; the GM confirms where it is written): Hop 0 (30%)"},
		// The skill torn for located by a weak read: the letter removed may be another word's,
		// so the tear is undecided either way (seed 000, "RULES FOR TEARING": at least one full
		// letter of the skill used).
		{name: "weak read of the skill torn for, a letter removed", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.44
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: meas("ROO", "OOO"),
			verdict: Undecided, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop"),
			reason: `"Hop" (the skill torn for) was located by a weak read (44%): its letters may be another word's, so whether a full letter of it was removed cannot be told`},
		{name: "weak read of the skill torn for, no letter removed", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.44
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: meas("OOO", "ROO"),
			verdict: Undecided, faults: []Fault{}, removed: 0, skills: notMeasured(left(3, 2, true), "Hop"),
			reason: `"Hop" (the skill torn for) was located by a weak read (44%)`},
		// testers: "Hound", declared but not on the sheet, placed on the word "hand" by a
		// weak read (44%, most of the doubt about the word itself), ruled valid: undecided.
		{name: "skill torn for placed on another word", char: func() *Character {
			hound := layout("Hound")
			hound.Confidence, hound.Identity, hound.Outline = 0.44, 0.44, 0.9
			return NewCharacterFromLayouts("Ann", []SkillLayout{hound, layout("Axe")})
		}, tear: use("Hound"), m: with(meas("", "OOO"), func(m *Measurement) { m.Letters[0] = SkillLetters{Name: "Hound", States: states("ROOOO")} }),
			verdict: Undecided, faults: []Fault{}, removed: 1, skills: notMeasured([]SkillState{{"Hound", 4, true, true}, {"Axe", 3, true, true}}, "Hound"),
			reason: `"Hound" (the skill torn for) was located by a weak read (44%): its letters may be another word's`},
		// testers: "STREET" written twice on a form, the part holding one torn off, ruled
		// faux_pas with the count measured: ocr/ puts the word in doubt and names both places.
		{name: "skill torn for written twice", char: func() *Character {
			st := layout("Hop")
			st.Confidence, st.Identity, st.Outline = 0.45, 0.45, 0.98
			st.Doubt = "it reads in two places, at (122, 95) mm (83% like the name, located) and at (85, 140) mm (83%): written twice, or a word like it"
			return NewCharacterFromLayouts("Ann", []SkillLayout{st, layout("Axe")})
		}, tear: use("Hop"), m: meas("OOO", "ROO"),
			verdict: Undecided, faults: []Fault{}, removed: 0, skills: notMeasured(left(3, 2, true), "Hop"),
			reason: `the letters of "Hop" (the skill torn for) may be another word's: it reads in two places, at (122, 95) mm (83% like the name, located) and at (85, 140) mm (83%): written twice, or a word like it; so whether a full letter of it was removed cannot be told; the GM confirms which one it is`},
		// The word surely the skill's, its letter cuts in doubt (a weak location for its
		// outline alone): the verdict stands on the letter states, the count is not a
		// measurement.
		{name: "skill torn for on its word, letters in doubt", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence, weak.Identity, weak.Outline = 0.3, 0.97, 0.31
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: meas("ROO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop")},
		{name: "skill torn for on its word, letters in doubt, none removed", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence, weak.Identity, weak.Outline = 0.3, 0.97, 0.31
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: meas("OOO", "ROO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, removed: 0, skills: notMeasured(left(3, 2, true), "Hop"), owed: 1},
		// Between VerdictReadConfidence and WeakReadConfidence the verdict stands; the count
		// is not a measurement. (A layout without an identity confidence: its location
		// confidence, a lower bound of it, stands for it.)
		{name: "weak read of the skill torn for at 0.55", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.55
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: meas("ROO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop")},
		// Another fault is certain: a faux pas either way, the weak read only a note.
		{name: "weak read of the skill torn for, another fault certain", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.44
			return NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
		}, tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) { m.TemplateFits = false }),
			verdict: FauxPas, faults: []Fault{FaultPieceTooSmall}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop"), owed: 1,
			noteMatch: "located by a weak read (44%): its letters may be another word's, so whether a full letter of it was removed cannot be told; the GM confirms where it is written, so no_full_letter may also apply: a faux pas either way"},
		// A weak read's count of 0 is no certain loss: the tear is not allowed, undecided,
		// and the reason says the loss itself is in doubt.
		{name: "weak read at 0: lost in doubt", char: func() *Character {
			weak := layout("Hop")
			weak.Confidence = 0.3
			c := NewCharacterFromLayouts("Ann", []SkillLayout{weak, layout("Axe")})
			c.Rule(0, use("Axe"), meas("RRR", "ROO"))
			return c
		}, tear: use("Hop"), m: meas("GGG", "OOO"),
			verdict: Undecided, faults: []Fault{}, skills: notMeasured(left(0, 2, true), "Hop", "Axe"),
			reason: `tear not allowed: Ann may have lost "Hop": no letter is left where a weak read (30%) located it`},

		// Skills that were not located on the fresh sheet.
		{name: "other skill never located: carried", char: func() *Character {
			return NewCharacter("Ann", []string{"Hop", "Axe"}, []SkillLayout{layout("Hop")})
		}, tear: use("Hop"), m: meas("ROO", "-"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Axe"),
			noteMatch: "letters left not measured (not located on the fresh sheet, so counted as left): Axe 3"},
		// Hop's "p" was never located: with no Hop letter removed it might have been.
		{name: "unlocated letter could be the removed one", char: func() *Character {
			return NewCharacterFromLayouts("Ann", []SkillLayout{layout("Hop", 2), layout("Axe")})
		}, tear: use("Hop"), m: meas("OOU", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `no full letter of "Hop" measured removed, but some of its letters were never located`,
			skills: notMeasured(left(3, 3, true), "Hop"), noteMatch: "letters left not measured (not located on the fresh sheet, so counted as left): Hop 3"},
		// The skill torn for was never located: no_full_letter cannot be told...
		{name: "named skill never located", char: func() *Character {
			return NewCharacter("Ann", []string{"Hop", "Axe"}, []SkillLayout{layout("Axe")})
		}, tear: use("Hop"), m: meas("-", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `the letters of "Hop" (the skill torn for) were not located: whether a full letter of it was removed cannot be told`,
			skills: notMeasured(left(3, 3, true), "Hop")},
		// ...but beside a certain fault the tear is a faux pas either way.
		{name: "named skill never located, a certain fault", char: func() *Character {
			return NewCharacter("Ann", []string{"Hop", "Axe"}, []SkillLayout{layout("Axe")})
		}, tear: use("Hop"), m: faux("-", "OOO"),
			verdict: FauxPas, faults: []Fault{FaultNotEdgeToEdge}, owed: 1,
			skills: notMeasured(left(3, 3, true), "Hop"), noteMatch: "so no_full_letter may also apply"},
		// A penalty naming no skill may take its letter from a skill never located.
		{name: "unnamed penalty, a skill never located", char: func() *Character {
			c := NewCharacter("Ann", []string{"Hop", "Axe"}, []SkillLayout{layout("Axe")})
			c.owed = 1
			return c
		}, tear: penalty(""), m: meas("-", "OOO"),
			verdict: Undecided, faults: []Fault{}, reason: `the letters of "Hop" were not located`, owed: 1,
			skills: notMeasured(left(3, 3, true), "Hop")},
		// With H removed the verdict is settled; the unlocated "p" is carried as left: 2.
		{name: "unlocated letter carried", char: func() *Character {
			return NewCharacterFromLayouts("Ann", []SkillLayout{layout("Hop", 2), layout("Axe")})
		}, tear: use("Hop"), m: meas("ROU", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: notMeasured(left(2, 3, true), "Hop"),
			noteMatch: "letters left not measured (not located on the fresh sheet, so counted as left): Hop 2"},

		// Penalty tears: with nothing owed, nothing is paid (owed stays 0).
		{name: "penalty with nothing owed", tear: penalty("Hop"), m: meas("ROO", "OOO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: left(2, 3, true), noteMatch: "penalty tear with no tear owed"},
		// A penalty naming no skill needs a full letter of any skill: an Axe letter will do.
		{name: "penalty without skill", tear: penalty(""), m: meas("OOO", "ROO"),
			verdict: Valid, faults: []Fault{}, removed: 1, skills: left(3, 2, true)},
		{name: "penalty without skill, nothing whole", tear: penalty(""), m: meas("COO", "OCO"),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter}, skills: left(2, 2, true), owed: 1},

		// Seed "LAST DITCH EFFORT": out whether the ball hits or misses; letters unchanged.
		{name: "last ditch hit", tear: Tear{Kind: KindLastDitch, Hit: true},
			verdict: Valid, faults: []Fault{}, skills: left(3, 3, false), out: OutLastDitch, noteMatch: "hit the GM"},
		// "even a skill that is not on their character sheet"
		{name: "last ditch with a skill not on the sheet", tear: Tear{Kind: KindLastDitch, Skill: "Flying", Hit: true},
			verdict: Valid, faults: []Fault{}, skills: left(3, 3, false), out: OutLastDitch},
		{name: "last ditch miss", tear: Tear{Kind: KindLastDitch},
			verdict: Valid, faults: []Fault{}, skills: left(3, 3, false), out: OutLastDitch, noteMatch: "missed the GM"},
		// All letters of both skills gone in one tear: "no skills remaining".
		{name: "no skills left", tear: use("Hop"), m: meas("RRR", "CCR"),
			verdict: Valid, faults: []Fault{}, removed: 3, skills: left(0, 0, false), out: OutNoSkillsLeft},
		// A faux pas can also take the last letters: out all the same, the owed tear moot.
		{name: "no skills left by a faux pas", tear: use("Hop"),
			m:       with(meas("CCC", "CCC"), func(m *Measurement) { m.Pieces = 2 }),
			verdict: FauxPas, faults: []Fault{FaultNoFullLetter, FaultSeveralPieces}, skills: left(0, 0, false), owed: 1, out: OutNoSkillsLeft},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newHopAxe()
			if tc.char != nil {
				c = tc.char()
			}
			r := c.Rule(1, tc.tear, tc.m)
			assert.Equal(t, tc.verdict, r.Verdict)
			assert.Equal(t, tc.faults, r.Faults)
			if tc.reason == "" {
				assert.Empty(t, r.UndecidedReason)
			} else {
				assert.Contains(t, r.UndecidedReason, tc.reason)
			}
			assert.Equal(t, tc.removed, r.FullLettersRemoved, "full_letters_removed")
			assert.Equal(t, tc.skills, r.Skills)
			assert.Equal(t, tc.owed, r.OwedTears, "owed")
			assert.Equal(t, tc.out, r.OutReason)
			assert.Equal(t, tc.out != OutNone, r.Out)
			assert.Equal(t, 1, r.Index)
			if tc.noteMatch != "" {
				assert.True(t, containsAny(r.Notes, tc.noteMatch), "notes %q lack %q", r.Notes, tc.noteMatch)
			}
			if tc.tear.Kind == KindLastDitch {
				require.NotNil(t, r.Hit)
				assert.Equal(t, tc.tear.Hit, *r.Hit)
			} else {
				assert.Nil(t, r.Hit)
			}
		})
	}
}

func containsAny(notes []string, sub string) bool {
	for _, n := range notes {
		if len(sub) <= len(n) && indexOf(n, sub) >= 0 {
			return true
		}
	}
	return false
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// step is one tear of a sequence and the state expected after it.
type step struct {
	tear    Tear
	m       Measurement
	verdict Verdict
	hop     int // Hop letters left
	axe     int
	owed    int
	paper   bool
	out     OutReason
	reason  string // substring of undecided_reason
	note    string // substring of a note
	// unmeasured are the skills whose count left is flagged not measured.
	unmeasured []string
	faults     []Fault // when set, the faults listed
}

func TestRuleSequences(t *testing.T) {
	faux := func(hop, axe string) Measurement {
		return with(meas(hop, axe), func(m *Measurement) { m.EdgeToEdge = false })
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "faux pas then valid penalty pays", steps: []step{
			// H cut, not removed: faux pas, one tear owed; Hop 2 left.
			{tear: use("Hop"), m: meas("COO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true},
			// the penalty removes o: valid, pays the owed tear.
			{tear: penalty("Hop"), m: meas("GRO", "OOO"), verdict: Valid, hop: 1, axe: 3, owed: 0, paper: true},
		}},
		{name: "faux pas penalty leaves the count, a valid one pays", steps: []step{
			{tear: damage("Axe"), m: faux("OOO", "ROO"), verdict: FauxPas, hop: 3, axe: 2, owed: 1, paper: true},
			// pays the owed tear (1-1) but is itself a faux pas (+1): still 1.
			{tear: penalty("Axe"), m: faux("OOO", "GRO"), verdict: FauxPas, hop: 3, axe: 1, owed: 1, paper: true},
			{tear: penalty("Hop"), m: meas("ROO", "GGO"), verdict: Valid, hop: 2, axe: 1, owed: 0, paper: true},
		}},
		{name: "two faux pas owe two", steps: []step{
			{tear: use("Hop"), m: faux("ROO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true},
			{tear: use("Axe"), m: faux("GOO", "ROO"), verdict: FauxPas, hop: 2, axe: 2, owed: 2, paper: true},
			{tear: penalty(""), m: meas("GRO", "GOO"), verdict: Valid, hop: 1, axe: 2, owed: 1, paper: true},
		}},
		{name: "undecided changes nothing, next tear catches up", steps: []step{
			// ambiguous: undecided, Hop still counted 3, nothing owed.
			{tear: use("Hop"), m: meas("AOO", "OOO"), verdict: Undecided, hop: 3, axe: 3, paper: true, reason: "too close to call", unmeasured: []string{"Hop"}},
			// the next measurement, against the photo after the undecided tear, reports H gone.
			{tear: use("Axe"), m: meas("GOO", "ROO"), verdict: Valid, hop: 2, axe: 2, paper: true,
				note: `letter 1 ('H') of "Hop" was not on the sheet before this tear`},
		}},
		{name: "a certain faux pas with a full letter too close to call", steps: []step{
			// Not edge to edge for certain, H too close to call: a faux pas either way, one
			// more tear owed; no_full_letter is not listed (it may or may not apply) and the
			// note says so. H is counted as left (3), not measured.
			{tear: use("Hop"), m: faux("AOO", "OOO"), verdict: FauxPas, hop: 3, axe: 3, owed: 1, paper: true, unmeasured: []string{"Hop"},
				faults: []Fault{FaultNotEdgeToEdge}, note: "so no_full_letter may also apply: a faux pas either way"},
		}},
		{name: "a letter counted left under doubt turns out gone", steps: []step{
			// H cut, o on the sheet or cut: no full letter, a certain faux pas; o counted left.
			{tear: use("Hop"), m: meas("CSO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true, unmeasured: []string{"Hop"}},
			// the next measurement finds o was cut after all: gone, and the note says why.
			{tear: penalty("Axe"), m: meas("GGO", "ROO"), verdict: Valid, hop: 1, axe: 2, paper: true,
				note: `letter 2 ('o') of "Hop" was not on the sheet before this tear (counted as left after an earlier tear that passed too close to call it)`},
		}},
		{name: "undecided keeps paper and owed", steps: []step{
			{tear: use("Hop"), m: faux("ROO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true},
			// refused: owed stays 1 (the penalty is not paid), paper stays true.
			{tear: penalty("Hop"), m: Measurement{Refused: "blurred"}, verdict: Undecided, hop: 2, axe: 3, owed: 1, paper: true, reason: "blurred",
				unmeasured: []string{"Hop", "Axe"}, note: "letters left not measured since tear 2"},
			// a doubted measurement saying the paper no longer fits is not believed either.
			{tear: penalty("Hop"), m: with(meas("GRO", "OOO"), func(m *Measurement) {
				m.PaperFitsTemplate = false
				m.Doubts = []string{"registration residual 2 mm"}
			}), verdict: Undecided, hop: 2, axe: 3, owed: 1, paper: true, unmeasured: []string{"Hop", "Axe"}, note: "letters left not measured since tear 2"},
			// measured again (against the last measured sheet, which shows what tears 2 and 3
			// took: o gone before this tear): the counts are measured again.
			{tear: penalty("Hop"), m: meas("GGR", "OOO"), verdict: Valid, hop: 0, axe: 3, owed: 0, paper: true},
		}},
		// A penalty with nothing owed after an undecided tear may be paying for it.
		{name: "penalty after an undecided tear", steps: []step{
			{tear: use("Hop"), m: meas("AOO", "OOO"), verdict: Undecided, hop: 3, axe: 3, paper: true, reason: "too close to call", unmeasured: []string{"Hop"}},
			{tear: penalty("Axe"), m: meas("OOO", "ROO"), verdict: Valid, hop: 3, axe: 2, paper: true,
				note: "penalty tear with no tear owed: nothing to pay (as ruled: tear 1 is undecided, and if the GM rules it a faux pas, this tear pays for it)"},
			// Another penalty with nothing owed: tear 1 was answered by tear 2 already.
			{tear: penalty("Axe"), m: meas("OOO", "GRO"), verdict: Valid, hop: 3, axe: 1, paper: true, note: "penalty tear with no tear owed: nothing to pay"},
		}},
		{name: "gone for good", steps: []step{
			{tear: use("Hop"), m: meas("ROO", "OOO"), verdict: Valid, hop: 2, axe: 3, paper: true},
			// H measured on the sheet again (a misregistration): it stays gone.
			{tear: use("Axe"), m: meas("OOO", "ROO"), verdict: Valid, hop: 2, axe: 2, paper: true,
				note: `letter 1 ('H') of "Hop" was already gone but is measured on the sheet`},
		}},
		{name: "lost skill", steps: []step{
			{tear: use("Hop"), m: meas("RRR", "OOO"), verdict: Valid, hop: 0, axe: 3, paper: true},
			// a lost skill cannot be used; for damage the GM must name another. Not out.
			// The photo shows A torn off, which the ruling does not count: Axe's 3 is not measured.
			{tear: use("Hop"), m: meas("GGG", "ROO"), verdict: Undecided, hop: 0, axe: 3, paper: true, reason: "it cannot be used", unmeasured: []string{"Axe"}},
			{tear: damage("Hop"), m: meas("GGG", "ROO"), verdict: Undecided, hop: 0, axe: 3, paper: true, reason: "the GM must name a skill with letters left", unmeasured: []string{"Axe"}},
			{tear: penalty("Hop"), m: meas("GGG", "ROO"), verdict: Undecided, hop: 0, axe: 3, paper: true, reason: "skill lost", unmeasured: []string{"Axe"}},
			// a doubt about the lost skill's letters cannot change anything.
			{tear: damage("Axe"), m: with(meas("GGG", "ROO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutLetters, Skill: "Hop", Text: "OCR disagrees"}}
			}), verdict: Valid, hop: 0, axe: 2, paper: true, note: `the letters of "Hop" are in doubt, which cannot change the ruling: OCR disagrees`},
			{tear: damage("Axe"), m: with(meas("GGG", "GOO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutLetters, Skill: "Axe", Text: "OCR disagrees"}}
			}), verdict: Undecided, hop: 0, axe: 2, paper: true, reason: `the letters of "Axe" are in doubt: OCR disagrees`},
			// x and e go: no skill left, out.
			{tear: damage("Axe"), m: meas("GGG", "GRR"), verdict: Valid, hop: 0, axe: 0, paper: true, out: OutNoSkillsLeft},
			// after out: undecided, says so.
			{tear: use("Axe"), m: meas("GGG", "GGG"), verdict: Undecided, hop: 0, axe: 0, paper: true, out: OutNoSkillsLeft,
				reason: "Ann is already out (no_skills_left, tear 7)"},
		}},
		{name: "too little paper", steps: []step{
			// the tear is fine but leaves too little paper: not out yet (no tear asked).
			{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: Valid, hop: 2, axe: 3, paper: false},
			// asked to tear with too little paper: out; the tear is still ruled for the record.
			{tear: use("Axe"), m: with(meas("GOO", "COO"), func(m *Measurement) { m.PaperFitsTemplate = false; m.TemplateFits = false }),
				verdict: FauxPas, hop: 2, axe: 2, owed: 1, paper: false, out: OutTooLittlePaper, note: "cannot cover the template"},
			{tear: penalty("Axe"), m: meas("GOO", "GOO"), verdict: Undecided, hop: 2, axe: 2, owed: 1, paper: false, out: OutTooLittlePaper,
				reason: "already out (too_little_paper, tear 2)"},
		}},
		// A faux pas asks for another tear at once (seed 000, "Tearing faux pas"): with too
		// little paper left to cover the template, the character is out at the faux pas.
		{name: "faux pas leaving too little paper", steps: []step{
			{tear: use("Hop"), m: with(faux("ROO", "OOO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: false, out: OutTooLittlePaper, note: "1 tear owed is asked now, and the remaining paper cannot cover the template"},
			{tear: penalty("Axe"), m: meas("GOO", "ROO"), verdict: Undecided, hop: 2, axe: 3, owed: 1, paper: false, out: OutTooLittlePaper,
				reason: "already out (too_little_paper, tear 1)"},
		}},
		// An owed tear paid by a valid penalty: nothing is asked any more, not out.
		{name: "owed tear paid, too little paper left", steps: []step{
			{tear: use("Hop"), m: faux("ROO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true},
			{tear: penalty("Axe"), m: with(meas("GOO", "ROO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: Valid, hop: 2, axe: 2, paper: false},
		}},
		// With the fit in doubt, a note says the GM decides; the faux pas itself is certain.
		{name: "faux pas, the paper's fit in doubt", steps: []step{
			{tear: use("Hop"), m: with(faux("ROO", "OOO"), func(m *Measurement) {
				m.PaperFitsTemplate = false
				m.Uncertain = []Doubt{{About: AboutPaperFits, Text: "fit within 1 mm"}}
			}), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true, note: "the GM decides whether Ann is out (too_little_paper)"},
		}},
		{name: "too little paper even when the tear is undecided", steps: []step{
			{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: Valid, hop: 2, axe: 3, paper: false},
			{tear: use("Axe"), m: Measurement{Refused: "no sheet"}, verdict: Undecided, hop: 2, axe: 3, paper: false, out: OutTooLittlePaper, unmeasured: []string{"Hop", "Axe"}},
		}},
		{name: "paper doubt defers to the next tear", steps: []step{
			// the fit of the template on what is left is in doubt: this tear is ruled.
			{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) {
				m.PaperFitsTemplate = false
				m.Uncertain = []Doubt{{About: AboutPaperFits, Text: "fit within 1 mm"}}
			}), verdict: Valid, hop: 2, axe: 3, paper: true, note: "fit on the remaining paper is in doubt"},
			// the next tear cannot settle it (the template does not fit after it): undecided,
			// not out; its letters are applied (A torn off is gone whatever the verdict).
			{tear: use("Axe"), m: with(meas("GOO", "ROO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: Undecided, hop: 2, axe: 2, paper: true,
				reason: "whether the template still fitted on the paper left after tear 1 is in doubt: the GM decides whether Ann is out (too_little_paper)"},
			// still in doubt when the new measurement doubts the fit too.
			{tear: use("Axe"), m: with(meas("GOO", "GRO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutPaperFits, Text: "fit within 1 mm"}}
			}), verdict: Undecided, hop: 2, axe: 1, paper: true, reason: "after tear 1 is in doubt"},
			// the template fits after this tear, so it fitted before: settled, ruled.
			{tear: use("Axe"), m: meas("GOO", "GGR"), verdict: Valid, hop: 2, axe: 0, paper: true, note: "the doubt about the paper is settled"},
		}},
		{name: "paper doubt settled at once", steps: []step{
			{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutPaperFits, Text: "fit within 1 mm"}}
			}), verdict: Valid, hop: 2, axe: 3, paper: true},
			{tear: damage("Axe"), m: faux("GOO", "ROO"), verdict: FauxPas, hop: 2, axe: 2, owed: 1, paper: true},
		}},
		{name: "paper doubt after the paper is already too small", steps: []step{
			{tear: use("Hop"), m: with(meas("ROO", "OOO"), func(m *Measurement) { m.PaperFitsTemplate = false }),
				verdict: Valid, hop: 2, axe: 3, paper: false},
			{tear: use("Axe"), m: with(meas("GOO", "ROO"), func(m *Measurement) {
				m.Uncertain = []Doubt{{About: AboutPaperFits, Text: "fit within 1 mm"}}
			}), verdict: Valid, hop: 2, axe: 2, paper: false, out: OutTooLittlePaper},
		}},
		{name: "last ditch after a faux pas", steps: []step{
			{tear: use("Hop"), m: faux("ROO", "OOO"), verdict: FauxPas, hop: 2, axe: 3, owed: 1, paper: true},
			{tear: Tear{Kind: KindLastDitch, Hit: true}, verdict: Valid, hop: 2, axe: 3, owed: 1, paper: true, out: OutLastDitch},
			{tear: penalty("Hop"), m: meas("GRO", "OOO"), verdict: Undecided, hop: 2, axe: 3, owed: 1, paper: true, out: OutLastDitch,
				reason: "already out (last_ditch, tear 2)"},
			{tear: Tear{Kind: KindLastDitch}, verdict: Undecided, hop: 2, axe: 3, owed: 1, paper: true, out: OutLastDitch},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newHopAxe()
			for i, s := range tc.steps {
				r := c.Rule(i+1, s.tear, s.m)
				assert.Equal(t, s.verdict, r.Verdict, "tear %d verdict (%s)", i+1, r.UndecidedReason)
				avail := s.out == OutNone
				assert.Equal(t, notMeasured(left(s.hop, s.axe, avail), s.unmeasured...), r.Skills, "tear %d skills", i+1)
				assert.Equal(t, s.owed, r.OwedTears, "tear %d owed", i+1)
				assert.Equal(t, s.paper, r.PaperFitsTemplate, "tear %d paper", i+1)
				assert.Equal(t, s.out, r.OutReason, "tear %d out", i+1)
				assert.Equal(t, s.out != OutNone, r.Out, "tear %d out", i+1)
				if s.reason != "" {
					assert.Contains(t, r.UndecidedReason, s.reason, "tear %d", i+1)
				}
				if s.verdict != Undecided {
					assert.Empty(t, r.UndecidedReason, "tear %d", i+1)
				}
				if s.note != "" {
					assert.True(t, containsAny(r.Notes, s.note), "tear %d notes %q lack %q", i+1, r.Notes, s.note)
				}
				if s.faults != nil {
					assert.Equal(t, s.faults, r.Faults, "tear %d faults", i+1)
				}
				// The character agrees with its last ruling.
				st := c.Standing()
				assert.Equal(t, r.Skills, st.Skills)
				assert.Equal(t, r.OwedTears, st.Owed)
				assert.Equal(t, r.Out, st.Out)
			}
		})
	}
}

func TestTeaCeremony(t *testing.T) {
	// DESIGN.md: "Tea Ceremony" has 11 letters; removing "Tea" (3 full letters) and cutting
	// the "C" leaves 11-3-1 = 7.
	c := NewCharacterFromLayouts("Bo", []SkillLayout{layout("Tea Ceremony")})
	r := c.Rule(1, use("Tea Ceremony"), Measurement{RemovedAreaMM2: 900, Pieces: 1, EdgeToEdge: true,
		TemplateFits: true, PaperFitsTemplate: true,
		Letters: []SkillLetters{{Name: "Tea Ceremony", States: states("RRRCOOOOOOO")}}})
	assert.Equal(t, Valid, r.Verdict)
	assert.Equal(t, 3, r.FullLettersRemoved)
	assert.Equal(t, []SkillState{{"Tea Ceremony", 7, true, true}}, r.Skills)
}

func TestValidateAndCanUse(t *testing.T) {
	c := newHopAxe()
	c.Rule(1, use("Hop"), meas("RRR", "OOO")) // Hop lost
	tests := []struct {
		tear Tear
		want error
	}{
		{use("Axe"), nil},
		{damage("Axe"), nil},
		{penalty(""), nil},
		{Tear{Kind: KindLastDitch}, nil},
		{use("Hop"), ErrSkillLost},
		{damage("Hop"), ErrSkillLost},
		{use("Juggling"), ErrUnknownSkill},
		{use(""), ErrNoSkill},
		{Tear{Kind: "bite"}, ErrUnknownKind},
	}
	for _, tc := range tests {
		t.Run(string(tc.tear.Kind)+"/"+tc.tear.Skill, func(t *testing.T) {
			err := c.Validate(tc.tear)
			if tc.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tc.want)
			}
		})
	}
	assert.NoError(t, c.CanUse("Axe"))
	assert.ErrorIs(t, c.CanUse("Hop"), ErrSkillLost)
	assert.ErrorIs(t, c.CanUse("Juggling"), ErrUnknownSkill)
	st := c.Standing()
	assert.NoError(t, st.CanUse("axe"))
	assert.ErrorIs(t, st.CanUse("Hop"), ErrSkillLost)
	assert.ErrorIs(t, st.CanUse("Juggling"), ErrUnknownSkill)
	c.Rule(2, Tear{Kind: KindLastDitch}, Measurement{})
	assert.ErrorIs(t, c.CanUse("Axe"), ErrOut)
	assert.ErrorIs(t, c.Standing().CanUse("Axe"), ErrOut)
}

func TestStandingOf(t *testing.T) {
	// Before any tear: Hop was located on the fresh sheet, Axe was not (its 3 are not measured).
	fresh := PlayerRulings{Name: "Ann", Sheet: SheetResult{Skills: []SkillResult{{Name: "Hop", Letters: 3, Located: 3, Confidence: 0.9}, {Name: "Axe", Letters: 3}}}}
	assert.Equal(t, Standing{Name: "Ann", Skills: notMeasured(left(3, 3, true), "Axe")}, StandingOf(fresh))
	// A location on a weak read is not a measurement either.
	fresh.Sheet.Skills[0].Confidence = WeakReadConfidence - 0.01
	assert.Equal(t, Standing{Name: "Ann", Skills: notMeasured(left(3, 3, true), "Hop", "Axe")}, StandingOf(fresh))

	p := RulePlayer(PlayerInput{Name: "Ann", Layouts: []SkillLayout{layout("Hop"), layout("Axe")}, Tears: []TearInput{
		{Tear: use("Hop"), Measurement: faux("RRR", "OOO")},
	}})
	assert.Equal(t, Standing{Name: "Ann", Skills: left(0, 3, true), Owed: 1}, StandingOf(p))
	assert.ErrorIs(t, StandingOf(p).CanUse("Hop"), ErrSkillLost)

	p.Out = true
	p.Tears[0].OutReason = OutLastDitch
	assert.ErrorIs(t, StandingOf(p).CanUse("Axe"), ErrOut)
}

func faux(hop, axe string) Measurement {
	return with(meas(hop, axe), func(m *Measurement) { m.EdgeToEdge = false })
}

func TestRulingsDeterministicJSON(t *testing.T) {
	in := PlayerInput{Name: "Ann", Skills: []string{"Hop", "Axe"},
		Sheet:   SheetResult{Photo: "ann-0.jpg", Found: true, Skills: []SkillResult{{Name: "Hop", Letters: 3, Located: 3, Confidence: 0.9}}},
		Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
		Tears: []TearInput{
			{Photo: "ann-1.jpg", SHA256: "aa", Tear: use("Hop"), Measurement: meas("ROO", "OOO")},
			{Photo: "ann-2.jpg", SHA256: "bb", Tear: damage("Axe"), Measurement: faux("GOO", "ROO")},
			{Photo: "ann-3.jpg", SHA256: "cc", Tear: penalty("Axe"), Measurement: meas("GOO", "GRO")},
			{Tear: Tear{Kind: KindLastDitch, Hit: false}},
		}}
	doc := func() []byte {
		b, err := json.Marshal(NewRulings("a4", template.Default(), []PlayerRulings{RulePlayer(in), {Name: "Bo"}}))
		require.NoError(t, err)
		return b
	}
	a, b := doc(), doc()
	assert.Equal(t, string(a), string(b))
	var back Rulings
	require.NoError(t, json.Unmarshal(a, &back))
	require.Len(t, back.Players, 2)
	ann := back.Players[0]
	assert.True(t, ann.Out)
	require.Len(t, ann.Tears, 4)
	assert.Equal(t, []Verdict{Valid, FauxPas, Valid, Valid},
		[]Verdict{ann.Tears[0].Verdict, ann.Tears[1].Verdict, ann.Tears[2].Verdict, ann.Tears[3].Verdict})
	assert.Equal(t, []int{0, 1, 0, 0}, []int{ann.Tears[0].OwedTears, ann.Tears[1].OwedTears, ann.Tears[2].OwedTears, ann.Tears[3].OwedTears})
	assert.Equal(t, "ann-2.jpg", ann.Tears[1].Photo)
	assert.Equal(t, OutLastDitch, ann.Tears[3].OutReason)
	// Lists are [] in JSON, never null.
	assert.Contains(t, string(a), `"faults":[]`)
	assert.Contains(t, string(a), `"name":"Bo","sheet":{"photo":"","sha256":"","found":false,"skills":[]},"tears":[]`)
	assert.NotContains(t, string(a), "null")
	assert.True(t, errors.Is(StandingOf(ann).CanUse("Axe"), ErrOut))
}

func TestSucceeds(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		r    TearRuling
		want bool
	}{
		{TearRuling{Kind: KindUse, Verdict: Valid}, true},
		{TearRuling{Kind: KindUse, Verdict: FauxPas}, false},
		{TearRuling{Kind: KindUse, Verdict: Undecided}, false},
		{TearRuling{Kind: KindDamage, Verdict: Valid}, false},
		{TearRuling{Kind: KindPenalty, Verdict: Valid}, false},
		{TearRuling{Kind: KindLastDitch, Verdict: Valid, Hit: &yes}, true},
		{TearRuling{Kind: KindLastDitch, Verdict: Valid, Hit: &no}, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.r.Succeeds(), "%s %s", tc.r.Kind, tc.r.Verdict)
	}
}

func TestLettersLeftLabel(t *testing.T) {
	assert.Equal(t, "letters left", LettersLeftLabel(TearRuling{Verdict: Valid}))
	assert.Equal(t, "letters left", LettersLeftLabel(TearRuling{Verdict: FauxPas}))
	// An undecided tear's letters are as measured, unless nothing after it was.
	assert.Equal(t, "letters left", LettersLeftLabel(TearRuling{Verdict: Undecided}))
	assert.Equal(t, "letters left (as before this tear)", LettersLeftLabel(TearRuling{Verdict: Undecided, LettersAsBefore: true}))
}
