package judge

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors for tears and skill uses a character cannot make. Callers map them to bad
// usage (exit 2) with errors.Is.
var (
	ErrUnknownSkill = errors.New("unknown skill")
	ErrSkillLost    = errors.New("skill lost")
	ErrOut          = errors.New("character out")
	ErrNoSkill      = errors.New("no skill named")
	ErrUnknownKind  = errors.New("unknown tear kind")
)

// Character is one player's character as the judge knows it: the declared skills, which of
// their letters are still whole on the sheet, the tears owed after faux pas, whether the
// remaining paper still covers the template, and whether (and why) the character is out.
// It carries state from tear to tear; Rule is its only mutator. The zero value is not
// usable: make one with NewCharacter.
type Character struct {
	name   string
	skills []skillTrack
	owed   int
	paper  bool // the template fits on the remaining sheet (true on the fresh sheet)
	// paperDoubt is the tear after which the fit was measured in doubt (0: no doubt).
	paperDoubt int
	out        OutReason
	outAt      int // index of the tear that put the character out
	// undecidedAt is the last tear whose verdict was left undecided (0: none): owed tears
	// wait for its verdict.
	undecidedAt int
	ruled       int // tears ruled so far
	// at is the index of the tear being ruled (for the GM's advice).
	at int
	// gmAdvice says how the GM records a ruling (SetGMAdvice); nil: in the manifest.
	gmAdvice GMAdvice
}

// GMAdvice ends an undecided reason's advice to the GM ("..., then records the ruling on this
// tear (gm: in the manifest)"): how the GM records a ruling on tear index of player in the
// mode tearcam runs in, as words that follow "then" ("records the ruling on this tear:
// types ...").
type GMAdvice func(player string, index int) string

// ManifestGMAdvice is the default GMAdvice (audit): the ruling goes in the manifest.
func ManifestGMAdvice(string, int) string {
	return "records the ruling on this tear (gm: in the manifest)"
}

// SetGMAdvice makes undecided reasons end with advice's words on how the GM records a
// ruling (nil: ManifestGMAdvice). watch, where the GM types the ruling or uses the live
// page's form, sets its own.
func (c *Character) SetGMAdvice(advice GMAdvice) { c.gmAdvice = advice }

// gmHow is how the GM records a ruling on the tear being ruled.
func (c *Character) gmHow() string {
	if c.gmAdvice == nil {
		return ManifestGMAdvice(c.name, c.at)
	}
	return c.gmAdvice(c.name, c.at)
}

// skillTrack is one declared skill's letters.
type skillTrack struct {
	name    string
	left    []bool // per letter (reading order): still whole on the sheet
	located []bool // per letter: its outline was found on the fresh sheet
	// doubtful, per letter: counted as left although the last decided tear passed within
	// measurement error of its ink (LetterAmbiguous), so whole or cut could not be told.
	doubtful []bool
	// weak: ocr/ located the skill on a weak read (Confidence under WeakReadConfidence): its
	// letters may lie on another word, so no count of it is a measurement.
	weak       bool
	confidence float64
	// identity: ocr/'s estimated probability that the ink located is the skill's own word
	// (SkillLayout.Identity; its Confidence when a layout gives none, a lower bound of it).
	identity float64
	// doubt: why the ink located may not be the skill's beyond the confidences
	// (SkillLayout.Doubt: it reads as well in another place).
	doubt string
	// staleSince is the index of the tear since which the letters left are not measured
	// (0: they are): a tear whose paper loss was not measured (refused, in doubt, not
	// allowed) may have torn letters off, and they are counted as left until a later
	// measurement, made against the last measured sheet, says which went (LetterGone).
	staleSince int
	// gmConfirmed: the count left is the GM's (GMRuling.Remaining), confirmed, until a later
	// measurement or an unmeasured tear changes it.
	gmConfirmed bool
	// gmPicked: the GM's count was given on a tear whose letters were not measured, so which
	// letters are left was picked (setRemaining); a later measurement, made against an older
	// sheet, says which are whole, and gmCount (the GM's count) caps it.
	gmPicked bool
	gmCount  int
	// gmZero: the GM's last count of the skill (GMRuling.Remaining, or out: no_skills_left)
	// was 0. No letter comes back to the sheet, so the 0 stays certain through later tears
	// (a tester: a weak read's "0?" came back on the tear after the GM ruled the skill at 0,
	// and throw offered --gm-confirms for a skill the GM had ruled lost).
	gmZero bool
}

