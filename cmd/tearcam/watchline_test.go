package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"tearcam/judge"
)

// The line watch prints marks a count that is not measured with "?", as audit's table does:
// live, the GM is the one who most needs it.
func TestRulingLineMarksUnmeasuredCounts(t *testing.T) {
	r := judge.TearRuling{Index: 3, Kind: judge.KindDamage, Skill: "Hopscotch", Verdict: judge.Valid, Faults: []judge.Fault{},
		Skills: []judge.SkillState{{Name: "Hopscotch", Remaining: 7, Available: true, Measured: false}, {Name: "Archery", Remaining: 6, Available: true, Measured: true}}}
	assert.Equal(t, "Ann tear 3: damage Hopscotch: valid; letters left: Hopscotch 7?, Archery 6 (?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read)",
		rulingLine("Ann", r))
}

// A 0 that is not certain is a weak read's: the legend does not say it counts letters as
// left (a tester).
func TestRulingLineUncertainZero(t *testing.T) {
	r := judge.TearRuling{Index: 2, Kind: judge.KindUse, Skill: "Archery", Verdict: judge.Valid, Faults: []judge.Fault{},
		Skills: []judge.SkillState{{Name: "Haggling", Remaining: 0, Available: false}, {Name: "Archery", Remaining: 6, Available: true, Measured: true}}}
	assert.Equal(t, "Ann tear 2: use Archery: valid; letters left: Haggling 0?, Archery 6 (?: not certain: a 0? skill was located on the fresh sheet by a weak read, which may be another word: the GM confirms whether a full letter of it is left)",
		rulingLine("Ann", r))
}

// A last ditch says whether the ball hit the GM, as audit's table does (a tester saw
// "last_ditch: valid" alone).
func TestRulingLineLastDitch(t *testing.T) {
	hit, miss := true, false
	r := judge.TearRuling{Index: 4, Kind: judge.KindLastDitch, Verdict: judge.Valid, Faults: []judge.Fault{}, Hit: &miss, Out: true, OutReason: judge.OutLastDitch}
	assert.Equal(t, "Ann tear 4: last_ditch: valid; the ball missed the GM; OUT (last_ditch)", rulingLine("Ann", r))
	r.Hit, r.Out, r.OutReason = &hit, false, ""
	assert.Equal(t, "Ann tear 4: last_ditch: valid; the ball hit the GM", rulingLine("Ann", r))
}
