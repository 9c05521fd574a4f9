package judge

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// GMRuling is the GM's decision on a tear (the manifest's optional `gm:` on a tear): what
// the GM ruled when tearcam left the tear undecided ("... or the GM rules"), or a ruling that
// stands instead of tearcam's on a tear it decided. tearcam's own verdict, faults and
// undecided reason are kept as measured; the character's state that carries to later tears
// (letters left, owed tears, paper, out) follows the GM's ruling.
type GMRuling struct {
	Verdict Verdict `json:"verdict"` // valid or faux_pas: the GM decides, never undecided
	Faults  []Fault `json:"faults"`  // faux_pas: at least one; valid: none
	// Remaining are the full letters left after the tear of the skills the GM counted, by
	// declared name; a skill left out keeps its letters as measured (or as before the tear,
	// when nothing after it was measured reliably).
	Remaining map[string]int `json:"remaining,omitempty"`
	// PaperFitsTemplate, when given, is whether the template fits on the paper left after
	// the tear (paper only shrinks: once it does not fit, it never fits again).
	PaperFitsTemplate *bool `json:"paper_fits_template,omitempty"`
	// Out, when given, puts the character out at this tear: no_skills_left (every skill's
	// letters left are 0) or too_little_paper (asked for a tear, this one or one owed,
	// without paper enough to cover the template).
	Out  OutReason `json:"out,omitempty"`
	Note string    `json:"note,omitempty"` // the GM's words, for the record
	// Overrules is set by the judge: where the GM's ruling differs from what tearcam ruled for
	// certain (its verdict and faults when it decided the tear, a letter count it measured
	// after the tear, paper_fits_template and out on a tear it decided), one line each; empty
	// when it does not.
	Overrules []string `json:"overrules,omitempty"`
	// Ignored is set by the judge when the ruling changes nothing, and says why: the
	// character was already out before the tear ("Ann is already out (no_skills_left, tear
	// 3)"); empty when the ruling stands.
	Ignored string `json:"ignored,omitempty"`
}

// ErrBadGMRuling is wrapped by every error of GMRuling.Check.
var ErrBadGMRuling = errors.New("bad GM ruling")

// Check validates a GM ruling against the player's declared skills (names as declared:
// Remaining's keys are matched case-insensitively and returned rewritten to them). An
// error wraps ErrBadGMRuling and says what is wrong in a GM's words.
func (g *GMRuling) Check(skills []string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), ErrBadGMRuling)
	}
	switch g.Verdict {
	case Valid, FauxPas:
	case "":
		return bad("no verdict: want valid or faux_pas")
	case Undecided:
		return bad("verdict undecided: the GM decides, want valid or faux_pas (leave gm out to keep tearcam's ruling)")
	default:
		return bad("unknown verdict %q: want valid or faux_pas", g.Verdict)
	}
	seen := map[Fault]bool{}
	for _, f := range g.Faults {
		if !slices.Contains(AllFaults, f) {
			return bad("unknown fault %q: want %s", f, faultList())
		}
		if seen[f] {
			return bad("fault %q given twice", f)
		}
		seen[f] = true
	}
	switch {
	case g.Verdict == FauxPas && len(g.Faults) == 0:
		return bad("verdict faux_pas needs faults: which rule was broken (%s)", faultList())
	case g.Verdict == Valid && len(g.Faults) > 0:
		return bad("verdict valid takes no faults (a fault makes the tear a faux_pas)")
	}
	// Faults in the order of the Fault constants, as tearcam reports them.
	slices.SortFunc(g.Faults, func(a, b Fault) int { return slices.Index(AllFaults, a) - slices.Index(AllFaults, b) })
	switch g.Out {
	case OutNone, OutNoSkillsLeft, OutTooLittlePaper:
	case OutLastDitch:
		return bad("out last_ditch: a last ditch effort is a tear of kind last_ditch, not a ruling")
	default:
		return bad("unknown out %q: want no_skills_left or too_little_paper", g.Out)
	}
	if g.Out == OutTooLittlePaper && g.PaperFitsTemplate != nil && *g.PaperFitsTemplate {
		return bad("out too_little_paper with paper_fits_template true: paper only shrinks")
	}
	if len(g.Remaining) > 0 && len(skills) == 0 {
		return bad("remaining needs the player's declared skills")
	}
	fixed := make(map[string]int, len(g.Remaining))
	names := make([]string, 0, len(g.Remaining))
	for k := range g.Remaining {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		n := g.Remaining[k]
		i := slices.IndexFunc(skills, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(k)) })
		if i < 0 {
			return bad("remaining: unknown skill %q: not among the player's skills (%s)", k, strings.Join(skills, ", "))
		}
		if _, dup := fixed[skills[i]]; dup {
			return bad("remaining: skill %q given twice", skills[i])
		}
		if max := Letters(skills[i]); n < 0 || n > max {
			return bad("remaining: %q has %d letters: want 0 to %d, not %d", skills[i], max, max, n)
		}
		if g.Out == OutNoSkillsLeft && n > 0 {
			return bad("out no_skills_left, but remaining gives %q %d letters", skills[i], n)
		}
		fixed[skills[i]] = n
	}
	if len(fixed) > 0 {
		g.Remaining = fixed
	} else {
		g.Remaining = nil
	}
	if g.Faults == nil {
		g.Faults = []Fault{}
	}
	return nil
}

