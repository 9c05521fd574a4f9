package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/engine"
)

func TestCheckFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		check func(t *testing.T, o *checkOptions)
	}{
		{"defaults", "", func(t *testing.T, o *checkOptions) {
			assert.Equal(t, engine.Unarmoured, o.Armour)
			assert.False(t, o.HasTS)
			assert.False(t, o.OppFlagsSet)
			assert.Equal(t, "crypto/rand", o.Source.Name)
		}},
		{"ts", "--skill Lockpicking --level 3 --trained --bonus advantage,right-tool --penalty wrong-tool --ts 0 --seed 3",
			func(t *testing.T, o *checkOptions) {
				assert.Equal(t, "Lockpicking", o.Skill)
				assert.Equal(t, checkSide{Level: 3, Trained: true, Bonus: []string{"advantage", "right-tool"}, Penalty: []string{"wrong-tool"}}, o.Self)
				assert.True(t, o.HasTS, "--ts 0 is a TS")
				assert.Equal(t, 0, o.TS)
				assert.Equal(t, "seed:3", o.Source.Name)
			}},
		{"attack", "--attack --armour 11 --defence --opp-level 2 --opp-partial --opp-dice 1,2,3 --melee --deadly --precise --powerful --fast --wounded-location --dice 6,6,6",
			func(t *testing.T, o *checkOptions) {
				assert.True(t, o.Attack && o.Defence && o.Melee && o.Deadly && o.Precise && o.Powerful && o.Fast && o.WoundedLocation)
				assert.Equal(t, 11, o.Armour)
				assert.Equal(t, checkSide{Level: 2, Partial: true, Dice: []int{1, 2, 3}}, o.Opp)
				assert.Equal(t, []int{6, 6, 6}, o.Self.Dice)
				assert.True(t, o.OppFlagsSet)
			}},
		{"opposed", "--opposed --defending --opp-bonus advantage --opp-extra -1 --json", func(t *testing.T, o *checkOptions) {
			assert.True(t, o.Opposed && o.Defending && o.JSON)
			assert.Equal(t, checkSide{Bonus: []string{"advantage"}, Extra: -1}, o.Opp)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iostreams, _, _ := testIO()
			var got *checkOptions
			cmd := newCheckCmd(iostreams, func(o *checkOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tc.args))
			require.NoError(t, cmd.Execute())
			require.NotNil(t, got)
			tc.check(t, got)
		})
	}
}

func TestCheckBadUsageExitsTwo(t *testing.T) {
	for _, args := range []string{
		"check --level 7 --trained",
		"check --level 1 --partial",
		"check --trained",
		"check --level 3",
		"check --trained --partial --level 3",
		"check --bonus luck",
		"check --bonus disadvantage",
		"check --penalty advantage",
		"check --ts 12 --opposed",
		"check --opposed --attack",
		"check --opp-level 2 --opp-trained --ts 12",
		"check --defending",
		"check --defence",
		"check --dice 1,2",
		"check --dice 0,2,3",
		"check --dice x",
		"check --player Ann --skill Archery",
		"check --db t.db --player Ann",
		// Out of seed 003's ranges (engine.MinTS..MaxTS, MinArmour..MaxArmour).
		"check --ts -5",
		"check --ts 999",
		"check --ts 2",
		"check --attack --armour -1",
		"check --attack --armour 8",
		"check --attack --armour 27",
	} {
		t.Run(args, func(t *testing.T) {
			iostreams, out, errOut := testIO()
			assert.Equal(t, 2, Main(strings.Fields(args), iostreams))
			assert.Empty(t, out.String())
			assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
		})
	}
}