// VerdictReadConfidence is the location confidence under which the skill torn for makes
// the verdict undecided, when its word is not sure either (VerdictIdentityConfidence;
// unless another fault makes the tear a faux pas either way): ocr/'s calibration finds 52%
// of locations right in [0.3, 0.5), a coin flip, and 74% in [0.5, 0.6). Between it and
// WeakReadConfidence the verdict stands and the counts carry '?'.
const VerdictReadConfidence = 0.5

// VerdictIdentityConfidence is the identity confidence (SkillLayout.Identity: the
// estimated probability that the ink located is the skill's own word) at or above which a
// weak location of the skill torn for leaves the verdict standing: its doubt is about the
// letters' cuts, which the letter states carry, not about the word. ocr/'s identity
// calibration (873 located skills, 15 of them on another word) found on their own word:
//
//	identity     skills  on their word
//	[0.00, 0.50)      8  50%
//	[0.50, 0.70)      4  75%
//	[0.70, 0.90)     34  85%
//	[0.90, 0.95)     28  89%
//	[0.95, 0.99)     92  98.9%
//	[0.99, 1.00]    707  99.9%
//
// Under 0.95 about one in seven is another word, and nothing measured tells which (most are
// reads under 60% like the name); from 0.95 up, one in a hundred. Under the old rule alone
// (location confidence under VerdictReadConfidence) 9 of the 15 skills on another word and
// 36 on their own were undecided; with this bar the same 9, and 27 on their own. On the
// synthetic sets this gave back the tears that only the letters' cuts had made undecided;
// the others were skills read under 60% like their name, whose word is itself in doubt.
const VerdictIdentityConfidence = 0.95

// WeakReadConfidence is the location confidence (SkillLayout.Confidence) under which a
// skill's letters left are never reported as measured: ocr/'s own bar for a confident
// location (its re-read after tears checks only skills at or above it). ocr/'s confidence is
// calibrated: the estimated probability that the skill lies on its own word with every
// letter's outline on that letter, so under this bar the layout is more than 40% likely wrong. A skill placed on the
// wrong word (a weak read of another word) would otherwise lose letters, or be lost, "for
// certain" when that word is torn.
const WeakReadConfidence = 0.6

func (s skillTrack) remaining() int {
	n := 0
	for _, l := range s.left {
		if l {
			n++
		}
	}
	return n
}

// measured reports whether every letter counted as left was located on the fresh sheet and
// called whole by the last measurement, so that the count left comes from measurements.
func (s skillTrack) measured() bool {
	if s.gmZero && s.remaining() == 0 {
		return true // the GM's 0: no letter comes back
	}
	if s.gmConfirmed && s.staleSince == 0 {
		return true // the GM's count
	}
	if s.weak || (s.staleSince > 0 && s.remaining() > 0) {
		return false
	}
	for i, l := range s.left {
		if l && (!s.located[i] || (s.doubtful != nil && s.doubtful[i])) {
			return false
		}
	}
	return true
}

// measuredIgnoringDoubt is measured without the doubtful letters: every letter counted as
// left was located on the fresh sheet.
func (s skillTrack) measuredIgnoringDoubt() bool {
	for i, l := range s.left {
		if l && !s.located[i] {
			return false
		}
	}
	return true
}

func (s skillTrack) everLocated() bool {
	for _, l := range s.located {
		if l {
			return true
		}
	}
	return false
}

// NewCharacter makes a character on a fresh sheet: every letter of every declared skill is
// on the sheet (the player wrote them all), the template fits on the paper, nothing is owed.
// skills are the declared names in declaration order; layouts are what ocr/ located on the
// fresh sheet, matched to skills by name (a skill without a layout, or a letter without an
// outline, is "not located": it is counted as left until a measurement says otherwise).
func NewCharacter(name string, skills []string, layouts []SkillLayout) *Character {
	byName := make(map[string]SkillLayout, len(layouts))
	for _, l := range layouts {
		byName[l.Name] = l
	}
	c := &Character{name: name, paper: true}
	for _, s := range skills {
		n := Letters(s)
		l := byName[s]
		t := skillTrack{name: s, left: make([]bool, n), located: make([]bool, n),
			weak: l.Located > 0 && l.Confidence < WeakReadConfidence, confidence: l.Confidence, identity: l.Identity, doubt: l.Doubt}
		if t.identity == 0 {
			t.identity = l.Confidence
		}
		for i := range n {
			t.left[i] = true
			t.located[i] = i < len(l.Letters) && len(l.Letters[i].Outline) > 0
		}
		c.skills = append(c.skills, t)
	}
	return c
}

