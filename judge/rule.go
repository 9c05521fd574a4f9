package judge

import (
	"fmt"
	"slices"
	"strings"
)

// Rule rules one tear of the character and updates the character's state. index is the
// tear's 1-based position in the player's tears (0: the next one). m is what vision/
// measured of the tear (ignored for last_ditch).
//
// The order of decisions:
//  1. A character already out gets an undecided ruling saying so; nothing changes.
//  2. last_ditch: verdict valid, hit recorded, the character is out (last_ditch), hit or miss.
//  3. A tear the character cannot be asked for (Validate: unknown kind or skill, no skill
//     named, a lost skill) is undecided with the reason; nothing changes, and the character
//     is not put out for it.
//  4. A tear asked of a sheet whose remaining paper could not cover the template (as of the
//     last decided tear) puts the character out (too_little_paper). The tear itself is still
//     ruled on its measurement below, for the record.
//  5. The measurement is ruled: undecided (see below) or every fault that applies, in the
//     order of the Fault constants; faux_pas iff there is at least one.
//  6. A decided ruling updates the letters (a letter measured removed, cut or gone is gone for
//     good), paper_fits_template (paper only shrinks: once false it stays false) and the
//     owed tears; no skill left puts the character out (no_skills_left).
//  7. A tear still owed after a decided ruling is a tear asked now (seed 000, "Tearing faux
//     pas": the player must make another tear): when the remaining paper cannot cover the
//     template, the character is out at this tear (too_little_paper). With that fit in doubt,
//     a note says the GM decides.
//
// Undecided: the measurement was refused; the named skill's letters were not measured; a
// letter that was whole on the sheet before the tear and was located on the fresh sheet is
// measured unknown or ambiguous (it could change the letters left, hence the verdict or the
// skill's loss); no full letter of the named skill is measured removed while one of its
// letters that was never located is unknown (it could have been removed: no_full_letter is
// in doubt); the measurement contradicts itself (letters removed while nothing was); or a
// doubt could change the ruling: every free-text Doubts entry (the judge cannot tell what it
// concerns), and each structured Uncertain doubt unless it cannot matter (piece doubts when
// nothing was removed; letter doubts about a skill with no letter left). A doubt that can
// flip only one fault (see doubtFault; a full letter too close to call flips
// no_full_letter) does not make it undecided when another fault is certain: the tear is a
// faux pas either way, ruled with the certain faults, and a note names the doubted one.
//
// A structured doubt about PaperFitsTemplate bears on the next tear, not this one (whether
// the character is out when asked for it): this tear is ruled, paper_fits_template stays
// true, and the next tear is undecided (the GM decides whether the character is out) unless
// its own measurement shows, without doubt, that the template still fits after it; paper
// only shrinks, so it fitted before it too and the doubt is settled.
//
// An undecided ruling leaves owed tears and paper unchanged, and applies the letters as
// measured (a letter torn off is gone whatever the verdict), except when nothing after the
// tear was measured reliably (refused, a free-text doubt, letters removed while no paper
// was): then the letters carry over too (LettersAsBefore), and the letters lost in that tear
// are caught up by the next measurement, which reports them Gone. An undecided tear never
// puts the character out.
//
// Owed tears: a faux pas owes one more tear. A penalty tear pays one owed tear whether or not
// it is itself a faux pas, because the seed ("TEARING FAUX PAS") counts the faux pas tear as
// made and asks for another "in addition"; so a faux pas penalty tear leaves the count
// unchanged. A penalty tear with nothing owed pays nothing (noted). A penalty tear that
// names a skill must remove a full letter of it; one that names none must remove a full
// letter of any skill (seed: "at least one full letter from a skill").
func (c *Character) Rule(index int, t Tear, m Measurement) TearRuling {
	return c.rule(index, t, m, nil)
}

