package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLetters(t *testing.T) {
	tests := []struct {
		name string
		want int
	}{
		{"Tea Ceremony", 11}, // DESIGN.md's own example
		{"Swordsmanship", 13},
		{"Hop-scotch!", 9},
		{"R2 D2", 4},
		{"Éclair", 6},
		{"", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Letters(tc.name))
			assert.Len(t, LetterRunes(tc.name), tc.want)
		})
	}
}