// TestCheckRanges: --ts and --armour are refused outside seed 003's ranges with one line
// naming the flag, the value and the range, and accepted at the range's bounds.
func TestCheckRanges(t *testing.T) {
	tests := []struct {
		args string
		code int
		want string
	}{
		{"check --ts -5 --dice 3,4,5", 2, "tearcam: --ts -5: target scores are 3 to 27\n"},
		{"check --ts 999 --dice 3,4,5", 2, "tearcam: --ts 999: target scores are 3 to 27\n"},
		{"check --attack --armour -1 --dice 3,4,5", 2, "tearcam: --armour -1: armour is 9 (unarmoured) to 26\n"},
		{"check --ts 3 --dice 1,1,1", 0, ""},
		{"check --ts 27 --dice 6,6,6", 0, ""},
		{"check --attack --armour 26 --dice 6,6,6", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			iostreams, out, errOut := testIO()
			require.Equal(t, tc.code, Main(strings.Fields(tc.args), iostreams), errOut.String())
			assert.Equal(t, tc.want, errOut.String())
			if tc.code != 0 {
				assert.Empty(t, out.String())
			} else {
				assert.NotEmpty(t, out.String())
			}
		})
	}
}

// TestCheckModifierSpelling: the flags take engine's names with dashes or underscores, and
// every message and the help spell them with dashes, as the help does.
func TestCheckModifierSpelling(t *testing.T) {
	run := func(args string) (int, string, string) {
		iostreams, out, errOut := testIO()
		code := Main(strings.Fields(args), iostreams)
		return code, out.String(), errOut.String()
	}
	_, dashed, _ := run("check --bonus no-pressure,right-tool --penalty time-is-a-factor --dice 3,4,5 --ts 12")
	code, underscored, stderr := run("check --bonus no_pressure,right_tool --penalty time_is_a_factor --dice 3,4,5 --ts 12")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, dashed, underscored)
	assert.Contains(t, dashed, "no pressure +1, right tool +1, time is a factor -1")

	for _, tc := range []struct{ args, want string }{
		{"check --bonus luck", `tearcam: --bonus "luck": not a bonus (want one of advantage, no-pressure, right-tool, spend-big)` + "\n"},
		{"check --bonus wrong_tool", `tearcam: --bonus "wrong_tool": not a bonus (want one of advantage, no-pressure, right-tool, spend-big)` + "\n"},
		{"check --penalty no-pressure", `tearcam: --penalty "no-pressure": not a penalty (want one of disadvantage, time-is-a-factor, wrong-tool)` + "\n"},
		{"check --opp-bonus x --opposed", `tearcam: --opp-bonus "x": not a bonus (want one of advantage, no-pressure, right-tool, spend-big)` + "\n"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			code, out, stderr := run(tc.args)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, tc.want, stderr)
		})
	}
	_, help, _ := run("check --help")
	assert.Contains(t, help, "bonuses, +1 each: advantage, no-pressure, right-tool, spend-big")
	assert.Contains(t, help, "penalties, -1 each: disadvantage, time-is-a-factor, wrong-tool")
}

func checkOpts() (*checkOptions, *strings.Builder) {
	iostreams, _, _ := testIO()
	var sb strings.Builder
	iostreams.Out = &sb
	return &checkOptions{IO: iostreams, Armour: engine.Unarmoured, Source: engine.SeededRand(1)}, &sb
}