// rule is Rule, with the state following the GM's ruling gm when it is not nil (RuleGM).
func (c *Character) rule(index int, t Tear, m Measurement, gm *GMRuling) TearRuling {
	c.ruled++
	if index <= 0 {
		index = c.ruled
	}
	c.at = index
	r := TearRuling{Index: index, Kind: t.Kind, Skill: t.Skill, Faults: []Fault{}}
	if c.out != OutNone {
		r.Verdict = Undecided
		r.UndecidedReason = fmt.Sprintf("%s is already out (%s, tear %d): no further tears are ruled", c.name, c.out, c.outAt)
		r.LettersAsBefore = true
		if gm != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("the GM ruled %s, which changes nothing: %s is already out", gm.Label(c.skillNames()), c.name))
		}
		c.finish(&r)
		return r
	}
	if t.Kind == KindLastDitch {
		hit := t.Hit
		r.Hit = &hit
		r.Verdict = Valid
		c.out, c.outAt = OutLastDitch, index
		if hit {
			r.Notes = append(r.Notes, "last ditch effort: the ball hit the GM, the skill succeeds; the character is out")
		} else {
			r.Notes = append(r.Notes, "last ditch effort: the ball missed the GM, the skill fails; the character is out")
		}
		c.finish(&r)
		return r
	}
	if err := c.Validate(t); err != nil {
		r.Verdict = Undecided
		r.UndecidedReason = "tear not allowed: " + err.Error()
		if gm != nil {
			c.applyGM(index, t, m, c.decide(t, m), gm, &r, !c.paper)
			c.finish(&r)
			return r
		}
		r.LettersAsBefore = true
		if m.Refused != "" || m.Pieces > 0 {
			// Paper was torn off (or may have been) and its letters are not ruled.
			c.markStale(index)
		}
		c.finish(&r)
		return r
	}
	tooLittle := !c.paper
	// The template's fit on the paper this tear is asked of was measured in doubt.
	paperInDoubt := c.paper && c.paperDoubt > 0

	if m.Refused == "" {
		r.RemovedAreaMM2 = m.RemovedAreaMM2
		r.Pieces = m.Pieces
		r.EdgeToEdge = m.EdgeToEdge
		r.TemplateFits = m.TemplateFits
	}
	d := c.decide(t, m)
	if paperInDoubt {
		// Paper only shrinks: if the template fits after this tear, it fitted before it too.
		if len(d.undecided) == 0 && m.PaperFitsTemplate && !d.paperDoubt {
			c.paperDoubt = 0
			r.Notes = append(r.Notes, "the template fits on the paper after this tear, so it fitted before it: the doubt about the paper is settled")
		} else {
			d.undecided = append(d.undecided, fmt.Sprintf("whether the template still fitted on the paper left after tear %d is in doubt: the GM decides whether %s is out (too_little_paper)", c.paperDoubt, c.name))
		}
	}
	r.FullLettersRemoved = d.removed
	r.Notes = append(r.Notes, d.notes...)
	r.Notes = append(r.Notes, m.Notes...)
	if gm != nil {
		if len(d.undecided) > 0 {
			r.Verdict = Undecided
			r.UndecidedReason = strings.Join(d.undecided, "; ")
			// Carried only when nothing was measured reliably and the GM counted nothing.
			r.LettersAsBefore = (m.Refused != "" || d.lettersDoubted) && len(gm.Remaining) == 0
		} else {
			r.Faults = d.faults
			r.Verdict = Valid
			if len(d.faults) > 0 {
				r.Verdict = FauxPas
			}
		}
		c.applyGM(index, t, m, d, gm, &r, tooLittle)
		c.finish(&r)
		return r
	}
	if len(d.undecided) > 0 {
		r.Verdict = Undecided
		c.undecidedAt = index
		r.UndecidedReason = strings.Join(d.undecided, "; ")
		if m.Refused != "" || d.lettersDoubted {
			r.LettersAsBefore = true
			c.markStale(index)
			r.Notes = append(r.Notes, "undecided: nothing measured reliably; letters, owed tears and paper carried unchanged")
		} else {
			// A letter torn off is gone whether or not the tear was valid: the letters are
			// applied as measured; the verdict's consequences (owed tears) and the paper wait.
			c.applyLetters(d)
			r.Notes = append(r.Notes, "undecided: the letters left are as measured (a letter torn off is gone whatever the verdict); owed tears and paper carried unchanged")
		}
	} else {
		r.Faults = d.faults
		r.Verdict = Valid
		if len(d.faults) > 0 {
			r.Verdict = FauxPas
		}
		c.applyLetters(d)
		// Paper only shrinks: once the template does not fit, it never fits again.
		switch {
		case c.paper && d.paperDoubt:
			c.paperDoubt = index
			r.Notes = append(r.Notes, "the template's fit on the remaining paper is in doubt: paper_fits_template stays true, and the next tear is undecided unless its measurement shows the template still fits")
		case c.paper && !m.PaperFitsTemplate:
			c.paper = false
		case !c.paper && m.PaperFitsTemplate:
			r.Notes = append(r.Notes, "the template is measured to fit the remaining paper again: paper only shrinks, it still does not fit")
		}
		if t.Kind == KindPenalty {
			if c.owed > 0 {
				c.owed--
			} else {
				n := "penalty tear with no tear owed: nothing to pay"
				if c.undecidedAt > 0 {
					// The owed count waits for undecided verdicts: a faux pas among them
					// would be owed, and this tear would pay it.
					n += fmt.Sprintf(" (as ruled: tear %d is undecided, and if the GM rules it a faux pas, this tear pays for it)", c.undecidedAt)
					c.undecidedAt = 0
				}
				r.Notes = append(r.Notes, n)
			}
		}
		if r.Verdict == FauxPas {
			c.owed++
		}
	}
	owedNow := r.Verdict != Undecided && c.owed > 0
	switch {
	case tooLittle:
		c.out, c.outAt = OutTooLittlePaper, index
		r.Notes = append(r.Notes, "a tear was asked of a sheet whose remaining paper cannot cover the template")
	case r.Verdict != Undecided && c.noSkillsLeft():
		c.out, c.outAt = OutNoSkillsLeft, index
	case owedNow && !c.paper:
		c.out, c.outAt = OutTooLittlePaper, index
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s owed %s asked now, and the remaining paper cannot cover the template", c.owed, pluralWord(c.owed, "tear", "tears"), pluralWord(c.owed, "is", "are")))
	case owedNow && c.paperDoubt == index:
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s owed %s asked now, and whether the remaining paper covers the template is in doubt: the GM decides whether %s is out (too_little_paper)", c.owed, pluralWord(c.owed, "tear", "tears"), pluralWord(c.owed, "is", "are"), c.name))
	case c.noSkillsLeft():
		r.Notes = append(r.Notes, fmt.Sprintf("no skill has a letter left as measured, but the tear is undecided: the GM decides whether %s is out (no_skills_left)", c.name))
	}
	c.finish(&r)
	return r
}

