package ocr

import (
	"errors"
	"fmt"
	"math"
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

// alignment maps each letter of skill to the index of the read rune it was matched with
// (-1 when the letter was inserted), by the edit-distance alignment of read against skill.
func alignment(read, skill []rune) []int {
	n, m := len(read), len(skill)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			c := d[i-1][j-1]
			if !sameLetter(read[i-1], skill[j-1]) {
				c++
			}
			d[i][j] = min(c, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	out := make([]int, m)
	for j := range out {
		out[j] = -1
	}
	i, j := n, m
	for i > 0 && j > 0 {
		c := 1
		if sameLetter(read[i-1], skill[j-1]) {
			c = 0
		}
		switch {
		case d[i][j] == d[i-1][j-1]+c:
			out[j-1] = i - 1
			i--
			j--
		case d[i][j] == d[i-1][j]+1:
			i--
		default:
			j--
		}
	}
	return out
}

// assign solves the assignment problem: rows (regions) to columns (skills), maximising the
// summed score; score[r][c] < 0 forbids a pair. It returns, per column, the row assigned or -1.
// Hungarian algorithm (Kuhn-Munkres, O(n^3)) on the padded square cost matrix.
func assign(score [][]float64, cols int) []int {
	rows := len(score)
	n := max(rows, cols)
	out := make([]int, cols)
	for i := range out {
		out[i] = -1
	}
	if n == 0 {
		return out
	}
	const big = 1e6
	cost := make([][]float64, n+1)
	for i := range cost {
		cost[i] = make([]float64, n+1)
	}
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			v := 0.0
			if r < rows && c < cols {
				if s := score[r][c]; s > 0 {
					v = s
				}
			}
			cost[r+1][c+1] = -v
		}
	}
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	p := make([]int, n+1)
	way := make([]int, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]float64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = big
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				cur := cost[i0][j] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
			if j0 == 0 {
				break
			}
		}
	}
	for j := 1; j <= n; j++ {
		r, c := p[j]-1, j-1
		if r >= 0 && r < rows && c < cols && score[r][c] > 0 {
			out[c] = r
		}
	}
	return out
}
