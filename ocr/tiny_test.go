package ocr

import "testing"

// TestTinyArea: a mark is tiny (a dot or an accent, no letter of its own) under a fifth of
// the median mark's ink. In print, one mark a letter, the median is a letter's ink; beside a
// capital (400 px) and a joined-up word (2500 px), a dot of 20 px is tiny and they are not.
func TestTinyArea(t *testing.T) {
	cases := []struct {
		name  string
		areas []int
		want  int
	}{
		{"one mark per letter", []int{300, 310, 280, 20, 330}, 300 / 5},
		{"capital, joined-up word and a dot", []int{2500, 400, 20}, 400 / 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tinyArea(append([]int{}, c.areas...)); got != c.want {
				t.Errorf("tinyArea = %d, want %d", got, c.want)
			}
		})
	}
}