// applyLetters makes a decision's measured letters the character's.
func (c *Character) applyLetters(d decision) {
	for i := range c.skills {
		if d.left[i] != nil {
			c.skills[i].left = d.left[i]
			c.skills[i].doubtful = d.doubtful[i]
			c.skills[i].staleSince = 0
			c.skills[i].gmConfirmed, c.skills[i].gmPicked = false, false
		}
		for j, u := range d.unlocated[i] {
			if u {
				c.skills[i].located[j] = false
			}
		}
	}
}

// markStale records that tear index removed paper nobody measured: every skill's letters
// left are counted as before it, not as measured, until a later tear measures them.
func (c *Character) markStale(index int) {
	for i := range c.skills {
		if c.skills[i].staleSince == 0 {
			c.skills[i].staleSince = index
		}
		c.skills[i].gmConfirmed = false
	}
}

// finish copies the character's state into the ruling.
func (c *Character) finish(r *TearRuling) {
	r.Skills = c.Skills()
	var unlocated, doubtful, weak []string
	stale := map[int][]string{} // by the tear since which they are not measured
	var staleAt []int
	for i, s := range r.Skills {
		if s.Measured {
			continue
		}
		if k := c.skills[i].staleSince; k > 0 && s.Remaining > 0 && !c.skills[i].weak {
			if stale[k] == nil {
				staleAt = append(staleAt, k)
			}
			stale[k] = append(stale[k], fmt.Sprintf("%s %d", s.Name, s.Remaining))
			continue
		}
		if c.skills[i].weak {
			weak = append(weak, fmt.Sprintf("%s %d (%.0f%%)", s.Name, s.Remaining, 100*c.skills[i].confidence))
			continue
		}
		if c.skills[i].measuredIgnoringDoubt() {
			doubtful = append(doubtful, fmt.Sprintf("%s %d", s.Name, s.Remaining))
		} else {
			unlocated = append(unlocated, fmt.Sprintf("%s %d", s.Name, s.Remaining))
		}
	}
	if len(unlocated) > 0 {
		r.Notes = append(r.Notes, "letters left not measured (not located on the fresh sheet, so counted as left): "+strings.Join(unlocated, ", "))
	}
	if len(doubtful) > 0 {
		r.Notes = append(r.Notes, "letters left not certain (a letter within measurement error of a tear is counted as left; the GM confirms): "+strings.Join(doubtful, ", "))
	}
	if len(weak) > 0 {
		r.Notes = append(r.Notes, "letters left not certain (the skill was located on the fresh sheet by a weak read, so its letters may lie on another word; the GM confirms where it is written): "+strings.Join(weak, ", "))
	}
	for _, k := range staleAt {
		r.Notes = append(r.Notes, fmt.Sprintf("letters left not measured since tear %d (what it tore off was not measured: letters it may have removed are counted as left until a later tear's measurement; the GM confirms): %s", k, strings.Join(stale[k], ", ")))
	}
	r.PaperFitsTemplate = c.paper
	r.OwedTears = c.owed
	r.Out = c.out != OutNone
	r.OutReason = c.out
	if r.Faults == nil {
		r.Faults = []Fault{}
	}
}

