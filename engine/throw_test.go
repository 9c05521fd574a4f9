package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// choices reads a compact list of choices: R stones (rock), P scrolls (paper), S swords
// (scissors); spaces are ignored.
func choices(s string) Fixed {
	var out Fixed
	for _, r := range s {
		switch r {
		case 'R':
			out = append(out, Stones)
		case 'P':
			out = append(out, Scrolls)
		case 'S':
			out = append(out, Swords)
		}
	}
	return out
}

func TestCompare(t *testing.T) {
	// Seed 001: Stones beats Swords, Swords beats Scrolls, Scrolls beats Stones.
	tests := []struct {
		a, b Choice
		want int
	}{
		{Stones, Swords, 1}, {Swords, Scrolls, 1}, {Scrolls, Stones, 1},
		{Swords, Stones, -1}, {Scrolls, Swords, -1}, {Stones, Scrolls, -1},
		{Stones, Stones, 0}, {Scrolls, Scrolls, 0}, {Swords, Swords, 0},
	}
	for _, tc := range tests {
		t.Run(tc.a.String()+"_vs_"+tc.b.String(), func(t *testing.T) {
			assert.Equal(t, tc.want, Compare(tc.a, tc.b))
			assert.Equal(t, -tc.want, Compare(tc.b, tc.a))
			assert.Equal(t, tc.want == 1, tc.a.Beats(tc.b))
		})
	}
}

