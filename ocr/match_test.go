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
