package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommitmentKnownVector(t *testing.T) {
	// printf 'stones:0123456789abcdef' | sha256sum
	assert.Equal(t, "9ad276a02f9f9b9e1637b0923a958b9f4e2e9a85927b682a0e73b5138300cf17",
		Commitment(Stones, "0123456789abcdef"))
}

func TestCommitReveal(t *testing.T) {
	nonce, err := NewNonce()
	require.NoError(t, err)
	assert.Len(t, nonce, 32)
	other, err := NewNonce()
	require.NoError(t, err)
	assert.NotEqual(t, nonce, other)

	c := Commitment(Swords, nonce)
	tests := []struct {
		name       string
		commitment string
		reveal     Reveal
		wantErr    error
		wantAnyErr bool
	}{
		{name: "matches", commitment: c, reveal: Reveal{Swords, nonce}},
		{name: "upper-case commitment", commitment: strings.ToUpper(c), reveal: Reveal{Swords, nonce}},
		{name: "changed choice", commitment: c, reveal: Reveal{Stones, nonce}, wantErr: ErrCommitMismatch},
		{name: "changed nonce", commitment: c, reveal: Reveal{Swords, other}, wantErr: ErrCommitMismatch},
		{name: "short nonce", commitment: Commitment(Swords, "abc"), reveal: Reveal{Swords, "abc"}, wantErr: ErrCommitMismatch},
		{name: "not hex", commitment: "zz", reveal: Reveal{Swords, nonce}, wantAnyErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.commitment, tc.reveal)
			switch {
			case tc.wantErr != nil:
				assert.ErrorIs(t, err, tc.wantErr)
			case tc.wantAnyErr:
				assert.Error(t, err)
			default:
				assert.NoError(t, err)
			}
		})
	}
}

func TestParseReveal(t *testing.T) {
	r, err := ParseReveal("Scrolls:0123456789abcdef")
	require.NoError(t, err)
	assert.Equal(t, Reveal{Scrolls, "0123456789abcdef"}, r)
	assert.Equal(t, "scrolls:0123456789abcdef", r.String())
	for _, bad := range []string{"scrolls", "wands:0123456789abcdef", "stones:short"} {
		_, err := ParseReveal(bad)
		assert.Error(t, err, bad)
	}
}

func TestCommittedThrow(t *testing.T) {
	n1, n2 := "player-nonce-0001", "player-nonce-0002"
	g1, g2 := "gm-nonce-00000001", "gm-nonce-00000002"
	player := Committed{
		Commitments: []string{Commitment(Stones, n1), Commitment(Stones, n2)},
		Reveals:     []Reveal{{Stones, n1}, {Stones, n2}},
	}
	gm := Committed{
		Commitments: []string{Commitment(Stones, g1), Commitment(Swords, g2)},
		Reveals:     []Reveal{{Stones, g1}, {Swords, g2}},
	}
	// Round 1 draws, round 2 stones beats swords: 0 + 1 + 1 draw = 2.
	r, err := Throw(ThrowSpec{Series: 1}, player, gm)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Outcome)

	// The GM changes its mind in round 2 after seeing the player's stones.
	gm.Reveals[1] = Reveal{Scrolls, g2}
	_, err = Throw(ThrowSpec{Series: 1}, player, gm)
	assert.ErrorIs(t, err, ErrCommitMismatch)
	assert.ErrorContains(t, err, "round 2")
}
