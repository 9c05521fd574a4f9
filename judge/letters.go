package judge

import "unicode"

// Letters counts the letters of a skill name: each Unicode letter or digit; spaces and
// punctuation are not letters (DESIGN.md "Definitions": "Tea Ceremony" has 11).
func Letters(name string) int {
	n := 0
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// LetterRunes returns the letters of a skill name in reading order, as Letters counts them.
func LetterRunes(name string) []rune {
	var out []rune
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, r)
		}
	}
	return out
}