func (c *Character) noSkillsLeft() bool {
	for _, s := range c.skills {
		if s.remaining() > 0 {
			return false
		}
	}
	return true
}

// decision is a ruling on a measurement before it is applied.
type decision struct {
	faults     []Fault
	undecided  []string
	notes      []string
	removed    int  // full letters of the named skill (any skill, for an unnamed penalty) removed
	paperDoubt bool // the measurement doubts PaperFitsTemplate
	// lettersDoubted: the letters measured cannot be trusted either (a free-text doubt, which
	// the judge cannot read; letters removed while no paper was).
	lettersDoubted bool
	left           [][]bool // per skill, its letters left after the tear; nil: unchanged
	doubtful       [][]bool // per skill, letters counted as left that were measured ambiguous
	// unlocated: per skill, letters whose place on the fresh sheet the GM's count has
	// contradicted; from this tear on they count as not located (left until the GM says).
	unlocated [][]bool
	// advice: what the GM looks at to settle the doubts in undecided (advise).
	advice []string
}

// advise adds what the GM looks at to settle a doubt, once.
func (d *decision) advise(s string) {
	if !slices.Contains(d.advice, s) {
		d.advice = append(d.advice, s)
	}
}

// Advice on the sheet in hand for each fault a doubt can flip (a tester: 17 of 26 undecided
// reasons on a held-out set told the GM nothing to do).
func faultAdvice(f Fault, skill string) string {
	switch f {
	case FaultNoFullLetter:
		if skill == "" {
			return "looks at the paper torn off for a letter of a skill wholly on it (none: no_full_letter)"
		}
		return fmt.Sprintf("looks at the paper torn off for a letter of %q wholly on it (none: no_full_letter)", skill)
	case FaultPieceTooSmall:
		return "lays the template on the paper torn off (it does not fit inside: piece_too_small)"
	case FaultNotEdgeToEdge:
		return "looks whether the paper torn off reaches the sheet's edge (it does not: not_edge_to_edge)"
	case FaultSeveralPieces:
		return "counts the pieces torn off (more than one: several_pieces)"
	}
	return "compares the sheet with its photo before this tear"
}

