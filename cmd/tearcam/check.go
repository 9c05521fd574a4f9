package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"tearcam/engine"
)

// checkSide is one side's check flags: skill level and competence, bonuses, penalties.
type checkSide struct {
	Level   int
	Trained bool
	Partial bool
	Bonus   []string
	Penalty []string
	Extra   int
	Dice    []int
}

// checkOptions holds the parsed flags of `tearcam check`.
type checkOptions struct {
	IO *IO
	characterFlags

	Skill string
	Self  checkSide // the character's check
	Opp   checkSide // the opponent's (opposed check) or the target's defence (attack)

	TS    int
	HasTS bool // --ts was given

	Opposed   bool // an opposed check against the opponent
	Defending bool // the opponent instigated: it wins ties

	Attack          bool
	Armour          int
	Defence         bool // the target defends with a check (the --opp-* flags)
	Melee           bool
	Deadly          bool
	Precise         bool
	Powerful        bool
	Fast            bool
	WoundedLocation bool

	Seed uint64
	JSON bool

	// Source is the random source (set from --seed).
	Source engine.Source
	// OppFlagsSet is true when any --opp-* flag was given.
	OppFlagsSet bool
}

func newCheckCmd(iostreams *IO, runF func(*checkOptions) error) *cobra.Command {
	opts := &checkOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Make a 3d6 check: against a TS, opposed, or an attack",
		Long: `Roll 3d6 and add the skill (partial: half the level rounded up; trained: the level; levels
2 to 6), +1 per bonus and -1 per penalty (they stack; repeat one that applies twice).

  --ts N          a check against a target score: meet or beat it; 3 or more over is a critical
                  success, failing by more than 3 a critical failure
  --opposed       an opposed check against the --opp-* side; the attacker or instigator wins
                  ties (--defending when the opponent instigated)
  --attack        an attack against --armour (9 unarmoured) or, with --defence, the target's
                  defence check (--opp-*) when it beats the armour; a hit is a serious wound, 3 or
                  more over what was required a critical one; any 6 rolled lets the wound go
                  anywhere, otherwise only an arm or a leg

With none of them, the roll and score are printed. Dice come from --seed (reproducible) or
crypto/rand, or are given with --dice 3,4,5 (physical dice).

With --db and --player the character comes from the session database: it can check only with
a skill that still has a full letter on its sheet, and not at all once out; the roll is
recorded there. A count of 0 letters that is not certain (0? in the rulings) refuses the
skill too, unless the GM, having looked at the sheet, says --gm-confirms.`,
		Example: `  tearcam check --skill Lockpicking --level 3 --trained --bonus advantage,right-tool --ts 14
  tearcam check --skill Swordsmanship --level 4 --partial --attack --melee --defence --opp-level 2 --opp-trained
  tearcam check --db tearcam.db --player Ann --skill Archery --level 2 --trained --opposed --seed 7 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = diceSource(cmd, opts.Seed)
			opts.HasTS = cmd.Flags().Changed("ts")
			for _, n := range []string{"opp-level", "opp-trained", "opp-partial", "opp-bonus", "opp-penalty", "opp-extra", "opp-dice"} {
				opts.OppFlagsSet = opts.OppFlagsSet || cmd.Flags().Changed(n)
			}
			if runF != nil {
				return runF(opts)
			}
			return runCheck(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Skill, "skill", "", "the skill used")
	addSide := func(prefix, who string, s *checkSide) {
		f.IntVar(&s.Level, prefix+"level", 0, who+" level, 2..6")
		f.BoolVar(&s.Trained, prefix+"trained", false, who+" skill is trained: add the level")
		f.BoolVar(&s.Partial, prefix+"partial", false, who+" skill is partial: add half the level, rounded up")
		f.StringSliceVar(&s.Bonus, prefix+"bonus", nil, who+" bonuses, +1 each: "+modifierNames(1))
		f.StringSliceVar(&s.Penalty, prefix+"penalty", nil, who+" penalties, -1 each: "+modifierNames(-1))
		f.IntVar(&s.Extra, prefix+"extra", 0, who+" other adjustment the GM allows")
		f.IntSliceVar(&s.Dice, prefix+"dice", nil, who+" dice, if rolled by hand: three values 1..6")
	}
	addSide("", "the character's", &opts.Self)
	addSide("opp-", "the opponent's", &opts.Opp)
	f.IntVar(&opts.TS, "ts", 0, fmt.Sprintf("target score to meet or beat, %d..%d", engine.MinTS, engine.MaxTS))
	f.BoolVar(&opts.Opposed, "opposed", false, "an opposed check against the --opp-* side")
	f.BoolVar(&opts.Defending, "defending", false, "in an opposed check, the opponent instigated (it wins ties)")
	f.BoolVar(&opts.Attack, "attack", false, "an attack against --armour or the target's --defence")
	f.IntVar(&opts.Armour, "armour", engine.Unarmoured, fmt.Sprintf("the target's armour, %d (unarmoured)..%d", engine.MinArmour, engine.MaxArmour))
	f.BoolVar(&opts.Defence, "defence", false, "the target makes a defence check (the --opp-* side)")
	f.BoolVar(&opts.Melee, "melee", false, "a melee attack: failing by 3 or more loses a reaction")
	f.BoolVar(&opts.Deadly, "deadly", false, "a deadly attack: counts one higher for the kind of wound")
	f.BoolVar(&opts.Precise, "precise", false, "a precise attack: any location, 6s or not")
	f.BoolVar(&opts.Powerful, "powerful", false, "a powerful attack: +1")
	f.BoolVar(&opts.Fast, "fast", false, "the target defends with a fast weapon: a successful defence counts one higher")
	f.BoolVar(&opts.WoundedLocation, "wounded-location", false, "the attack strikes a location already seriously wounded")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed the dice for reproducible play (default: crypto/rand)")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	opts.characterFlags.add(cmd)
	refuseRepeats(f)
	return cmd
}

// checkReport is what `check` prints with --json and records in the database.
type checkReport struct {
	Player string `json:"player,omitempty"`
	// GMConfirmed: the skill was used on the GM's word (--gm-confirms), and what was confirmed.
	GMConfirmed string                `json:"gm_confirmed,omitempty"`
	Kind        string                `json:"kind"` // roll, check, opposed or attack
	Source      string                `json:"source"`
	Roll        *engine.Roll          `json:"roll,omitempty"`
	Check       *engine.CheckResult   `json:"check,omitempty"`
	Opposed     *engine.OpposedResult `json:"opposed,omitempty"`
	Defending   bool                  `json:"defending,omitempty"`
	Won         *bool                 `json:"won,omitempty"` // opposed: did the character win
	Attack      *engine.AttackResult  `json:"attack,omitempty"`
}

// spec builds one side's CheckSpec from its flags.
func (s checkSide) spec(prefix, skill string) (engine.CheckSpec, error) {
	cs := engine.CheckSpec{Skill: skill, Level: s.Level, Extra: s.Extra}
	switch {
	case s.Trained && s.Partial:
		return cs, usageErrorf("--%strained and --%spartial exclude each other", prefix, prefix)
	case s.Trained:
		cs.Competence = engine.Trained
	case s.Partial:
		cs.Competence = engine.Partial
	case s.Level != 0:
		return cs, usageErrorf("--%slevel needs --%strained or --%spartial", prefix, prefix, prefix)
	}
	if cs.Competence != engine.Untrained && (s.Level < engine.MinLevel || s.Level > engine.MaxLevel) {
		return cs, usageErrorf("--%slevel %d: levels are %d to %d", prefix, s.Level, engine.MinLevel, engine.MaxLevel)
	}
	for _, group := range []struct {
		flag  string
		names []string
		sign  int
	}{{"bonus", s.Bonus, 1}, {"penalty", s.Penalty, -1}} {
		for _, n := range group.names {
			m, err := engine.ParseModifier(n)
			if err != nil || m.Value() != group.sign {
				return cs, usageErrorf("--%s%s %q: not a %s (want one of %s)", prefix, group.flag, n, group.flag, modifierNames(group.sign))
			}
			cs.Modifiers = append(cs.Modifiers, m)
		}
	}
	if err := cs.Validate(); err != nil {
		return cs, &UsageError{Err: err}
	}
	return cs, nil
}

// dice returns the side's hand-rolled dice, or rolls them.
func (s checkSide) dice(prefix string, src engine.Rand) (engine.Dice, bool, error) {
	if len(s.Dice) == 0 {
		return engine.Roll3d6(src), false, nil
	}
	if len(s.Dice) != 3 {
		return engine.Dice{}, false, usageErrorf("--%sdice: want three dice, got %d", prefix, len(s.Dice))
	}
	d := engine.Dice{s.Dice[0], s.Dice[1], s.Dice[2]}
	if !d.Valid() {
		return d, false, usageErrorf("--%sdice: each die is 1 to 6", prefix)
	}
	return d, true, nil
}

func runCheck(opts *checkOptions) error {
	modes := 0
	for _, on := range []bool{opts.HasTS, opts.Opposed, opts.Attack} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageErrorf("--ts, --opposed and --attack exclude each other")
	}
	if opts.OppFlagsSet && !opts.Opposed && !(opts.Attack && opts.Defence) {
		return usageErrorf("the --opp-* flags need --opposed, or --attack with --defence")
	}
	if opts.Defending && !opts.Opposed {
		return usageErrorf("--defending needs --opposed")
	}
	if opts.Defence && !opts.Attack {
		return usageErrorf("--defence needs --attack")
	}
	// The ranges come from seed 003 (engine.MinTS, engine.MinArmour and their maxima).
	if opts.HasTS && engine.ValidateTS(opts.TS) != nil {
		return usageErrorf("--ts %d: %v", opts.TS, engine.ErrTS)
	}
	if engine.ValidateArmour(opts.Armour) != nil {
		return usageErrorf("--armour %d: %v", opts.Armour, engine.ErrArmour)
	}
	self, err := opts.Self.spec("", opts.Skill)
	if err != nil {
		return err
	}
	var opp engine.CheckSpec
	if opts.Opposed || opts.Defence {
		if opp, err = opts.Opp.spec("opp-", ""); err != nil {
			return err
		}
	}
	opts.warn = opts.IO.ErrOut
	src, err := opts.openCharacter(opts.Skill)
	if err != nil {
		return err
	}
	if src != nil {
		defer src.Close()
	}
	if opts.declared != "" {
		// Shown and recorded as the sheet declares it (a tester: "HAND" recorded for hand).
		opts.Skill, self.Skill = opts.declared, opts.declared
	}

	da, handA, err := opts.Self.dice("", opts.Source)
	if err != nil {
		return err
	}
	rep := checkReport{Player: opts.Player, GMConfirmed: opts.confirmed, Source: opts.Source.Name}
	hand := handA
	switch {
	case opts.HasTS:
		r := engine.Check(self, opts.TS, da)
		rep.Kind, rep.Check = "check", &r
	case opts.Opposed:
		dd, handD, err := opts.Opp.dice("opp-", opts.Source)
		if err != nil {
			return err
		}
		hand = hand && handD
		var r engine.OpposedResult
		if opts.Defending {
			r = engine.Opposed(opp, self, dd, da)
		} else {
			r = engine.Opposed(self, opp, da, dd)
		}
		won := r.AttackerWins != opts.Defending
		rep.Kind, rep.Opposed, rep.Defending, rep.Won = "opposed", &r, opts.Defending, &won
	case opts.Attack:
		a := engine.Attack{Check: self, Armour: opts.Armour, Melee: opts.Melee, Deadly: opts.Deadly,
			Precise: opts.Precise, Powerful: opts.Powerful, Fast: opts.Fast, WoundedLocation: opts.WoundedLocation}
		var dd engine.Dice
		if opts.Defence {
			a.Defence = &opp
			var handD bool
			if dd, handD, err = opts.Opp.dice("opp-", opts.Source); err != nil {
				return err
			}
			hand = hand && handD
		}
		r := engine.ResolveAttack(a, da, dd)
		rep.Kind, rep.Attack = "attack", &r
	default:
		r := engine.NewRoll(self, da)
		rep.Kind, rep.Roll = "roll", &r
	}
	if hand {
		rep.Source = "dice"
	}
	if src != nil {
		// Recorded before it is reported: nothing is shown that the database lacks.
		if err := src.RecordRoll(opts.Player, "check", rep); err != nil {
			return fmt.Errorf("record check: %w", err)
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	return printCheck(opts.IO.Out, opts, rep)
}

// modifierName is a modifier as the flags spell it: "no-pressure" for engine's
// "no_pressure" (either is accepted).
func modifierName(m engine.Modifier) string { return strings.ReplaceAll(string(m), "_", "-") }

// modifierNames lists the bonuses (sign 1) or penalties (sign -1) as the flags spell them.
func modifierNames(sign int) string {
	var names []string
	for _, m := range engine.Modifiers {
		if m.Value() == sign {
			names = append(names, modifierName(m))
		}
	}
	return strings.Join(names, ", ")
}

func describeSpec(s engine.CheckSpec) string {
	return describeParts(specParts(s))
}

// specParts are the named parts of a spec's bonus ("trained level 3 +3", "advantage +1").
func specParts(s engine.CheckSpec) []string {
	var parts []string
	if s.Competence != engine.Untrained {
		parts = append(parts, fmt.Sprintf("%s level %d %+d", s.Competence, s.Level, engine.SkillBonus(s.Level, s.Competence)))
	}
	for _, m := range s.Modifiers {
		parts = append(parts, fmt.Sprintf("%s %+d", strings.ReplaceAll(string(m), "_", " "), m.Value()))
	}
	if s.Extra != 0 {
		parts = append(parts, fmt.Sprintf("extra %+d", s.Extra))
	}
	return parts
}

func describeParts(parts []string) string {
	if len(parts) == 0 {
		return "no skill bonus"
	}
	return strings.Join(parts, ", ")
}

// describeRoll names every part of the roll's bonus: its spec's, and what the engine added
// beyond it, which only a fast weapon's successful defence does (engine.ResolveAttack; a
// tester: "defence: dice 4+4+4 = 12, +1 (no skill bonus): score 13" for --fast).
func describeRoll(r engine.Roll) string {
	parts := specParts(r.Spec)
	if d := r.Bonus - r.Spec.Bonus(); d != 0 {
		parts = append(parts, fmt.Sprintf("fast weapon %+d", d))
	}
	return fmt.Sprintf("dice %d+%d+%d = %d, %+d (%s): score %d",
		r.Dice[0], r.Dice[1], r.Dice[2], r.Dice.Total(), r.Bonus, describeParts(parts), r.Score)
}

var outcomeText = map[engine.Outcome]string{
	engine.CriticalSuccess: "critical success",
	engine.Success:         "success",
	engine.Failure:         "failure",
	engine.CriticalFailure: "critical failure",
}

func printCheck(w io.Writer, opts *checkOptions, rep checkReport) error {
	var b strings.Builder
	who := "Check"
	if rep.Player != "" {
		who += " by " + rep.Player
	}
	if opts.Skill != "" {
		who += " with " + opts.Skill
	}
	b.WriteString(who + "\n")
	switch rep.Kind {
	case "roll":
		fmt.Fprintf(&b, "%s\n", describeRoll(*rep.Roll))
	case "check":
		r := rep.Check
		fmt.Fprintf(&b, "%s\n", describeRoll(r.Roll))
		fmt.Fprintf(&b, "vs TS %d: %s (margin %+d)\n", r.TS, outcomeText[r.Outcome], r.Margin)
	case "opposed":
		r := rep.Opposed
		me, them := r.Attacker, r.Defender
		role := "instigator"
		if rep.Defending {
			me, them, role = r.Defender, r.Attacker, "defender"
		}
		fmt.Fprintf(&b, "%s (%s)\n", describeRoll(me), role)
		fmt.Fprintf(&b, "opponent: %s\n", describeRoll(them))
		res := "lost"
		if *rep.Won {
			res = "won"
		}
		fmt.Fprintf(&b, "%s (the attacker or instigator wins ties; attacker's margin %+d, %s)\n",
			res, r.Margin, outcomeText[r.Outcome])
	case "attack":
		r := rep.Attack
		fmt.Fprintf(&b, "attack: %s\n", describeRoll(r.Attack))
		if r.Defence != nil {
			fmt.Fprintf(&b, "defence: %s\n", describeRoll(*r.Defence))
		}
		if r.DefenceCounts {
			fmt.Fprintf(&b, "the defence beats armour %d: the attack needs %d\n", r.Armour, r.Required)
		} else {
			fmt.Fprintf(&b, "armour %d: the attack needs more, %d\n", r.Armour, r.Required)
		}
		if r.Hit {
			fmt.Fprintf(&b, "hit (margin %+d): %s wound\n", r.Margin, r.Wound)
			where := "an arm or a leg (no 6 rolled)"
			if len(r.Locations) == 6 {
				where = "any location"
			}
			fmt.Fprintf(&b, "location: %s\n", where)
		} else {
			fmt.Fprintf(&b, "miss (margin %+d)\n", r.Margin)
			if r.LosesReaction {
				b.WriteString("a melee miss by 3 or more: the attacker loses a reaction (with none left, disadvantage until the start of their next turn)\n")
			}
		}
	default:
		return errors.New("check: unknown result")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
