package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLocatedLabel: the fresh sheet's "letters located" entry marks a weak read (location
// confidence under WeakReadConfidence) and how weak; a skill not located at all is not a read.
func TestLocatedLabel(t *testing.T) {
	cases := []struct {
		k    SkillResult
		want string
	}{
		{SkillResult{Name: "Text", Letters: 4, Located: 4, Confidence: 0.21}, "Text 4/4 (weak read, 21%)"},
		{SkillResult{Name: "hand", Letters: 4, Located: 4, Confidence: 0.6}, "hand 4/4"}, // at the bar: not weak
		{SkillResult{Name: "Tea Ceremony", Letters: 11, Located: 9, Confidence: 0.55}, "Tea Ceremony 9/11 (weak read, 55%)"},
		{SkillResult{Name: "Poetry", Letters: 6, Located: 0, Confidence: 0}, "Poetry 0/6"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.k.LocatedLabel())
			assert.Equal(t, tc.k.Located > 0 && tc.k.Confidence < WeakReadConfidence, tc.k.Weak())
		})
	}
}