func TestRunCheckOutput(t *testing.T) {
	tests := []struct {
		name string
		set  func(o *checkOptions)
		want string
	}{
		// 3+4+5 = 12; trained level 3 +3, advantage +1, right tool +1, wrong tool -1: +4 = 16;
		// vs TS 13: 3 over, a critical success.
		{"ts", func(o *checkOptions) {
			o.Skill, o.Self = "Lockpicking", checkSide{Level: 3, Trained: true, Bonus: []string{"advantage", "right tool"},
				Penalty: []string{"wrong_tool"}, Dice: []int{3, 4, 5}}
			o.HasTS, o.TS = true, 13
		}, `Check with Lockpicking
dice 3+4+5 = 12, +4 (trained level 3 +3, advantage +1, right tool +1, wrong tool -1): score 16
vs TS 13: critical success (margin +3)
`},
		// 12 vs TS 16: short by 4, more than 3: critical failure.
		{"critical failure", func(o *checkOptions) {
			o.Self = checkSide{Dice: []int{3, 4, 5}}
			o.HasTS, o.TS = true, 16
		}, `Check
dice 3+4+5 = 12, +0 (no skill bonus): score 12
vs TS 16: critical failure (margin -4)
`},
		{"plain roll", func(o *checkOptions) {
			o.Self = checkSide{Level: 5, Partial: true, Dice: []int{1, 1, 1}}
		}, `Check
dice 1+1+1 = 3, +3 (partial level 5 +3): score 6
`},
		// 10 vs 10: the instigator wins the tie.
		{"opposed tie", func(o *checkOptions) {
			o.Opposed = true
			o.Self, o.Opp = checkSide{Dice: []int{3, 3, 4}}, checkSide{Dice: []int{2, 4, 4}}
		}, `Check
dice 3+3+4 = 10, +0 (no skill bonus): score 10 (instigator)
opponent: dice 2+4+4 = 10, +0 (no skill bonus): score 10
won (the attacker or instigator wins ties; attacker's margin +0, success)
`},
		// The same tie when the opponent instigated: the character loses it.
		{"opposed tie defending", func(o *checkOptions) {
			o.Opposed, o.Defending = true, true
			o.Self, o.Opp = checkSide{Dice: []int{3, 3, 4}}, checkSide{Dice: []int{2, 4, 4}}
		}, `Check
dice 3+3+4 = 10, +0 (no skill bonus): score 10 (defender)
opponent: dice 2+4+4 = 10, +0 (no skill bonus): score 10
lost (the attacker or instigator wins ties; attacker's margin +0, success)
`},
		// 6+2+5 = 13 + 2 (partial 4) = 15 vs a defence of 2+3+4 = 9 + 2 = 11 > armour 9: needs 11,
		// 4 over: critical wound; a 6 was rolled: any location.
		{"attack with defence", func(o *checkOptions) {
			o.Attack, o.Defence = true, true
			o.Self = checkSide{Level: 4, Partial: true, Dice: []int{6, 2, 5}}
			o.Opp = checkSide{Level: 2, Trained: true, Dice: []int{2, 3, 4}}
		}, `Check
attack: dice 6+2+5 = 13, +2 (partial level 4 +2): score 15
defence: dice 2+3+4 = 9, +2 (trained level 2 +2): score 11
the defence beats armour 9: the attack needs 11
hit (margin +4): critical wound
location: any location
`},
		// A fast weapon's successful defence counts one higher (seed 003): 4+4+4 = 12 > armour
		// 9, +1 fast = 13, which the attack needs; 6+1+1 = 8 misses by 5. The +1 is named
		// (it printed "+1 (no skill bonus)").
		{"attack with a fast defence", func(o *checkOptions) {
			o.Attack, o.Defence, o.Fast = true, true, true
			o.Self = checkSide{Dice: []int{6, 1, 1}}
			o.Opp = checkSide{Dice: []int{4, 4, 4}}
		}, `Check
attack: dice 6+1+1 = 8, +0 (no skill bonus): score 8
defence: dice 4+4+4 = 12, +1 (fast weapon +1): score 13
the defence beats armour 9: the attack needs 13
miss (margin -5)
`},
		// A fast weapon's defence that does not beat the armour gets nothing: 2+3+3 = 8, not
		// over 9; the attack needs 10 and 2+3+5 = 10 hits.
		{"attack with a fast defence that fails", func(o *checkOptions) {
			o.Attack, o.Defence, o.Fast = true, true, true
			o.Self = checkSide{Dice: []int{2, 3, 5}}
			o.Opp = checkSide{Dice: []int{2, 3, 3}}
		}, `Check
attack: dice 2+3+5 = 10, +0 (no skill bonus): score 10
defence: dice 2+3+3 = 8, +0 (no skill bonus): score 8
armour 9: the attack needs more, 10
hit (margin +0): serious wound
location: an arm or a leg (no 6 rolled)
`},
		// 2+2+3 = 7 vs unarmoured (needs 10): a melee miss by 3 loses a reaction.
		{"melee miss", func(o *checkOptions) {
			o.Attack, o.Melee = true, true
			o.Self = checkSide{Dice: []int{2, 2, 3}}
		}, `Check
attack: dice 2+2+3 = 7, +0 (no skill bonus): score 7
armour 9: the attack needs more, 10
miss (margin -3)
a melee miss by 3 or more: the attacker loses a reaction (with none left, disadvantage until the start of their next turn)
`},
		// 2+3+5 = 10 vs unarmoured: a serious wound on an arm or a leg.
		{"serious hit", func(o *checkOptions) {
			o.Attack = true
			o.Self = checkSide{Dice: []int{2, 3, 5}}
		}, `Check
attack: dice 2+3+5 = 10, +0 (no skill bonus): score 10
armour 9: the attack needs more, 10
hit (margin +0): serious wound
location: an arm or a leg (no 6 rolled)
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, out := checkOpts()
			tc.set(o)
			require.NoError(t, runCheck(o))
			assert.Equal(t, tc.want, out.String())
		})
	}
}

func TestRunCheckJSONAndRecord(t *testing.T) {
	stub := newRollStub()
	o, out := checkOpts()
	o.DB, o.Player, o.Skill, o.OpenSource = "t.db", "Ann", "Archery", stub.opener()
	o.Self = checkSide{Level: 2, Trained: true}
	o.HasTS, o.TS, o.JSON = true, 12, true
	o.Source = engine.SeededRand(42)
	require.NoError(t, runCheck(o))
	var rep checkReport
	require.NoError(t, json.Unmarshal([]byte(out.String()), &rep))
	assert.Equal(t, "check", rep.Kind)
	assert.Equal(t, "seed:42", rep.Source)
	assert.Equal(t, "Ann", rep.Player)
	require.NotNil(t, rep.Check)
	assert.Equal(t, rep.Check.Roll.Dice.Total()+2, rep.Check.Roll.Score)
	require.Len(t, stub.records, 1)
	assert.Equal(t, "check", stub.records[0].kind)
	assert.JSONEq(t, strings.TrimSpace(out.String()), stub.records[0].data)

	// The same seed gives the same dice.
	o2, out2 := checkOpts()
	o2.Self, o2.HasTS, o2.TS, o2.JSON, o2.Source = o.Self, true, 12, true, engine.SeededRand(42)
	o2.Skill = "Archery"
	require.NoError(t, runCheck(o2))
	var rep2 checkReport
	require.NoError(t, json.Unmarshal([]byte(out2.String()), &rep2))
	assert.Equal(t, rep.Check.Roll.Dice, rep2.Check.Roll.Dice)

	for _, tc := range []struct{ player, skill, want string }{
		{"Ann", "Hopscotch", `Ann: "Hopscotch" has no full letter left`},
		{"Ann", "Poetry", `but that count is not certain: a weak read at 21% located "Poetry" on the fresh sheet, so the letters counted gone may be another word's; if the GM sees a full letter of "Poetry" on the sheet, run again with --gm-confirms`},
		{"Bo", "Cooking", "Bo is out"},
		{"Ann", "Juggling", "no skill"},
	} {
		stub := newRollStub()
		o, out := checkOpts()
		o.DB, o.Player, o.Skill, o.OpenSource = "t.db", tc.player, tc.skill, stub.opener()
		err := runCheck(o)
		assert.Equal(t, 2, ExitCode(err))
		assert.ErrorContains(t, err, tc.want)
		assert.Empty(t, out.String())
		assert.Empty(t, stub.records)
	}
}
