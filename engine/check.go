package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Levels (seed 003 "Levels and experience"): characters start at level 2; the cap is 6.
const (
	MinLevel = 2
	MaxLevel = 6
)

// Unarmoured is the armour of a normal, unarmoured target (seed 003).
const Unarmoured = 9

// MaxModifier is the most a check adds to its dice that the rules plan for: seed 003 says
// "an enterprising player with some bonuses and good gear should have difficulty getting
// modifiers much higher than 9 for checks".
const MaxModifier = 9

// The range of a target score (seed 003 "Making checks": 3d6 plus modifiers, "equalled or
// beaten"). MinTS is the least 3d6 total, 3; MaxTS the best score the rules plan for, 18 on
// the dice plus MaxModifier, 27. A TS outside it is a typo, not a difficulty.
const (
	MinTS = 3
	MaxTS = 18 + MaxModifier
)

// The range of a target's armour (seed 003 "Making and avoiding attacks"). Armour is 9 for
// "a normal, unarmoured target" and only protects: MinArmour is Unarmoured. An attack must
// score more than the armour, so MaxArmour is one under the best score the rules plan for
// (MaxTS): armour no attack could ever beat is a typo.
const (
	MinArmour = Unarmoured
	MaxArmour = MaxTS - 1
)

// ErrTS and ErrArmour are returned for a target score or an armour out of range.
var (
	ErrTS     = fmt.Errorf("target scores are %d to %d", MinTS, MaxTS)
	ErrArmour = fmt.Errorf("armour is %d (unarmoured) to %d", MinArmour, MaxArmour)
)

// ValidateTS checks a target score is in MinTS..MaxTS.
func ValidateTS(ts int) error {
	if ts < MinTS || ts > MaxTS {
		return fmt.Errorf("TS %d: %w", ts, ErrTS)
	}
	return nil
}

// ValidateArmour checks an armour is in MinArmour..MaxArmour.
func ValidateArmour(armour int) error {
	if armour < MinArmour || armour > MaxArmour {
		return fmt.Errorf("armour %d: %w", armour, ErrArmour)
	}
	return nil
}

// CriticalMargin is the margin of a critical success (at least 3 over what was required)
// and of a critical failure (failing by more than 3: 4 or more under).
const CriticalMargin = 3

// Competence is how well a character knows the skill used for a check.
type Competence int

// The competences (seed 003 "Skills and Customisations"): partial adds half the level
// rounded up; trained adds the level; none adds nothing.
const (
	Untrained Competence = iota
	Partial
	Trained
)

func (c Competence) String() string {
	switch c {
	case Partial:
		return "partial"
	case Trained:
		return "trained"
	}
	return "untrained"
}

// MarshalText writes the competence by name.
func (c Competence) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a competence name: untrained (or empty), partial or trained.
func (c *Competence) UnmarshalText(b []byte) error {
	for _, v := range []Competence{Untrained, Partial, Trained} {
		if string(b) == v.String() {
			*c = v
			return nil
		}
	}
	if len(b) == 0 {
		*c = Untrained
		return nil
	}
	return fmt.Errorf("competence %q: want untrained, partial or trained", b)
}

// SkillBonus is what a skill adds to a check at a level: trained, the level; partial, half
// the level rounded up (2..6 give 1, 2, 2, 3, 3); untrained, 0.
func SkillBonus(level int, c Competence) int {
	switch c {
	case Trained:
		return level
	case Partial:
		return (level + 1) / 2
	}
	return 0
}

// Modifier is one circumstance that adds +1 (a bonus) or -1 (a penalty) to a check (seed
// 003 "Bonuses and penalties"). They stack: each one that applies counts, and the same one
// may be given more than once when it applies more than once (two wounds that each
// disadvantage the check are two disadvantages).
type Modifier string

// The bonuses (+1 each).
const (
	Advantage  Modifier = "advantage"
	NoPressure Modifier = "no_pressure"
	RightTool  Modifier = "right_tool"
	SpendBig   Modifier = "spend_big"
)

