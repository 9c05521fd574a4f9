package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Choice is what a contestant throws in one round (seed 001: "both contestants secretly
// choose STONES, SCROLLS, or SWORDS").
type Choice int

// The three choices. Stones beats Swords, Swords beats Scrolls, Scrolls beats Stones.
const (
	Stones Choice = iota + 1
	Scrolls
	Swords
)

// Choices is every valid Choice, in the seed's order.
var Choices = []Choice{Stones, Scrolls, Swords}

func (c Choice) String() string {
	switch c {
	case Stones:
		return "stones"
	case Scrolls:
		return "scrolls"
	case Swords:
		return "swords"
	}
	return fmt.Sprintf("Choice(%d)", int(c))
}

// MarshalText writes a Choice by name.
func (c Choice) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("invalid choice %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a Choice with ParseChoice.
func (c *Choice) UnmarshalText(b []byte) error {
	v, err := ParseChoice(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Valid reports whether c is one of the three choices.
func (c Choice) Valid() bool { return c >= Stones && c <= Swords }

// ErrBadChoice is returned for a choice that is not stones, scrolls or swords.
var ErrBadChoice = errors.New("not stones, scrolls or swords")

// ParseChoice reads a choice: stones, scrolls or swords (any case, singular too), or the
// rock-paper-scissors names rock, paper and scissors.
func ParseChoice(s string) (Choice, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "stones", "stone", "rock":
		return Stones, nil
	case "scrolls", "scroll", "paper":
		return Scrolls, nil
	case "swords", "sword", "scissors":
		return Swords, nil
	}
	return 0, fmt.Errorf("%q: %w", s, ErrBadChoice)
}

// Beats reports whether c beats o: Stones beats Swords, Swords beats Scrolls, Scrolls beats
// Stones.
func (c Choice) Beats(o Choice) bool {
	return (c == Stones && o == Swords) || (c == Swords && o == Scrolls) || (c == Scrolls && o == Stones)
}

// Compare is +1 when a beats b, -1 when b beats a, 0 for a draw.
func Compare(a, b Choice) int {
	switch {
	case a.Beats(b):
		return 1
	case b.Beats(a):
		return -1
	}
	return 0
}

// MaxAttribute is the largest Attribute modifier "under normal conditions" (seed 001); the
// smallest is -MaxAttribute.
const MaxAttribute = 3

// Attribute names (seed 001): each Skill is tied to one of them.
var Attributes = []string{"Stones", "Scrolls", "Swords", "Sorcery"}

// Sentinel errors for throws that cannot be made. Callers map them to bad usage.
var (
	ErrSeriesLength = errors.New("series length must be 1, 3 or 5")
	ErrAttribute    = errors.New("attribute modifier outside -3..+3")
	ErrNoChoice     = errors.New("no choice for the round")
)

// ThrowSpec is a Throw to make.
type ThrowSpec struct {
	Skill     string `json:"skill,omitempty"`
	Attribute string `json:"attribute,omitempty"` // Stones, Scrolls, Swords or Sorcery: informational
	Modifier  int    `json:"modifier"`            // the Attribute's value, -3..+3
	// AllowModifier lets Modifier exceed -3..+3 ("under normal conditions" in the seed: a GM
	// may allow more).
	AllowModifier bool `json:"allow_modifier,omitempty"`
	Series        int  `json:"series"` // Series Length: best of 1, 3 or 5
	Focus         bool `json:"focus"`  // Focus with the Skill: the thrower starts one round up
}

// Validate checks the series length and the Attribute modifier.
func (s ThrowSpec) Validate() error {
	switch s.Series {
	case 1, 3, 5:
	default:
		return fmt.Errorf("bo%d: %w", s.Series, ErrSeriesLength)
	}
	if !s.AllowModifier && (s.Modifier < -MaxAttribute || s.Modifier > MaxAttribute) {
		return fmt.Errorf("%+d: %w", s.Modifier, ErrAttribute)
	}
	if s.Attribute != "" {
		ok := false
		for _, a := range Attributes {
			if strings.EqualFold(a, s.Attribute) {
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("attribute %q is not one of Stones, Scrolls, Swords, Sorcery", s.Attribute)
		}
	}
	return nil
}

// Round is one round of a series: both choices, revealed together, and who won it.
type Round struct {
	Player   Choice `json:"player"`
	Opponent Choice `json:"opponent"`
	Result   int    `json:"result"` // +1 the player (thrower) won it, -1 the opponent, 0 a draw
}

// Series is a Throw being played round by round. The zero value is not usable: make one
// with NewSeries.
type Series struct {
	spec       ThrowSpec
	rounds     []Round
	playerWins int // rounds won, Focus included
	oppWins    int
	draws      int
}

// NewSeries starts a Throw; with Focus the thrower starts one round up.
func NewSeries(spec ThrowSpec) (*Series, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	s := &Series{spec: spec}
	if spec.Focus {
		s.playerWins = 1
	}
	return s, nil
}

// Needed is the rounds needed to win the series: 1, 2 or 3.
func (s *Series) Needed() int { return s.spec.Series/2 + 1 }

// Done reports whether one side has won the series. A best of 1 with Focus is won before
// any round is thrown (the one round it needs is assumed won).
func (s *Series) Done() bool { return s.playerWins >= s.Needed() || s.oppWins >= s.Needed() }

// Play throws one round. A draw does not count toward the series; it is tallied.
func (s *Series) Play(player, opponent Choice) (Round, error) {
	if s.Done() {
		return Round{}, errors.New("the series is already decided")
	}
	if !player.Valid() || !opponent.Valid() {
		return Round{}, fmt.Errorf("round %d: %w", len(s.rounds)+1, ErrBadChoice)
	}
	r := Round{Player: player, Opponent: opponent, Result: Compare(player, opponent)}
	switch r.Result {
	case 1:
		s.playerWins++
	case -1:
		s.oppWins++
	default:
		s.draws++
	}
	s.rounds = append(s.rounds, r)
	return r, nil
}

// ThrowResult is a finished Throw and its Outcome Number.
type ThrowResult struct {
	Spec         ThrowSpec `json:"spec"`
	Rounds       []Round   `json:"rounds"`
	PlayerWins   int       `json:"player_wins"` // rounds won, the Focus round included
	OpponentWins int       `json:"opponent_wins"`
	Draws        int       `json:"draws"`
	Won          bool      `json:"won"`        // the player (thrower) won the series
	Winner       int       `json:"winner"`     // Throw Winner: +1 won, -1 lost
	DrawBreak    int       `json:"draw_break"` // +draws when won, -draws when lost
	Outcome      int       `json:"outcome"`    // Attribute modifier + Winner + DrawBreak
	// Positive: the Outcome is positive, 0 included (the seed: "0 is positive"). It is not
	// the same as winning: a series can be lost with a positive Outcome.
	Positive bool   `json:"positive"`
	Source   string `json:"source,omitempty"`
}

// Result is the Outcome of a decided series (seed 001 "Determining the Outcome Number"):
// Attribute modifier, +1 for winning the series or -1 for losing it, and one per draw in the
// winner's direction ("2 draws, player wins: +2; 5 draws, player loses: -5").
func (s *Series) Result() (ThrowResult, error) {
	if !s.Done() {
		return ThrowResult{}, errors.New("the series is not decided yet")
	}
	r := ThrowResult{Spec: s.spec, Rounds: append([]Round{}, s.rounds...),
		PlayerWins: s.playerWins, OpponentWins: s.oppWins, Draws: s.draws}
	r.Won = s.playerWins >= s.Needed()
	r.Winner = -1
	if r.Won {
		r.Winner = 1
	}
	r.DrawBreak = r.Winner * s.draws
	r.Outcome = s.spec.Modifier + r.Winner + r.DrawBreak
	r.Positive = r.Outcome >= 0
	return r, nil
}

// Chooser gives one side's choice for each round (round counts from 1, draws included).
type Chooser interface {
	Choose(round int) (Choice, error)
}

// Fixed is a Chooser of choices given in advance, one per round in order; it fails with
// ErrNoChoice when they run out.
type Fixed []Choice

// Choose returns the round's choice.
func (f Fixed) Choose(round int) (Choice, error) {
	if round < 1 || round > len(f) {
		return 0, fmt.Errorf("round %d: %w", round, ErrNoChoice)
	}
	return f[round-1], nil
}

// Random is a Chooser drawing each choice uniformly from its source (the GM's side).
type Random struct{ Rand Rand }

// Choose draws the round's choice.
func (r Random) Choose(int) (Choice, error) { return Choices[r.Rand.IntN(len(Choices))], nil }

// Then is a Chooser that uses First until it runs out (ErrNoChoice), then Next.
type Then struct{ First, Next Chooser }

// Choose returns First's choice for the round, or Next's once First has none.
func (t Then) Choose(round int) (Choice, error) {
	c, err := t.First.Choose(round)
	if errors.Is(err, ErrNoChoice) {
		return t.Next.Choose(round)
	}
	return c, err
}

var (
	_ Chooser = Fixed(nil)
	_ Chooser = Random{}
	_ Chooser = Then{}
)

// MaxRounds bounds a series: far beyond any real run of draws (the chance of 200 draws in a
// row with one random side is 3^-200), it stops a broken chooser from looping forever.
const MaxRounds = 200

// Throw plays a whole series: each round asks both choosers (the player's first, then the
// opponent's; neither sees the other's choice) and reveals them together, until one side
// has won. A best of 1 with Focus asks nothing.
func Throw(spec ThrowSpec, player, opponent Chooser) (ThrowResult, error) {
	s, err := NewSeries(spec)
	if err != nil {
		return ThrowResult{}, err
	}
	for n := 1; !s.Done(); n++ {
		if n > MaxRounds {
			return ThrowResult{}, fmt.Errorf("no winner after %d rounds", MaxRounds)
		}
		p, err := player.Choose(n)
		if err != nil {
			return ThrowResult{}, fmt.Errorf("player: %w", err)
		}
		o, err := opponent.Choose(n)
		if err != nil {
			return ThrowResult{}, fmt.Errorf("opponent: %w", err)
		}
		if _, err := s.Play(p, o); err != nil {
			return ThrowResult{}, err
		}
	}
	return s.Result()
}
