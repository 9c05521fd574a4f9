package judge

import (
	"fmt"
	"strings"

	"tearcam/template"
)

// PlayerInput is everything the judge needs to rule one player's tears.
type PlayerInput struct {
	Name    string
	Skills  []string      // declared, in order; empty: the layouts' names
	Sheet   SheetResult   // the fresh sheet as found (copied into the output)
	Layouts []SkillLayout // where ocr/ located each skill's letters on the fresh sheet
	Tears   []TearInput   // in manifest order
}

// TearInput is one tear to rule: its photo, the tear as announced, and its measurement.
type TearInput struct {
	Photo       string
	SHA256      string
	Tear        Tear
	Measurement Measurement
	GM          *GMRuling // the GM's ruling on the tear, if any (RuleGM)
}

// RulePlayer rules every tear of one player in order, carrying the character's state from
// tear to tear. It is deterministic: the same input gives the same output.
func RulePlayer(in PlayerInput) PlayerRulings {
	skills := in.Skills
	if len(skills) == 0 {
		for _, l := range in.Layouts {
			skills = append(skills, l.Name)
		}
	}
	c := NewCharacter(in.Name, skills, in.Layouts)
	p := PlayerRulings{Name: in.Name, Sheet: in.Sheet, Tears: []TearRuling{}}
	for i, ti := range in.Tears {
		r := c.RuleGM(i+1, ti.Tear, ti.Measurement, ti.GM)
		r.Photo, r.SHA256 = ti.Photo, ti.SHA256
		p.Tears = append(p.Tears, r)
	}
	p.Out, _ = c.Out()
	return NormalizePlayer(p)
}

// NewRulings assembles the whole --json document in the players' given order, with every
// list non-nil (so JSON shows [] rather than null): the same rulings give the same bytes.
func NewRulings(paper string, tpl template.Template, players []PlayerRulings) Rulings {
	doc := Rulings{Schema: Schema, Paper: paper, Template: tpl, Players: make([]PlayerRulings, len(players))}
	for i, p := range players {
		doc.Players[i] = NormalizePlayer(p)
	}
	return doc
}

// NormalizePlayer returns p with nil lists replaced by empty ones.
func NormalizePlayer(p PlayerRulings) PlayerRulings {
	if p.Tears == nil {
		p.Tears = []TearRuling{}
	}
	if p.Sheet.Skills == nil {
		p.Sheet.Skills = []SkillResult{}
	}
	tears := make([]TearRuling, len(p.Tears))
	for i, t := range p.Tears {
		if t.Faults == nil {
			t.Faults = []Fault{}
		}
		if t.Skills == nil {
			t.Skills = []SkillState{}
		}
		tears[i] = t
	}
	p.Tears = tears
	return p
}

// Standing is where a character stands after its last ruling: what the throw and check
// engine needs to know.
type Standing struct {
	Name      string
	Skills    []SkillState
	Owed      int
	Out       bool
	OutReason OutReason
}

// StandingOf reads a player's standing from its rulings: the last tear's skills, owed tears
// and out state, or, before any tear, every declared skill of the fresh sheet with all its
// letters.
func StandingOf(p PlayerRulings) Standing {
	s := Standing{Name: p.Name, Out: p.Out}
	if n := len(p.Tears); n > 0 {
		last := p.Tears[n-1]
		s.Skills = append([]SkillState(nil), last.Skills...)
		s.Owed = last.OwedTears
		s.Out = s.Out || last.Out
		s.OutReason = last.OutReason
	} else {
		for _, k := range p.Sheet.Skills {
			s.Skills = append(s.Skills, SkillState{Name: k.Name, Remaining: k.Letters, Available: k.Letters > 0,
				Measured: k.Located == k.Letters && !k.Weak()})
		}
	}
	if s.Out {
		for i := range s.Skills {
			s.Skills[i].Available = false
		}
	}
	return s
}

// CanUse says whether the character may use the named skill: nil, or an error wrapping
// ErrOut, ErrUnknownSkill or ErrSkillLost.
func (s Standing) CanUse(skill string) error {
	if s.Out {
		reason := string(s.OutReason)
		if reason == "" {
			reason = "out"
		}
		return fmt.Errorf("%s is out (%s): %w", s.Name, reason, ErrOut)
	}
	for _, k := range s.Skills {
		if k.Name == skill || strings.EqualFold(strings.TrimSpace(k.Name), strings.TrimSpace(skill)) {
			if k.Remaining <= 0 {
				return fmt.Errorf("%s: %q has no full letter left: %w", s.Name, k.Name, ErrSkillLost)
			}
			return nil
		}
	}
	return fmt.Errorf("%s has no skill %q: %w", s.Name, skill, ErrUnknownSkill)
}

// Standing is the character's current standing.
func (c *Character) Standing() Standing {
	out, reason := c.Out()
	return Standing{Name: c.name, Skills: c.Skills(), Owed: c.owed, Out: out, OutReason: reason}
}

// Succeeds says whether the action a tear paid for succeeds automatically (seed: "the
// player must make a tear and then automatically succeed"): a use tear ruled valid, or a
// last ditch effort whose ball hit the GM. A faux pas or undecided use tear does not (the GM
// decides, once the owed tear is made or the ruling is settled); damage and penalty tears
// pay for nothing.
func (r TearRuling) Succeeds() bool {
	switch r.Kind {
	case KindUse:
		return r.Verdict == Valid
	case KindLastDitch:
		return r.Hit != nil && *r.Hit
	}
	return false
}

// LettersLeftLabel is how people see the letters left of ruling r: "letters left", or when
// nothing after the tear was measured reliably (LettersAsBefore) "letters left (as before
// this tear)", so that counts carried over are not read as measured after the tear.
func LettersLeftLabel(r TearRuling) string {
	if r.LettersAsBefore {
		return "letters left (as before this tear)"
	}
	return "letters left"
}

// LettersLeft writes skills' letters left for people (LetterCounts), with UncertainLegend
// after the list when there is one: a line that stands alone.
func LettersLeft(skills []SkillState) string {
	out := LetterCounts(skills)
	if legend := UncertainLegend(skills); legend != "" {
		out += " (" + legend + ")"
	}
	return out
}

// LetterCounts writes skills' letters left for people: "Text 4, Dancing 7?", a count that is
// not certain (Measured false) marked with "?" (UncertainLegend explains it).
func LetterCounts(skills []SkillState) string {
	parts := make([]string, len(skills))
	for i, s := range skills {
		parts[i] = fmt.Sprintf("%s %d", s.Name, s.Remaining)
		if !s.Measured {
			parts[i] += "?"
		}
	}
	return strings.Join(parts, ", ")
}

// UncertainLegend explains the "?" of the counts of skills that are not certain, once for
// them all ("" when every count is certain), true of each: a count above 0 may hold letters
// counted as left (not located on the fresh sheet, too close to a tear to call, or on paper
// an unmeasured tear took) or be a weak read's; a 0 is not certain only because a weak read
// located the skill (letters counted as left never leave a 0).
func UncertainLegend(skills []SkillState) string {
	var some, none bool
	for _, s := range skills {
		if !s.Measured {
			some = some || s.Remaining > 0
			none = none || s.Remaining <= 0
		}
	}
	var say []string
	if some {
		say = append(say, "a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read")
	}
	if none {
		say = append(say, "a 0? skill was located on the fresh sheet by a weak read, which may be another word: the GM confirms whether a full letter of it is left")
	}
	if len(say) == 0 {
		return ""
	}
	return "?: not certain: " + strings.Join(say, "; ")
}

// pluralWord is one when n is 1, else many ("1 letter", "2 letters").
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