func TestParseChoice(t *testing.T) {
	tests := []struct {
		in   string
		want Choice
		err  bool
	}{
		{"stones", Stones, false}, {"Stone", Stones, false}, {"rock", Stones, false},
		{" SCROLLS ", Scrolls, false}, {"paper", Scrolls, false},
		{"swords", Swords, false}, {"scissors", Swords, false},
		{"sorcery", 0, true}, {"", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseChoice(tc.in)
			if tc.err {
				assert.ErrorIs(t, err, ErrBadChoice)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestThrow(t *testing.T) {
	tests := []struct {
		name         string
		spec         ThrowSpec
		player, opp  string
		rounds       int
		pWins, oWins int
		draws        int
		won          bool
		drawBreak    int
		outcome      int
	}{
		// bo1: one decisive round. Outcome = modifier + 1 (won) or - 1 (lost).
		{name: "bo1 win", spec: ThrowSpec{Series: 1}, player: "R", opp: "S",
			rounds: 1, pWins: 1, won: true, outcome: 1},
		{name: "bo1 loss with +2", spec: ThrowSpec{Series: 1, Modifier: 2}, player: "R", opp: "P",
			rounds: 1, oWins: 1, outcome: 2 - 1},
		// Seed 001's examples: "2 draws, player wins -> +2"; "5 draws, player loses -> -5".
		// Outcome 0 + 1 + 2 = 3 and 0 - 1 - 5 = -6.
		{name: "seed: 2 draws and a win", spec: ThrowSpec{Series: 1}, player: "RPS", opp: "RPP",
			rounds: 3, pWins: 1, draws: 2, won: true, drawBreak: 2, outcome: 3},
		{name: "seed: 5 draws and a loss", spec: ThrowSpec{Series: 1}, player: "RRPPSR", opp: "RRPPSP",
			rounds: 6, oWins: 1, draws: 5, drawBreak: -5, outcome: -6},
		// bo3: first to 2 round wins; draws in between do not count.
		{name: "bo3 2-0", spec: ThrowSpec{Series: 3, Modifier: -1}, player: "RR", opp: "SS",
			rounds: 2, pWins: 2, won: true, outcome: -1 + 1},
		{name: "bo3 2-1 with a draw", spec: ThrowSpec{Series: 3}, player: "R R P S", opp: "S P P P",
			rounds: 4, pWins: 2, oWins: 1, draws: 1, won: true, drawBreak: 1, outcome: 2},
		{name: "bo3 lost with 3 draws", spec: ThrowSpec{Series: 3, Modifier: 3}, player: "RRSRR", opp: "RRSPP",
			rounds: 5, oWins: 2, draws: 3, drawBreak: -3, outcome: 3 - 1 - 3},
		// bo5: first to 3.
		{name: "bo5 3-2 with a draw", spec: ThrowSpec{Series: 5}, player: "RRRPSS", opp: "SPPPPP",
			rounds: 6, pWins: 3, oWins: 2, draws: 1, won: true, drawBreak: 1, outcome: 2},
		{name: "bo5 0-3 with 2 draws", spec: ThrowSpec{Series: 5, Modifier: -3}, player: "RRRRR", opp: "PRPRP",
			rounds: 5, oWins: 3, draws: 2, drawBreak: -2, outcome: -3 - 1 - 2},
		{name: "bo5 3-0", spec: ThrowSpec{Series: 5, Modifier: 3}, player: "SSS", opp: "PPP",
			rounds: 3, pWins: 3, won: true, outcome: 4},
		// Focus: one round won before the throw. bo1 is then already won: no round thrown.
		{name: "focus bo1", spec: ThrowSpec{Series: 1, Focus: true, Modifier: 1}, player: "", opp: "",
			rounds: 0, pWins: 1, won: true, outcome: 2},
		{name: "focus bo3 one win needed", spec: ThrowSpec{Series: 3, Focus: true}, player: "PR", opp: "PS",
			rounds: 2, pWins: 2, draws: 1, won: true, drawBreak: 1, outcome: 2},
		{name: "focus bo3 lost anyway", spec: ThrowSpec{Series: 3, Focus: true}, player: "RR", opp: "PP",
			rounds: 2, pWins: 1, oWins: 2, outcome: -1},
		{name: "focus bo5 with draws", spec: ThrowSpec{Series: 5, Focus: true}, player: "RSRSR", opp: "RSSSS",
			rounds: 5, pWins: 3, draws: 3, won: true, drawBreak: 3, outcome: 4},
		// +1 - 1 = 0 after a loss: 0 is positive.
		{name: "zero outcome", spec: ThrowSpec{Series: 1, Modifier: 1}, player: "S", opp: "R",
			rounds: 1, oWins: 1, outcome: 0},
		// The override lets an Attribute exceed +3.
		{name: "override +5", spec: ThrowSpec{Series: 1, Modifier: 5, AllowModifier: true}, player: "R", opp: "S",
			rounds: 1, pWins: 1, won: true, outcome: 6},
		// A positive Outcome after losing the series (seed: "you can lose the series and
		// still get a Positive Outcome"): +3 - 1 = 2.
		{name: "lose but positive", spec: ThrowSpec{Series: 1, Modifier: 3}, player: "S", opp: "R",
			rounds: 1, oWins: 1, outcome: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Throw(tc.spec, choices(tc.player), choices(tc.opp))
			require.NoError(t, err)
			assert.Len(t, r.Rounds, tc.rounds)
			assert.Equal(t, tc.pWins, r.PlayerWins, "player wins")
			assert.Equal(t, tc.oWins, r.OpponentWins, "opponent wins")
			assert.Equal(t, tc.draws, r.Draws, "draws")
			assert.Equal(t, tc.won, r.Won)
			want := -1
			if tc.won {
				want = 1
			}
			assert.Equal(t, want, r.Winner)
			assert.Equal(t, tc.drawBreak, r.DrawBreak, "draw break")
			assert.Equal(t, tc.outcome, r.Outcome, "outcome")
			assert.Equal(t, tc.spec.Modifier+r.Winner+r.DrawBreak, r.Outcome)
			assert.Equal(t, tc.outcome >= 0, r.Positive, "0 is positive")
		})
	}
}

func TestThrowErrors(t *testing.T) {
	tests := []struct {
		name string
		spec ThrowSpec
		p, o string
		want error
	}{
		{"bo2", ThrowSpec{Series: 2}, "R", "S", ErrSeriesLength},
		{"bo0", ThrowSpec{}, "R", "S", ErrSeriesLength},
		{"bo7", ThrowSpec{Series: 7}, "R", "S", ErrSeriesLength},
		{"attribute +4", ThrowSpec{Series: 1, Modifier: 4}, "R", "S", ErrAttribute},
		{"attribute -4", ThrowSpec{Series: 1, Modifier: -4}, "R", "S", ErrAttribute},
		{"player runs out", ThrowSpec{Series: 3}, "RR", "RS", ErrNoChoice},
		{"opponent runs out", ThrowSpec{Series: 1}, "RR", "R", ErrNoChoice},
		{"invalid choice", ThrowSpec{Series: 1}, "", "", ErrBadChoice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, o := Chooser(choices(tc.p)), Chooser(choices(tc.o))
			if tc.name == "invalid choice" {
				p, o = Fixed{Choice(7)}, Fixed{Stones}
			}
			_, err := Throw(tc.spec, p, o)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	assert.Error(t, ThrowSpec{Series: 1, Attribute: "Charm"}.Validate())
	assert.NoError(t, ThrowSpec{Series: 1, Attribute: "sorcery", Modifier: -3}.Validate())
	assert.NoError(t, ThrowSpec{Series: 5, Modifier: -9, AllowModifier: true}.Validate())
}

func TestSeriesRoundByRound(t *testing.T) {
	s, err := NewSeries(ThrowSpec{Series: 3})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Needed())
	_, err = s.Result()
	assert.Error(t, err, "not decided yet")
	for range 2 {
		assert.False(t, s.Done())
		_, err := s.Play(Stones, Swords)
		require.NoError(t, err)
	}
	assert.True(t, s.Done())
	_, err = s.Play(Stones, Swords)
	assert.Error(t, err, "already decided")
	r, err := s.Result()
	require.NoError(t, err)
	assert.Equal(t, 2, r.PlayerWins)
}

// A stuck chooser (always the same as the other side) cannot loop forever.
func TestThrowMaxRounds(t *testing.T) {
	same := Then{First: Fixed{}, Next: Random{Rand: constRand(0)}}
	_, err := Throw(ThrowSpec{Series: 1}, same, same)
	assert.ErrorContains(t, err, fmt.Sprintf("no winner after %d rounds", MaxRounds))
}

type constRand int

func (c constRand) IntN(int) int { return int(c) }

func TestRandomThrowsReproducible(t *testing.T) {
	run := func() ThrowResult {
		src := SeededRand(42)
		r, err := Throw(ThrowSpec{Series: 5}, Random{src}, Random{src})
		require.NoError(t, err)
		return r
	}
	a, b := run(), run()
	assert.Equal(t, a, b)
	ja, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Contains(t, string(ja), `"player":"`)
}

// Each of the three choices comes up about a third of the time: 30000 draws, 10000
// expected each; the standard deviation is sqrt(30000*1/3*2/3) = 81.6, so 500 is over 6
// sigma (a fixed seed makes the test deterministic anyway).
func TestRandomChoiceUniform(t *testing.T) {
	for _, src := range []Source{SeededRand(7), CryptoRand()} {
		t.Run(src.Name, func(t *testing.T) {
			counts := map[Choice]int{}
			r := Random{src}
			for i := range 30000 {
				c, err := r.Choose(i + 1)
				require.NoError(t, err)
				counts[c]++
			}
			for _, c := range Choices {
				assert.InDelta(t, 10000, counts[c], 500, c.String())
			}
		})
	}
}

func TestThenFallsBack(t *testing.T) {
	c := Then{First: Fixed{Scrolls}, Next: Fixed{Swords, Swords}}
	got1, _ := c.Choose(1)
	got2, _ := c.Choose(2)
	assert.Equal(t, Scrolls, got1)
	assert.Equal(t, Swords, got2)
}
