package ocr

import (
	"errors"
	"testing"
)

func TestValidateSkills(t *testing.T) {
	tests := []struct {
		name   string
		skills []string
		ok     bool
	}{
		{"six distinct", []string{"Swordsmanship", "Investigation", "Tea Ceremony", "Hopscotch", "Archery", "Cooking"}, true},
		{"empty", []string{"Archery", ""}, false},
		{"spaces only", []string{"  "}, false},
		{"no letters", []string{"Archery", "!!"}, false},
		{"twice", []string{"Archery", "archery"}, false},
		{"twice with spacing", []string{"Tea Ceremony", "TeaCeremony"}, false},
		{"non-latin is valid", []string{"Кулинария"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateSkills(tc.skills)
			if (err == nil) != tc.ok {
				t.Fatalf("ValidateSkills(%q) = %v, want ok=%v", tc.skills, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBadSkills) {
				t.Fatalf("error %v does not wrap ErrBadSkills", err)
			}
		})
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		read, skill string
		want        float64
	}{
		{"hopscotch", "hopscotch", 1},
		{"", "hopscotch", 0},
		// One substitution in nine letters: 1 - 1/9.
		{"hepscotch", "hopscotch", 1 - 1.0/9},
		// l and I read for one another are not an error.
		{"ilama", "llama", 1},
		// Entirely different, same length: 0.
		{"abc", "xyz", 0},
	}
	for _, tc := range tests {
		t.Run(tc.read+"/"+tc.skill, func(t *testing.T) {
			if got := similarity(tc.read, tc.skill); got != tc.want {
				t.Fatalf("similarity(%q, %q) = %v, want %v", tc.read, tc.skill, got, tc.want)
			}
		})
	}
}

func TestAlignment(t *testing.T) {
	// "hpscotch" misses the o: letters after it shift by one.
	got := alignment([]rune("hpscotch"), []rune("hopscotch"))
	want := []int{0, -1, 1, 2, 3, 4, 5, 6, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("alignment = %v, want %v", got, want)
		}
	}
}

func TestAssign(t *testing.T) {
	// Greedy would give region 0 to skill 0 (0.9) and leave skill 1 with 0.1; the optimum
	// is 0->1, 1->0 (0.8 + 0.8).
	score := [][]float64{
		{0.9, 0.8},
		{0.8, 0.1},
	}
	got := assign(score, 2)
	if got[0] != 1 || got[1] != 0 {
		t.Fatalf("assign = %v, want [1 0]", got)
	}
	// Forbidden pairs stay unassigned; more rows than columns.
	score = [][]float64{{-1, -1}, {-1, 0.5}, {0.2, -1}}
	got = assign(score, 2)
	if got[0] != 2 || got[1] != 1 {
		t.Fatalf("assign = %v, want [2 1]", got)
	}
}