func (c *Character) decide(t Tear, m Measurement) decision {
	var d decision
	if m.Refused != "" {
		d.undecided = append(d.undecided, "measurement refused: "+m.Refused)
		return d
	}
	named := -1
	if strings.TrimSpace(t.Skill) != "" {
		named, _ = c.skill(t.Skill)
	}
	states := make([][]LetterState, len(c.skills))
	for _, sl := range m.Letters {
		if i, ok := c.skill(sl.Name); ok && states[i] == nil {
			states[i] = sl.States
		}
	}
	d.left = make([][]bool, len(c.skills))
	d.doubtful = make([][]bool, len(c.skills))
	d.unlocated = make([][]bool, len(c.skills))
	var tooClose []string // located letters of the counted skill(s) too close to call, and why
	anyRemovedState := false
	unlocatedUnknown := false   // a never-located letter that could count for no_full_letter is unknown
	var unlocatedSkill []string // skills that could count for no_full_letter, never located
	for i, s := range c.skills {
		counts := named == i || named < 0
		st := states[i]
		if st == nil {
			switch {
			case s.remaining() == 0:
				// a lost skill cannot lose more
			case s.everLocated() && named == i:
				d.undecided = append(d.undecided, fmt.Sprintf("the letters of %q (the skill torn for) were not located", s.name))
			case s.everLocated():
				d.undecided = append(d.undecided, fmt.Sprintf("the letters of %q were not measured", s.name))
			case counts:
				// Never located: its letters left are not measured (finish notes it), and one of
				// them could be the full letter the tear needed.
				unlocatedSkill = append(unlocatedSkill, s.name)
			default:
				// never located: its letters left are not measured (finish notes it)
			}
			continue
		}
		if len(st) != len(s.left) {
			d.undecided = append(d.undecided, fmt.Sprintf("%q has %d letters but %d were measured", s.name, len(s.left), len(st)))
			continue
		}
		left := make([]bool, len(s.left))
		doubtful := make([]bool, len(s.left))
		runes := LetterRunes(s.name)
		for j, was := range s.left {
			// Letters the GM's count left out without a measurement of which (gmPicked)
			// are measured again: this measurement, against an older sheet, says which
			// are whole, and the GM's count caps them below (a tester: letters the GM's
			// count had taken were subtracted again when measured removed).
			was = was || s.gmPicked
			if !was {
				if st[j] == LetterOnSheet {
					d.notes = append(d.notes, letterName(j, runes, s.name)+" was already gone but is measured on the sheet: it stays gone")
				}
				continue
			}
			switch st[j] {
			case LetterOnSheet:
				left[j] = true
			case LetterRemoved:
				anyRemovedState = true
				if counts {
					d.removed++
				}
			case LetterCut:
			case LetterGone:
				if !s.located[j] {
					// Not located (or its place contradicted by the GM's count): its
					// outline is not its letter, so it is counted as left.
					left[j] = true
					if counts {
						unlocatedUnknown = true
					}
					continue
				}
				if s.gmConfirmed && !s.gmPicked {
					// The GM counted this letter left after the last ruled tear, yet
					// this measurement says it was not on the sheet before this tear: the
					// place where the fresh sheet's layout put it is not the letter's. The
					// GM's word stands; from now on the letter is not located (counted as
					// left, its skill's count flagged) until the GM counts again.
					left[j] = true
					if d.unlocated[i] == nil {
						d.unlocated[i] = make([]bool, len(s.left))
					}
					d.unlocated[i][j] = true
					if counts {
						unlocatedUnknown = true
					}
					d.notes = append(d.notes, fmt.Sprintf("%s is measured gone before this tear, but the GM counted %d %s of %q left at the last ruling: counted as left, where it is written not known", letterName(j, runes, s.name), s.gmCount, pluralWord(s.gmCount, "letter", "letters"), s.name))
					continue
				}
				how := "lost in an earlier undecided tear"
				if s.doubtful != nil && s.doubtful[j] {
					how = "counted as left after an earlier tear that passed too close to call it"
				}
				d.notes = append(d.notes, fmt.Sprintf("%s was not on the sheet before this tear (%s): counted gone", letterName(j, runes, s.name), how))
			case LetterRemovedOrCut:
				anyRemovedState = true
				// Some of its ink is certainly on the removed paper: it is not left, whichever
				// way the doubt goes. Whether it was removed whole (a full letter) is too close
				// to call, which matters only for the skill torn for.
				if counts {
					tooClose = append(tooClose, letterName(j, runes, s.name)+" may be removed whole (a full letter) or only cut (not one)")
				}
				d.notes = append(d.notes, letterName(j, runes, s.name)+" is removed whole or cut (the tear passes within measurement error of its ink): not left either way")
			case LetterOnSheetOrCut:
				// Some of its ink is certainly on the remaining sheet: it was not removed
				// whole, whichever way the doubt goes, so it cannot be the full letter the
				// tear needed. Whole or cut is too close to call: counted as left (the
				// player keeps the benefit of the doubt), its skill's count flagged.
				left[j], doubtful[j] = true, true
				d.notes = append(d.notes, letterName(j, runes, s.name)+" is whole on the sheet or cut (the tear passes within measurement error of its ink): counted as left")
			case LetterAmbiguous, LetterUnknown:
				// Ambiguous: the tear passes within measurement error of this letter's ink, so
				// whole or cut cannot be told. Unknown: its state could not be measured (no
				// ink found in its outline near the tear). Either way it is counted as left
				// (the player keeps the benefit of the doubt) and its skill's count is flagged
				// as not measured; the ruling is undecided below only when the letter could
				// decide whether a full letter of the skill torn for was removed.
				if !s.located[j] {
					left[j] = true
					if counts {
						unlocatedUnknown = true
					}
					continue
				}
				left[j], doubtful[j] = true, true
				why := "is within measurement error of the tear (whole or cut cannot be told)"
				if st[j] == LetterUnknown {
					why = "could not be measured"
				}
				if counts {
					tooClose = append(tooClose, letterName(j, runes, s.name)+" "+strings.TrimSuffix(why, " (whole or cut cannot be told)"))
				}
				d.notes = append(d.notes, fmt.Sprintf("%s %s: counted as left", letterName(j, runes, s.name), why))
			default: // an invalid state
				if s.located[j] {
					d.undecided = append(d.undecided, fmt.Sprintf("%s is %s", letterName(j, runes, s.name), st[j]))
				} else {
					left[j] = true
					if counts {
						unlocatedUnknown = true
					}
				}
			}
		}
		if s.gmPicked {
			n := 0
			for j := range left {
				if left[j] {
					n++
					if n > s.gmCount {
						left[j] = false
					}
				}
			}
			if n > s.gmCount {
				for j := range left {
					if left[j] {
						doubtful[j] = true
					}
				}
				d.notes = append(d.notes, fmt.Sprintf("%q: %d letters are measured whole against the sheet before the GM's count of %d, which stands; which of them are left is not certain", s.name, n, s.gmCount))
			}
		}
		d.left[i] = left
		d.doubtful[i] = doubtful
	}

	nothing := m.Pieces <= 0 || m.RemovedAreaMM2 <= 0
	if nothing && anyRemovedState {
		d.undecided = append(d.undecided, "letters measured removed while no paper was removed")
		d.lettersDoubted = true
	}
	// Whether no_full_letter applies may be too close to call. That makes the ruling
	// undecided only when the verdict hangs on it; see below.
	var letterDoubt []string
	if d.removed == 0 && len(tooClose) > 0 && !nothing {
		what := "any skill" // a penalty that names no skill
		if named >= 0 {
			what = fmt.Sprintf("%q", c.skills[named].name)
		}
		letterDoubt = append(letterDoubt, fmt.Sprintf("whether a full letter of %s was removed is too close to call: %s", what, strings.Join(tooClose, ", ")))
	}
	if d.removed == 0 && unlocatedUnknown && !nothing {
		what := "the named skill"
		if named >= 0 {
			what = fmt.Sprintf("%q", c.skills[named].name)
		}
		letterDoubt = append(letterDoubt, fmt.Sprintf("no full letter of %s measured removed, but some of its letters were never located", what))
	}
	if named >= 0 && c.skills[named].confidence < VerdictReadConfidence && c.skills[named].identity < VerdictIdentityConfidence && c.skills[named].weak && states[named] != nil && !nothing {
		// The letters counted are where a weak read placed the skill: they may be another
		// word's (a declared skill not written on the sheet at all was placed on a word with
		// confidence 0.44), so whether a full letter of it was removed is not measured, either
		// way (testers: "Hound" on the word "hand", ruled valid).
		if sk := c.skills[named]; sk.doubt != "" {
			letterDoubt = append(letterDoubt, fmt.Sprintf("the letters of %q (the skill torn for) may be another word's: %s; so whether a full letter of it was removed cannot be told; the GM confirms which one it is", sk.name, sk.doubt))
		} else {
			letterDoubt = append(letterDoubt, fmt.Sprintf("%q (the skill torn for) was located by a weak read (%.0f%%): its letters may be another word's, so whether a full letter of it was removed cannot be told; the GM confirms where it is written", sk.name, 100*sk.confidence))
		}
	}
	if d.removed == 0 && len(unlocatedSkill) > 0 && !nothing {
		if named >= 0 {
			letterDoubt = append(letterDoubt, fmt.Sprintf("the letters of %q (the skill torn for) were not located: whether a full letter of it was removed cannot be told", c.skills[named].name))
		} else {
			letterDoubt = append(letterDoubt, fmt.Sprintf("no full letter measured removed, but the letters of %s were not located (a penalty that names no skill may take its letter from any)", quoted(unlocatedSkill)))
		}
	}
	// With nothing removed there is no removed paper: nothing_removed is the whole fault and
	// the faults about the removed paper (its letters, its size, its edges, its pieces) are
	// vacuous, so they are not listed.
	if nothing {
		d.faults = append(d.faults, FaultNothingRemoved)
	} else {
		if d.removed == 0 {
			d.faults = append(d.faults, FaultNoFullLetter)
		}
		if !m.TemplateFits {
			d.faults = append(d.faults, FaultPieceTooSmall)
		}
		if !m.EdgeToEdge {
			d.faults = append(d.faults, FaultNotEdgeToEdge)
		}
		if m.Pieces >= 2 {
			d.faults = append(d.faults, FaultSeveralPieces)
		}
	}
	// Doubts that can flip only one fault each (doubted), and doubts that could change more
	// (undecided outright).
	doubted := map[Fault][]string{}
	if len(letterDoubt) > 0 {
		doubted[FaultNoFullLetter] = letterDoubt
	}
	for _, s := range m.Doubts {
		d.undecided = append(d.undecided, "a measurement is in doubt: "+s)
		d.advise(faultAdvice("", ""))
		d.lettersDoubted = true
	}
	for _, u := range m.Uncertain {
		if u.About == AboutPaperFits {
			d.paperDoubt = true
			continue
		}
		if !c.doubtMatters(u, nothing) {
			d.notes = append(d.notes, fmt.Sprintf("%s, which cannot change the ruling: %s", inDoubt(u), u.Text))
			continue
		}
		if f, ok := doubtFault[u.About]; ok {
			doubted[f] = append(doubted[f], inDoubt(u)+": "+u.Text)
			continue
		}
		d.undecided = append(d.undecided, inDoubt(u)+": "+u.Text)
		d.advise(faultAdvice("", ""))
	}
	if len(doubted) > 0 {
		certain := slices.DeleteFunc(slices.Clone(d.faults), func(f Fault) bool { return doubted[f] != nil })
		for _, f := range []Fault{FaultNoFullLetter, FaultPieceTooSmall, FaultNotEdgeToEdge, FaultSeveralPieces} {
			ws := doubted[f]
			if ws == nil {
				continue
			}
			if len(certain) > 0 {
				// Another fault is certain: the tear is a faux pas whether or not f applies,
				// and its consequences (one more tear owed, the letters left) are the same
				// either way. Only the certain faults are listed; the GM reads the doubt.
				for _, w := range ws {
					d.notes = append(d.notes, fmt.Sprintf("%s, so %s may also apply: a faux pas either way", w, f))
				}
			} else {
				d.undecided = append(d.undecided, ws...)
				sk := ""
				if named >= 0 {
					sk = c.skills[named].name
				}
				d.advise(faultAdvice(f, sk))
			}
		}
		if len(certain) > 0 {
			d.faults = certain
		}
	}
	if len(d.undecided) > 0 && len(d.advice) > 0 {
		d.undecided = append(d.undecided, "to settle it, the GM "+strings.Join(d.advice, ", and ")+", then "+c.gmHow())
	}
	return d
}