// NewCharacterFromLayouts is NewCharacter with the skills taken from the layouts' names.
func NewCharacterFromLayouts(name string, layouts []SkillLayout) *Character {
	names := make([]string, len(layouts))
	for i, l := range layouts {
		names[i] = l.Name
	}
	return NewCharacter(name, names, layouts)
}

// Name is the character's (player's) name.
func (c *Character) Name() string { return c.name }

// Owed is the number of tears owed after faux pas and not yet paid by penalty tears.
func (c *Character) Owed() int { return c.owed }

// Out reports whether the character is out of the game, and why.
func (c *Character) Out() (bool, OutReason) { return c.out != OutNone, c.out }

// PaperFitsTemplate reports whether the template fits on the remaining sheet, as of the last
// decided tear (true on the fresh sheet).
func (c *Character) PaperFitsTemplate() bool { return c.paper }

// Skills is every declared skill, in declaration order, with its full letters left.
func (c *Character) Skills() []SkillState {
	out := make([]SkillState, len(c.skills))
	for i, s := range c.skills {
		r := s.remaining()
		out[i] = SkillState{Name: s.name, Remaining: r, Available: r > 0 && c.out == OutNone, Measured: s.measured()}
	}
	return out
}

func (c *Character) skill(name string) (int, bool) {
	for i, s := range c.skills {
		if s.name == name {
			return i, true
		}
	}
	// Tolerate case and surrounding space differences, as a GM would.
	for i, s := range c.skills {
		if strings.EqualFold(strings.TrimSpace(s.name), strings.TrimSpace(name)) {
			return i, true
		}
	}
	return -1, false
}

// CanUse says whether the character may use the named skill now (to throw, check or tear
// for it): nil, or an error wrapping ErrOut, ErrUnknownSkill or ErrSkillLost.
func (c *Character) CanUse(skill string) error {
	if c.out != OutNone {
		return fmt.Errorf("%s is out (%s): %w", c.name, c.out, ErrOut)
	}
	i, ok := c.skill(skill)
	if !ok {
		return fmt.Errorf("%s has no skill %q: %w", c.name, skill, ErrUnknownSkill)
	}
	if c.skills[i].remaining() == 0 && c.skills[i].weak && !c.skills[i].gmZero {
		return fmt.Errorf("%s may have lost %q: no letter is left where a weak read (%.0f%%) located it on the fresh sheet; the GM confirms where it is written: %w", c.name, c.skills[i].name, 100*c.skills[i].confidence, ErrSkillLost)
	}
	if c.skills[i].remaining() == 0 {
		return fmt.Errorf("%s: %q has no full letter left: %w", c.name, c.skills[i].name, ErrSkillLost)
	}
	return nil
}

// Validate checks a tear before it is made: a known kind; for use and damage, a skill of
// this character; for penalty, no skill or one of the character's skills. A named skill that
// is lost is ErrSkillLost: a lost skill cannot be used, and for damage or a penalty the GM
// must name a skill with letters left (no full letter of a lost skill can be torn off). It
// does not look at whether the character is out (Rule answers that with a ruling).
func (c *Character) Validate(t Tear) error {
	switch t.Kind {
	case KindUse, KindDamage:
		if strings.TrimSpace(t.Skill) == "" {
			return fmt.Errorf("%s tear names no skill: %w", t.Kind, ErrNoSkill)
		}
	case KindPenalty:
		if strings.TrimSpace(t.Skill) == "" {
			return nil
		}
	case KindLastDitch:
		return nil
	default:
		return fmt.Errorf("%q: %w", t.Kind, ErrUnknownKind)
	}
	i, ok := c.skill(t.Skill)
	if !ok {
		return fmt.Errorf("%s has no skill %q: %w", c.name, t.Skill, ErrUnknownSkill)
	}
	if c.skills[i].remaining() == 0 && c.skills[i].weak && !c.skills[i].gmZero {
		// Not a certain loss: the letters counted gone are where a weak read put the skill.
		return fmt.Errorf("%s may have lost %q: no letter is left where a weak read (%.0f%%) located it on the fresh sheet, which may be another word; the GM confirms where it is written: %w", c.name, c.skills[i].name, 100*c.skills[i].confidence, ErrSkillLost)
	}
	if c.skills[i].remaining() == 0 {
		if t.Kind != KindUse {
			return fmt.Errorf("%s: %q has no full letter left: the GM must name a skill with letters left: %w", c.name, c.skills[i].name, ErrSkillLost)
		}
		return fmt.Errorf("%s: %q has no full letter left: it cannot be used: %w", c.name, c.skills[i].name, ErrSkillLost)
	}
	return nil
}