// The penalties (-1 each).
const (
	Disadvantage  Modifier = "disadvantage"
	TimeIsAFactor Modifier = "time_is_a_factor"
	WrongTool     Modifier = "wrong_tool"
)

// Modifiers is every known Modifier: the bonuses, then the penalties.
var Modifiers = []Modifier{Advantage, NoPressure, RightTool, SpendBig, Disadvantage, TimeIsAFactor, WrongTool}

// ErrModifier is returned for an unknown bonus or penalty name.
var ErrModifier = errors.New("unknown bonus or penalty")

// ParseModifier reads a Modifier name; dashes and spaces may stand for underscores
// ("no-pressure", "time is a factor").
func ParseModifier(s string) (Modifier, error) {
	n := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, m := range Modifiers {
		if string(m) == n {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q: %w (want one of %s)", s, ErrModifier, joinModifiers())
}

func joinModifiers() string {
	names := make([]string, len(Modifiers))
	for i, m := range Modifiers {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Value is +1 for a bonus, -1 for a penalty, 0 for an unknown name.
func (m Modifier) Value() int {
	switch m {
	case Advantage, NoPressure, RightTool, SpendBig:
		return 1
	case Disadvantage, TimeIsAFactor, WrongTool:
		return -1
	}
	return 0
}

// Errors for checks that cannot be made.
var ErrLevel = errors.New("level must be 2..6")

// CheckSpec is everything added to a check's 3d6.
type CheckSpec struct {
	Skill      string     `json:"skill,omitempty"`
	Level      int        `json:"level"`
	Competence Competence `json:"competence"`
	Modifiers  []Modifier `json:"modifiers,omitempty"` // each +1 or -1, stacking
	// Extra is any other fixed adjustment the GM allows (e.g. +1 for a powerful weapon).
	Extra int `json:"extra,omitempty"`
}

// Validate checks the level (2..6; 0 is allowed for an untrained check with no level) and
// the modifier names.
func (s CheckSpec) Validate() error {
	if (s.Level != 0 || s.Competence != Untrained) && (s.Level < MinLevel || s.Level > MaxLevel) {
		return fmt.Errorf("level %d: %w", s.Level, ErrLevel)
	}
	for _, m := range s.Modifiers {
		if m.Value() == 0 {
			return fmt.Errorf("%q: %w", m, ErrModifier)
		}
	}
	return nil
}

// Bonus is everything added to the dice: the skill bonus, +1 per bonus, -1 per penalty, and
// Extra.
func (s CheckSpec) Bonus() int {
	b := SkillBonus(s.Level, s.Competence) + s.Extra
	for _, m := range s.Modifiers {
		b += m.Value()
	}
	return b
}

// Dice is one roll of three six-sided dice.
type Dice [3]int

// Roll3d6 rolls three six-sided dice from r.
func Roll3d6(r Rand) Dice { return Dice{r.IntN(6) + 1, r.IntN(6) + 1, r.IntN(6) + 1} }

// Total is the dice's sum, 3..18.
func (d Dice) Total() int { return d[0] + d[1] + d[2] }

// AnySix reports whether any die shows a 6 (seed 003: only then may an attack choose a
// location other than an arm or a leg).
func (d Dice) AnySix() bool { return d[0] == 6 || d[1] == 6 || d[2] == 6 }

// Valid reports whether every die is 1..6.
func (d Dice) Valid() bool {
	for _, v := range d {
		if v < 1 || v > 6 {
			return false
		}
	}
	return true
}

// Roll is one character's check: the dice, what was added, and the score.
type Roll struct {
	Spec  CheckSpec `json:"spec"`
	Dice  Dice      `json:"dice"`
	Bonus int       `json:"bonus"`
	Score int       `json:"score"` // dice total + bonus
}

// NewRoll scores dice under spec.
func NewRoll(spec CheckSpec, d Dice) Roll {
	b := spec.Bonus()
	return Roll{Spec: spec, Dice: d, Bonus: b, Score: d.Total() + b}
}

// Outcome grades a result against what was required.
type Outcome string

// The outcomes of a check.
const (
	CriticalSuccess Outcome = "critical_success" // at least 3 more than required
	Success         Outcome = "success"          // met or beat what was required
	Failure         Outcome = "failure"          // short by 1 to 3
	CriticalFailure Outcome = "critical_failure" // short by more than 3
)

// Grade grades a margin (score minus the least score that succeeds): >= 3 critical success,
// >= 0 success, -1..-3 failure, < -3 critical failure (seed 003 "Success and failure").
func Grade(margin int) Outcome {
	switch {
	case margin >= CriticalMargin:
		return CriticalSuccess
	case margin >= 0:
		return Success
	case margin >= -CriticalMargin:
		return Failure
	}
	return CriticalFailure
}

// Succeeded reports whether the outcome is a success, critical or not.
func (o Outcome) Succeeded() bool { return o == Success || o == CriticalSuccess }

// CheckResult is a check against a target score (TS).
type CheckResult struct {
	Roll    Roll    `json:"roll"`
	TS      int     `json:"ts"`
	Margin  int     `json:"margin"` // score - TS
	Outcome Outcome `json:"outcome"`
	Source  string  `json:"source,omitempty"`
}

// Check resolves a check against a TS: meet or beat to succeed.
func Check(spec CheckSpec, ts int, d Dice) CheckResult {
	r := NewRoll(spec, d)
	m := r.Score - ts
	return CheckResult{Roll: r, TS: ts, Margin: m, Outcome: Grade(m)}
}

// OpposedResult is an opposed check: the attacker (or instigator) wins ties.
type OpposedResult struct {
	Attacker     Roll    `json:"attacker"`
	Defender     Roll    `json:"defender"`
	AttackerWins bool    `json:"attacker_wins"`
	Margin       int     `json:"margin"`  // attacker's score - defender's score
	Outcome      Outcome `json:"outcome"` // the attacker's, the defender's score being what is required
	Source       string  `json:"source,omitempty"`
}

// Opposed resolves an opposed check. The defender's score is what the attacker must meet
// (ties go to the attacker), so the margins of critical success and failure are counted from
// it.
func Opposed(attacker, defender CheckSpec, da, dd Dice) OpposedResult {
	a, d := NewRoll(attacker, da), NewRoll(defender, dd)
	m := a.Score - d.Score
	return OpposedResult{Attacker: a, Defender: d, AttackerWins: m >= 0, Margin: m, Outcome: Grade(m)}
}

// Location is a hit location (seed 003 "Injury", numbered as there).
type Location int

// The locations.
const (
	LeftLeg Location = iota + 1
	RightLeg
	LeftArm
	RightArm
	Torso
	Head
)

func (l Location) String() string {
	switch l {
	case LeftLeg:
		return "left_leg"
	case RightLeg:
		return "right_leg"
	case LeftArm:
		return "left_arm"
	case RightArm:
		return "right_arm"
	case Torso:
		return "torso"
	case Head:
		return "head"
	}
	return fmt.Sprintf("Location(%d)", int(l))
}

// MarshalText writes the location by name.
func (l Location) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a location name.
func (l *Location) UnmarshalText(b []byte) error {
	for v := LeftLeg; v <= Head; v++ {
		if string(b) == v.String() {
			*l = v
			return nil
		}
	}
	return fmt.Errorf("location %q: want left_leg, right_leg, left_arm, right_arm, torso or head", b)
}

// Wound is what a hit inflicts.
type Wound string

// The wounds.
const (
	NoWound       Wound = ""
	SeriousWound  Wound = "serious"
	CriticalWound Wound = "critical"
)

// Attack is an attack check against a target (seed 003 "Making and avoiding attacks").
type Attack struct {
	Check  CheckSpec `json:"check"`
	Armour int       `json:"armour"` // the target's armour; Unarmoured (9) for none
	// Defence, when the target is aware and has a reaction left, is its defence check.
	Defence *CheckSpec `json:"defence,omitempty"`
	// Qualities of the attack or weapon that the rules above the dice care about.
	Melee    bool `json:"melee,omitempty"`    // a failure by 3 or more costs a reaction
	Deadly   bool `json:"deadly,omitempty"`   // counts one point higher for the kind of wound
	Precise  bool `json:"precise,omitempty"`  // any location, 6s or not
	Powerful bool `json:"powerful,omitempty"` // +1 to the attack check
	Fast     bool `json:"fast,omitempty"`     // the defender's weapon: a successful defence counts one higher
	// WoundedLocation: the attacker strikes a location already seriously wounded, so a hit
	// is a critical wound.
	WoundedLocation bool `json:"wounded_location,omitempty"`
}

// AttackResult is a resolved attack.
type AttackResult struct {
	Attack   Roll  `json:"attack"`
	Defence  *Roll `json:"defence,omitempty"`
	Armour   int   `json:"armour"`
	Required int   `json:"required"` // the least attack score that hits
	// DefenceCounts: the defence check beat the armour, so it set Required.
	DefenceCounts bool       `json:"defence_counts"`
	Hit           bool       `json:"hit"`
	Margin        int        `json:"margin"`       // attack score - Required
	WoundMargin   int        `json:"wound_margin"` // Margin, +1 when deadly and a hit
	Wound         Wound      `json:"wound"`
	AnySix        bool       `json:"any_six"`
	Locations     []Location `json:"locations"`      // where the attacker may place the wound
	LosesReaction bool       `json:"loses_reaction"` // a melee attack that failed by 3 or more
	Source        string     `json:"source,omitempty"`
}

// ResolveAttack resolves an attack from the attack's dice and, when there is a defence, the
// defence's dice (ignored otherwise).
//
// Required score (seed 003): when the defence check beats the armour, the attack must score
// at least the defence ("this is the minimum you need to score"); otherwise it must score
// more than the armour (armour + 1). A fast weapon's successful defence (one that already
// beats the armour) counts one point higher.
//
// Wounds: a hit is a serious wound; winning by 3 or more (the margin counted from Required,
// as "scoring at least 3 more than required" in "Success and failure"), or striking a
// location already seriously wounded, makes it critical; deadly adds one to the margin for
// this. The wound may go on an arm or a leg, or anywhere when any die showed a 6 or the
// attack is precise. A melee miss by 3 or more (Required - score >= 3) costs a reaction.
func ResolveAttack(a Attack, da, dd Dice) AttackResult {
	spec := a.Check
	if a.Powerful {
		spec.Extra++
	}
	res := AttackResult{Attack: NewRoll(spec, da), Armour: a.Armour, AnySix: da.AnySix()}
	res.Required = a.Armour + 1
	if a.Defence != nil {
		d := NewRoll(*a.Defence, dd)
		if a.Fast && d.Score > a.Armour {
			d.Bonus++
			d.Score++
		}
		res.Defence = &d
		if d.Score > a.Armour {
			res.DefenceCounts = true
			res.Required = d.Score
		}
	}
	res.Margin = res.Attack.Score - res.Required
	res.Hit = res.Margin >= 0
	res.Locations = []Location{}
	if !res.Hit {
		res.LosesReaction = a.Melee && res.Margin <= -CriticalMargin
		return res
	}
	res.WoundMargin = res.Margin
	if a.Deadly {
		res.WoundMargin++
	}
	res.Wound = SeriousWound
	if res.WoundMargin >= CriticalMargin || a.WoundedLocation {
		res.Wound = CriticalWound
	}
	res.Locations = []Location{LeftLeg, RightLeg, LeftArm, RightArm}
	if res.AnySix || a.Precise {
		res.Locations = append(res.Locations, Torso, Head)
	}
	return res
}