// letterName names letter j of skill in reasons and notes: letter 3 ('n') of "Haggling".
func letterName(j int, runes []rune, skill string) string {
	return fmt.Sprintf("letter %d ('%c') of %q", j+1, runes[j], skill)
}

// quoted lists skill names, each quoted: "Archery", "Tea Ceremony".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// inDoubt says, in a GM's words, what a structured doubt doubts: "the removed area's
// measurement is in doubt".
func inDoubt(u Doubt) string {
	switch u.About {
	case AboutRemoved:
		return "the removed area's measurement is in doubt"
	case AboutPieces:
		return "whether the paper removed is one piece is in doubt"
	case AboutEdgeToEdge:
		return "whether the tear goes from one edge of the sheet to another is in doubt"
	case AboutTemplateFits:
		return "whether the template fits inside the removed piece is in doubt"
	case AboutPaperFits:
		return "whether the template fits on the remaining sheet is in doubt"
	case AboutLetters:
		return fmt.Sprintf("the letters of %q are in doubt", u.Skill)
	}
	return fmt.Sprintf("a measurement (%s) is in doubt", u.About)
}

// doubtFault is the one fault a structured doubt about a quantity can flip. A doubt about
// the pieces bears on several_pieces only: the missing paper it concerns (vision: a strip
// along the sheet's edge, torn off or curled) touches the edge, letters are measured apart
// from the pieces, and the template needs to fit in one piece only.
var doubtFault = map[Quantity]Fault{
	AboutTemplateFits: FaultPieceTooSmall,
	AboutEdgeToEdge:   FaultNotEdgeToEdge,
	AboutPieces:       FaultSeveralPieces,
}

// doubtMatters says whether flipping the doubted quantity could change the ruling.
func (c *Character) doubtMatters(u Doubt, nothing bool) bool {
	switch u.About {
	case AboutPieces, AboutEdgeToEdge, AboutTemplateFits:
		return !nothing // piece faults apply only when something was removed
	case AboutLetters:
		i, ok := c.skill(u.Skill)
		return !ok || c.skills[i].remaining() > 0
	case AboutPaperFits:
		return false // it bears on the next tear, not this one (see Rule)
	default: // AboutRemoved and anything unknown
		return true
	}
}
