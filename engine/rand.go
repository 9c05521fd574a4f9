package engine

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Rand is the random source dice and random throws draw from: an integer in [0, n).
// *math/rand/v2.Rand satisfies it.
type Rand interface {
	IntN(n int) int
}

var _ Rand = (*rand.Rand)(nil)

// Source is a Rand that says what it is, so every roll can be recorded with what produced it.
type Source struct {
	Rand
	Name string // "crypto/rand" or "seed:N"
}

// cryptoSource is a math/rand/v2 Source reading crypto/rand.
type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		// crypto/rand.Read does not fail on supported platforms (it crashes the program
		// itself if the OS source breaks, Go 1.24+); keep the dice honest regardless.
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return binary.LittleEndian.Uint64(b[:])
}

// CryptoRand is the default, fair source: operating-system randomness through crypto/rand.
func CryptoRand() Source {
	return Source{Rand: rand.New(cryptoSource{}), Name: "crypto/rand"}
}

// SeededRand is a reproducible source for --seed and tests: math/rand/v2's PCG seeded with
// seed. The same seed gives the same rolls and throws.
func SeededRand(seed uint64) Source {
	return Source{Rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), Name: fmt.Sprintf("seed:%d", seed)}
}
