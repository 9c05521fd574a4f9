package main

import (
	"fmt"
	"io"
	"strings"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/session"
)

// rulingsTable prints rulings as a readable table, one player block and one row per tear,
// as they are made (column widths come from the manifest, so rows can be streamed).
type rulingsTable struct {
	w              io.Writer
	photoW, skillW int
	current        string
	before, after  func() // around each write: hide and redraw a progress bar
	// shown are the letter counts printed in the current player's block, whose "?" the
	// block's last line explains once (judge.UncertainLegend).
	shown []judge.SkillState
}

func newRulingsTable(w io.Writer, m *session.Manifest) *rulingsTable {
	t := &rulingsTable{w: w, photoW: len("photo"), skillW: len("skill")}
	for _, p := range m.Players {
		for _, tr := range p.Tears {
			t.photoW = max(t.photoW, len(tr.Photo))
			t.skillW = max(t.skillW, len(tr.Skill))
		}
	}
	return t
}

func (t *rulingsTable) printf(format string, a ...any) {
	if t.before != nil {
		t.before()
	}
	fmt.Fprintf(t.w, format, a...)
	if t.after != nil {
		t.after()
	}
}

// sheet prints a player's header: the untorn sheet and what was located on it.
func (t *rulingsTable) sheet(player string, s judge.SheetResult, words []referee.Word) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: untorn sheet %s ", player, s.Photo)
	switch {
	case !s.Found:
		fmt.Fprintf(&b, "NOT READ (%s)", s.Error)
	case len(s.Skills) == 0:
		b.WriteString("found; no skills declared; words found for the GM to confirm: ")
		if len(words) == 0 {
			b.WriteString("none")
		}
		for i, w := range words {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q (%.0f%%)", w.Text, 100*w.Confidence)
		}
	default:
		b.WriteString("found; letters located:")
		for i, k := range s.Skills {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + k.LocatedLabel())
		}
		if s.Error != "" {
			fmt.Fprintf(&b, " (%s)", s.Error)
		}
	}
	t.legend()
	t.current = player
	t.printf("%s\n  %3s  %-*s  %-10s  %-*s  %s\n", b.String(), "#", t.photoW, "photo", "kind", t.skillW, "skill", "verdict")
}

// ruling prints one tear's row and the letters left after it.
func (t *rulingsTable) ruling(player string, r judge.TearRuling) {
	photo := r.Photo
	if photo == "" {
		photo = "-"
	}
	var detail []string
	if len(r.Faults) > 0 {
		fs := make([]string, len(r.Faults))
		for i, f := range r.Faults {
			fs[i] = string(f)
		}
		detail = append(detail, strings.Join(fs, ", "))
	}
	if r.Hit != nil {
		if *r.Hit {
			detail = append(detail, "the ball hit the GM")
		} else {
			detail = append(detail, "the ball missed the GM")
		}
	}
	if r.OwedTears > 0 {
		detail = append(detail, fmt.Sprintf("%d %s owed", r.OwedTears, plural(r.OwedTears, "tear", "tears")))
	}
	if r.Out {
		detail = append(detail, "OUT: "+string(r.OutReason))
	}
	if r.UndecidedReason != "" {
		// Last: a reason is a paragraph ending in what the GM does, and the state after
		// the tear (tears owed) read as part of it when it followed (a tester).
		detail = append(detail, r.UndecidedReason)
	}
	line := fmt.Sprintf("  %3d  %-*s  %-10s  %-*s  %-9s", r.Index, t.photoW, photo, r.Kind, t.skillW, r.Skill, r.Verdict)
	if len(detail) > 0 {
		line += "  " + strings.Join(detail, "; ")
	}
	if len(r.Skills) == 0 {
		// Discovery mode: no skills declared, no letters to count (a tester: an empty
		// "letters left" line).
		t.printf("%s\n", strings.TrimRight(line, " "))
		t.shown = append(t.shown, r.Skills...)
		return
	}
	if gm := judge.GMLine(r); gm != "" {
		line = strings.TrimRight(line, " ") + "\n       " + gm
	}
	t.printf("%s\n  %3s  %s: %s\n", strings.TrimRight(line, " "), "", judge.LettersLeftLabel(r), judge.LetterCounts(r.Skills))
	t.shown = append(t.shown, r.Skills...)
}

// legend ends the current player's block: the "?" of its counts explained once, if any.
// Call it after the last ruling (sheet calls it before a new player's block).
func (t *rulingsTable) legend() {
	if l := judge.UncertainLegend(t.shown); l != "" {
		t.printf("  %3s  %s\n", "", l)
	}
	t.shown = nil
}