// AllFaults are the fault codes in the order they are reported.
var AllFaults = []Fault{FaultNothingRemoved, FaultNoFullLetter, FaultPieceTooSmall, FaultNotEdgeToEdge, FaultSeveralPieces}

func faultList() string {
	s := make([]string, len(AllFaults))
	for i, f := range AllFaults {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Label is the GM's ruling as people read it: "faux_pas (no_full_letter)", then what the GM
// counted or decided beyond the verdict. The letters left are given in the order of skills
// (the sheet's declared order); counts of skills it does not name follow in alphabetical
// order (all of them when skills is nil).
func (g *GMRuling) Label(skills []string) string {
	s := verdictLabel(g.Verdict, g.Faults)
	if len(g.Remaining) > 0 {
		names := make([]string, 0, len(g.Remaining))
		for _, k := range skills {
			if _, ok := g.Remaining[k]; ok && !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
		var rest []string
		for k := range g.Remaining {
			if !slices.Contains(names, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		names = append(names, rest...)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = fmt.Sprintf("%s %d", k, g.Remaining[k])
		}
		s += "; letters left " + strings.Join(parts, ", ")
	}
	if g.PaperFitsTemplate != nil {
		if *g.PaperFitsTemplate {
			s += "; the template fits on the paper left"
		} else {
			s += "; the template no longer fits on the paper left"
		}
	}
	if g.Out != OutNone {
		s += "; out (" + string(g.Out) + ")"
	}
	if g.Note != "" {
		s += fmt.Sprintf("; %q", g.Note)
	}
	return s
}

// GMLine is the GM's ruling on r as people read it ("" when there is none): "undecided → GM
// ruled faux_pas (no_full_letter)", and where the GM overrules tearcam, what tearcam ruled;
// a ruling that changed nothing says so and why ("undecided → GM ruled valid: ignored, Ann
// is already out (no_skills_left, tear 3) ..."). The GM's letter counts are in the order of
// r's skills (as declared).
func GMLine(r TearRuling) string {
	if r.GMRuling == nil {
		return ""
	}
	names := make([]string, len(r.Skills))
	for i, k := range r.Skills {
		names[i] = k.Name
	}
	s := fmt.Sprintf("%s → GM ruled %s", r.Verdict, r.GMRuling.Label(names))
	if r.GMRuling.Ignored != "" {
		return s + ": ignored, " + r.GMRuling.Ignored
	}
	if len(r.GMRuling.Overrules) > 0 {
		s += " (overrules tearcam: " + strings.Join(r.GMRuling.Overrules, "; ") + ")"
	}
	return s
}

// clone is a deep copy of the character (for tearcam's own ruling beside the GM's).
func (c *Character) clone() *Character {
	d := *c
	d.skills = make([]skillTrack, len(c.skills))
	for i, s := range c.skills {
		s.left = slices.Clone(s.left)
		s.located = slices.Clone(s.located)
		s.doubtful = slices.Clone(s.doubtful)
		d.skills[i] = s
	}
	return &d
}

// RuleGM rules one tear as Rule does and, when gm is not nil, makes the GM's ruling the one
// the character's state follows: the returned ruling keeps tearcam's own verdict, faults,
// undecided reason and measured values, records gm (GMRuling, with Overrules naming where
// it differs from what tearcam ruled for certain), and its letters left, owed tears, paper
// and out are the state after the GM's ruling:
//   - letters: the GM's count for each skill it gives (which letters, for later tears: those
//     measured on the sheet first, then those in doubt, then those measured removed or cut);
//     every other skill as measured, or as before the tear when nothing after it was measured
//     reliably;
//   - paper: the GM's paper_fits_template when given, else as measured unless in doubt (the
//     GM's ruling on the tear settles a doubt about the paper before it, since the GM asked
//     for the tear);
//   - owed: a penalty tear pays one owed tear; a faux pas owes one more;
//   - out: the GM's out when given; else too_little_paper when the tear was asked of paper
//     that could not cover the template (or a tear is owed now and it cannot), no_skills_left
//     when no skill has a letter left.
//
// A GM ruling on a tear after the character is out changes nothing: the recorded ruling's
// Ignored says why (and a note).
func (c *Character) RuleGM(index int, t Tear, m Measurement, gm *GMRuling) TearRuling {
	if gm == nil {
		return c.Rule(index, t, m)
	}
	ignored := ""
	if c.out != OutNone {
		ignored = fmt.Sprintf("%s is already out (%s, tear %d): a ruling on a later tear changes nothing", c.name, c.out, c.outAt)
	}
	own := c.clone().Rule(index, t, m)
	r := c.rule(index, t, m, gm)
	g := *gm
	g.Faults = slices.Clone(gm.Faults)
	if g.Faults == nil {
		g.Faults = []Fault{}
	}
	g.Overrules = overrules(own, r, g)
	if g.Ignored = ignored; ignored != "" {
		g.Overrules = nil
	}
	r.GMRuling = &g
	return r
}

// overrules lists where the GM's ruling g (the ruling r after it) differs from tearcam's own
// ruling own, where own was certain.
func overrules(own, r TearRuling, g GMRuling) []string {
	var out []string
	if own.Verdict != Undecided && (own.Verdict != g.Verdict || !slices.Equal(own.Faults, g.Faults)) {
		out = append(out, "verdict: tearcam ruled "+verdictLabel(own.Verdict, own.Faults))
	}
	for i, s := range own.Skills {
		// A count tearcam measured (an undecided tear's letters are applied as measured too,
		// unless nothing after it was).
		if i < len(r.Skills) && s.Measured && !own.LettersAsBefore && r.Skills[i].Remaining != s.Remaining {
			out = append(out, fmt.Sprintf("%s: tearcam measured %d %s left", s.Name, s.Remaining, pluralWord(s.Remaining, "letter", "letters")))
		}
	}
	if own.Verdict != Undecided && own.PaperFitsTemplate != r.PaperFitsTemplate {
		out = append(out, fmt.Sprintf("paper_fits_template: tearcam measured %v", own.PaperFitsTemplate))
	}
	if own.Out != r.Out || own.OutReason != r.OutReason {
		if own.Out {
			out = append(out, "out: tearcam ruled out ("+string(own.OutReason)+")")
		} else if own.Verdict != Undecided {
			out = append(out, "out: tearcam ruled the character still in")
		}
	}
	return out
}

func verdictLabel(v Verdict, faults []Fault) string {
	s := string(v)
	if len(faults) > 0 {
		fs := make([]string, len(faults))
		for i, f := range faults {
			fs[i] = string(f)
		}
		s += " (" + strings.Join(fs, ", ") + ")"
	}
	return s
}

// applyGM updates the character after tear index as the GM ruled it (see RuleGM); d is
// tearcam's decision on the measurement m, tooLittle whether the paper before the tear could
// not cover the template.
func (c *Character) applyGM(index int, t Tear, m Measurement, d decision, gm *GMRuling, r *TearRuling, tooLittle bool) {
	trusted := m.Refused == "" && !d.lettersDoubted
	states := make(map[int][]LetterState, len(m.Letters))
	for _, sl := range m.Letters {
		if i, ok := c.skill(sl.Name); ok && states[i] == nil {
			states[i] = sl.States
		}
	}
	counted := make(map[int]int, len(gm.Remaining))
	for name, n := range gm.Remaining {
		if i, ok := c.skill(name); ok {
			counted[i] = n
		}
	}
	for i := range c.skills {
		s := &c.skills[i]
		if n, ok := counted[i]; ok {
			var st []LetterState
			if trusted {
				st = states[i]
			}
			s.setRemaining(n, st)
			continue
		}
		if trusted && d.left != nil && d.left[i] != nil {
			s.left, s.doubtful, s.staleSince = d.left[i], d.doubtful[i], 0
			s.gmConfirmed, s.gmPicked = false, false
		} else if (m.Refused != "" || m.Pieces > 0 || d.lettersDoubted) && s.staleSince == 0 {
			s.staleSince = index
		}
	}
	switch {
	case gm.PaperFitsTemplate != nil:
		if !c.paper && *gm.PaperFitsTemplate {
			r.Notes = append(r.Notes, "the GM rules the template fits the paper left, but it did not fit before this tear: paper only shrinks, it still does not fit")
		}
		c.paper = c.paper && *gm.PaperFitsTemplate
		c.paperDoubt = 0
	case trusted && d.paperDoubt && c.paper:
		c.paperDoubt = index
		r.Notes = append(r.Notes, "the template's fit on the remaining paper is in doubt: paper_fits_template stays true, and the next tear is undecided unless its measurement shows the template still fits (or the GM rules it)")
	case trusted:
		c.paper = c.paper && m.PaperFitsTemplate
		c.paperDoubt = 0
	default:
		// Not measured: the paper is as before; the GM, who asked for the tear, settled any
		// doubt about it before the tear.
		c.paperDoubt = 0
	}
	if t.Kind == KindPenalty && c.owed > 0 {
		c.owed--
	}
	if gm.Verdict == FauxPas {
		c.owed++
	}
	switch {
	case gm.Out == OutNoSkillsLeft:
		for i := range c.skills {
			c.skills[i].setRemaining(0, nil)
		}
		c.out, c.outAt = OutNoSkillsLeft, index
	case gm.Out == OutTooLittlePaper:
		c.paper = false
		c.out, c.outAt = OutTooLittlePaper, index
	case tooLittle:
		c.out, c.outAt = OutTooLittlePaper, index
		r.Notes = append(r.Notes, "a tear was asked of a sheet whose remaining paper cannot cover the template")
	case len(c.skills) > 0 && c.noSkillsLeft():
		// (No skills at all is discovery mode: none declared yet, not none left.)
		c.out, c.outAt = OutNoSkillsLeft, index
	case c.owed > 0 && !c.paper:
		c.out, c.outAt = OutTooLittlePaper, index
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s owed %s asked now, and the remaining paper cannot cover the template", c.owed, pluralWord(c.owed, "tear", "tears"), pluralWord(c.owed, "is", "are")))
	}
	r.Notes = append(r.Notes, "the GM ruled "+gm.Label(c.skillNames())+": letters left, owed tears, paper and out follow the GM's ruling")
}

// skillNames are the character's skills, as declared.
func (c *Character) skillNames() []string {
	out := make([]string, len(c.skills))
	for i, s := range c.skills {
		out[i] = s.name
	}
	return out
}

// setRemaining makes n of the skill's letters the ones left (the GM's count): letters
// measured on the sheet (states, when measured) first, then those whose fate is in doubt or
// not measured, then those measured removed or cut, then those already gone, each in reading
// order. The count is the GM's: no doubt or staleness is left on it.
func (s *skillTrack) setRemaining(n int, states []LetterState) {
	rank := func(j int) int {
		if !s.left[j] {
			return 4
		}
		if states == nil || j >= len(states) {
			return 1
		}
		switch states[j] {
		case LetterOnSheet:
			return 0
		case LetterRemovedOrCut:
			return 2
		case LetterRemoved, LetterCut, LetterGone:
			return 3
		}
		return 1
	}
	order := make([]int, len(s.left))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(order[a]) < rank(order[b]) })
	left := make([]bool, len(s.left))
	for k := 0; k < n && k < len(order); k++ {
		left[order[k]] = true
	}
	s.left, s.doubtful, s.staleSince = left, nil, 0
	s.gmConfirmed, s.gmPicked, s.gmCount, s.gmZero = true, states == nil, n, n == 0
}
