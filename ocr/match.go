package ocr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"tearcam/judge"
)

// ErrBadSkills is returned (wrapped) by ValidateSkills for a declaration that cannot be located.
var ErrBadSkills = errors.New("bad skill declaration")

// ValidateSkills checks a player's declared skills: none empty, each with at least one letter
// (judge.Letters), none declared twice (case and spacing ignored). The error names the skill.
func ValidateSkills(skills []string) error {
	seen := map[string]int{}
	for i, s := range skills {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%w: skill %d is empty", ErrBadSkills, i+1)
		}
		if judge.Letters(s) == 0 {
			return fmt.Errorf("%w: skill %q has no letters", ErrBadSkills, s)
		}
		k := foldLetters(s)
		if j, ok := seen[k]; ok {
			return fmt.Errorf("%w: skill %q declared twice (as %q and %q)", ErrBadSkills, s, skills[j], s)
		}
		seen[k] = i
	}
	return nil
}

// foldLetters is a name's letters, lower-cased, as the string read from a sheet is compared.
func foldLetters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// latinScript reports whether every letter of s is one Tesseract's English model can read
// (ASCII letters and digits, plus Latin letters with diacritics, read as their base letter).
func latinScript(s string) bool {
	for _, r := range judge.LetterRunes(s) {
		if r < 128 {
			continue
		}
		if !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}

// levenshtein is the edit distance between two rune slices.
func levenshtein(a, b []rune) int {
	if len(a) == 0 {
		return len(b)
	}
	if len(b) == 0 {
		return len(a)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if !sameLetter(a[i-1], b[j-1]) {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// sameLetter compares two lower-cased letters, treating shapes Tesseract commonly confuses in
// handwriting as equal (l/I/1, o/0, s/5, ...).
func sameLetter(a, b rune) bool {
	if a == b {
		return true
	}
	return confusable(a) != 0 && confusable(a) == confusable(b)
}

func confusable(r rune) rune {
	switch r {
	case 'l', 'i', '1', '|', 'j':
		return 'l'
	case 'o', '0':
		return 'o'
	case 's', '5':
		return 's'
	case 'z', '2':
		return 'z'
	case 'g', '9', 'q':
		return 'g'
	case 'b', '6':
		return 'b'
	case 'u', 'v':
		return 'u'
	}
	return 0
}

// similarity is 1 - normalised edit distance between what was read and a skill's letters,
// both folded (foldLetters); 0 when nothing was read.
func similarity(read, skill string) float64 {
	a, b := []rune(read), []rune(skill)
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	d := levenshtein(a, b)
	return 1 - float64(d)/float64(max(len(a), len(b)))
}

// Unreadable returns the distinct letters of name outside the Latin script, which the English
// model Tesseract reads with cannot produce (a Cyrillic or CJK skill is never located), in
// order of first appearance; nil when there are none.
func Unreadable(name string) []rune {
	var out []rune
	for _, r := range name {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
