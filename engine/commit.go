package engine

import (
	crand "crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Commit-reveal for Throws at a distance: each side publishes Commitment(choice, nonce)
// before either reveals; after both commitments are out, each reveals "choice:nonce" and
// the other checks it with Verify. Nobody can change a choice after seeing the other's, and
// the commitment alone does not give the choice away because the nonce is secret and long
// (with only three choices, a short or missing nonce would be guessed at once).

// MinNonceLen is the shortest nonce accepted, in characters.
const MinNonceLen = 16

// ErrCommitMismatch is returned when a revealed choice and nonce do not hash to the
// commitment published before.
var ErrCommitMismatch = errors.New("reveal does not match the commitment")

// NewNonce returns a fresh nonce: 16 random bytes from crypto/rand, as 32 hex digits.
func NewNonce() (string, error) {
	var b [16]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Commitment is the lower-case hex SHA-256 of "CHOICE:NONCE", CHOICE being the choice's name
// (stones, scrolls or swords). Anyone can recompute it with
// `printf 'stones:NONCE' | sha256sum`.
func Commitment(c Choice, nonce string) string {
	sum := sha256.Sum256([]byte(c.String() + ":" + nonce))
	return hex.EncodeToString(sum[:])
}

// Reveal is a revealed choice and the nonce it was committed with.
type Reveal struct {
	Choice Choice `json:"choice"`
	Nonce  string `json:"nonce"`
}

func (r Reveal) String() string { return r.Choice.String() + ":" + r.Nonce }

// ParseReveal reads "CHOICE:NONCE".
func ParseReveal(s string) (Reveal, error) {
	choice, nonce, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Reveal{}, fmt.Errorf("reveal %q: want CHOICE:NONCE", s)
	}
	c, err := ParseChoice(choice)
	if err != nil {
		return Reveal{}, fmt.Errorf("reveal: %w", err)
	}
	if len(nonce) < MinNonceLen {
		return Reveal{}, fmt.Errorf("reveal: nonce shorter than %d characters", MinNonceLen)
	}
	return Reveal{Choice: c, Nonce: nonce}, nil
}

// Verify checks that r hashes to commitment (hex, any case).
func Verify(commitment string, r Reveal) error {
	if len(r.Nonce) < MinNonceLen {
		return fmt.Errorf("nonce shorter than %d characters: %w", MinNonceLen, ErrCommitMismatch)
	}
	want, err := hex.DecodeString(strings.TrimSpace(commitment))
	if err != nil || len(want) != sha256.Size {
		return fmt.Errorf("commitment %q is not a hex SHA-256", commitment)
	}
	got := sha256.Sum256([]byte(r.Choice.String() + ":" + r.Nonce))
	if subtle.ConstantTimeCompare(want, got[:]) != 1 {
		return fmt.Errorf("%s: %w", r.Choice, ErrCommitMismatch)
	}
	return nil
}

// Committed is a Chooser of choices revealed against commitments, one pair per round; it
// fails with ErrCommitMismatch on the first reveal that does not match, and ErrNoChoice when
// they run out.
type Committed struct {
	Commitments []string
	Reveals     []Reveal
}

var _ Chooser = Committed{}

// Choose verifies and returns the round's revealed choice.
func (c Committed) Choose(round int) (Choice, error) {
	if round < 1 || round > len(c.Reveals) || round > len(c.Commitments) {
		return 0, fmt.Errorf("round %d: %w", round, ErrNoChoice)
	}
	if err := Verify(c.Commitments[round-1], c.Reveals[round-1]); err != nil {
		return 0, fmt.Errorf("round %d: %w", round, err)
	}
	return c.Reveals[round-1].Choice, nil
}
