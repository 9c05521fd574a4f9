package watch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tearcam/judge"
	"tearcam/session"
)

// Announcement is one line the GM typed: a tear to be judged on the next settled sheet, or
// which player's sheet is about to be on the table.
type Announcement struct {
	// Player names the player, from a "NAME:" prefix; empty means "the player whose skill
	// this is", or the only player.
	Player string
	// Tear is the announced tear; its Kind is empty for a "sheet NAME" line.
	Tear judge.Tear
	// Sheet is set by "sheet NAME": the next settled sheet is NAME's.
	Sheet bool
	// GM is the GM's ruling on the player's tear GMTear (from 1), from a "gm N ..." line;
	// its Verdict is empty when the line only adds to the GM's earlier ruling on that tear
	// ("gm 3 remaining Archery=4"). It is checked against the player's skills when applied.
	GM     *judge.GMRuling
	GMTear int
}

// ErrEmptyLine is returned by ParseAnnouncement for a blank or comment line.
var ErrEmptyLine = errors.New("empty announcement")

// ParseAnnouncement reads one GM line:
//
//	use SKILL | damage SKILL | penalty [SKILL] | last-ditch hit|miss | sheet NAME | gm N RULING
//
// where RULING is the GM's ruling on the player's tear N (see ParseGM), e.g. "gm 3 faux_pas
// no_full_letter", "gm 3 valid", "gm 3 remaining Archery=4".
//
// optionally prefixed by "NAME:" to say whose tear it is. Words are case-insensitive; a skill
// may contain spaces ("use Tea Ceremony"). "last_ditch" and "lastditch" are accepted for
// "last-ditch". Blank lines and lines starting with '#' give ErrEmptyLine.
func ParseAnnouncement(line string) (Announcement, error) {
	// Names as every command takes them (session.Name): a skill typed with a combining
	// accent or a zero-width space is the one the manifest or --skills declared.
	s := session.Name(line)
	if s == "" || strings.HasPrefix(s, "#") {
		return Announcement{}, ErrEmptyLine
	}
	var a Announcement
	if name, rest, ok := strings.Cut(s, ":"); ok {
		a.Player = strings.TrimSpace(name)
		s = strings.TrimSpace(rest)
		if a.Player == "" {
			return Announcement{}, fmt.Errorf("announcement %q: empty player name before ':'", line)
		}
	}
	verb, arg, _ := strings.Cut(s, " ")
	arg = strings.Join(strings.Fields(arg), " ")
	switch strings.ToLower(verb) {
	case "use":
		a.Tear.Kind = judge.KindUse
	case "damage":
		a.Tear.Kind = judge.KindDamage
	case "penalty":
		a.Tear.Kind = judge.KindPenalty
	case "last-ditch", "last_ditch", "lastditch":
		a.Tear.Kind = judge.KindLastDitch
		switch strings.ToLower(arg) {
		case "hit":
			a.Tear.Hit = true
		case "miss":
		default:
			return Announcement{}, fmt.Errorf("announcement %q: want last-ditch hit or last-ditch miss", line)
		}
		return a, nil
	case "gm":
		n, rest, _ := strings.Cut(arg, " ")
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 {
			return Announcement{}, fmt.Errorf("announcement %q: want gm N followed by the ruling (N: the tear's number, from 1)", line)
		}
		g, err := ParseGM(rest)
		if err != nil {
			return Announcement{}, fmt.Errorf("announcement %q: %v", line, err)
		}
		a.GM, a.GMTear = g, k
		return a, nil
	case "sheet":
		if arg == "" {
			return Announcement{}, fmt.Errorf("announcement %q: want sheet NAME", line)
		}
		if a.Player != "" && !strings.EqualFold(a.Player, arg) {
			return Announcement{}, fmt.Errorf("announcement %q: two player names", line)
		}
		a.Player, a.Sheet = arg, true
		return a, nil
	default:
		return Announcement{}, fmt.Errorf("announcement %q: want use, damage, penalty, last-ditch, sheet or gm", line)
	}
	if arg == "" && a.Tear.Kind != judge.KindPenalty {
		return Announcement{}, fmt.Errorf("announcement %q: %s needs a skill", line, a.Tear.Kind)
	}
	a.Tear.Skill = arg
	return a, nil
}

// ParseGM reads the GM's ruling on a tear as typed after "gm N":
//
//	[valid | faux_pas FAULT...] [remaining SKILL=N, SKILL=N...] [paper fits|short] [out REASON] [note TEXT]
//
// the same fields as a manifest's gm: (README, "The GM's ruling"). Words are
// case-insensitive; a fault or reason may be written with '-' for '_'; a skill may contain
// spaces ("remaining Tea Ceremony=4, Archery=0"); the note is the rest of the line. The verdict
// may be left out to add to the GM's earlier ruling on the tear. What it names (faults,
// skills, counts) is checked when it is applied (judge.GMRuling.Check).
func ParseGM(s string) (*judge.GMRuling, error) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return nil, errors.New("the GM's ruling is missing: want valid, faux_pas FAULT..., remaining SKILL=N, paper fits|short, out REASON or note TEXT")
	}
	code := func(w string) string { return strings.ReplaceAll(strings.ToLower(strings.Trim(w, ",")), "-", "_") }
	keyword := func(w string) bool {
		switch code(w) {
		case "valid", "faux_pas", "fauxpas", "remaining", "paper", "out", "note":
			return true
		}
		return false
	}
	g := &judge.GMRuling{}
	seen := map[string]bool{}
	for i := 0; i < len(words); {
		w := code(words[i])
		if w == "fauxpas" {
			w = "faux_pas"
		}
		field := w
		if w == "valid" || w == "faux_pas" {
			field = "verdict"
		}
		if seen[field] {
			return nil, fmt.Errorf("%s given twice", field)
		}
		seen[field] = true
		i++
		// The words up to the next keyword belong to this one.
		j := i
		for j < len(words) && !keyword(words[j]) {
			j++
		}
		args := words[i:j]
		switch w {
		case "valid":
			g.Verdict = judge.Valid
			if len(args) > 0 {
				return nil, fmt.Errorf("valid takes no faults (%s): a fault makes the tear a faux_pas", strings.Join(args, " "))
			}
		case "faux_pas":
			g.Verdict = judge.FauxPas
			for _, a := range args {
				for _, f := range strings.Split(a, ",") {
					if f = code(f); f != "" {
						g.Faults = append(g.Faults, judge.Fault(f))
					}
				}
			}
			if len(g.Faults) == 0 {
				return nil, errors.New("faux_pas needs faults: which rule was broken (no_full_letter, piece_too_small, not_edge_to_edge, several_pieces, nothing_removed)")
			}
		case "remaining":
			g.Remaining = map[string]int{}
			for _, part := range strings.Split(strings.Join(args, " "), ",") {
				if strings.TrimSpace(part) == "" {
					continue
				}
				name, num, ok := strings.Cut(part, "=")
				n, err := strconv.Atoi(strings.TrimSpace(num))
				name = strings.TrimSpace(name)
				if !ok || err != nil || name == "" {
					return nil, fmt.Errorf("remaining %q: want SKILL=N (letters left), several separated by commas", strings.TrimSpace(part))
				}
				if _, dup := g.Remaining[name]; dup {
					return nil, fmt.Errorf("remaining: skill %q given twice", name)
				}
				g.Remaining[name] = n
			}
			if len(g.Remaining) == 0 {
				return nil, errors.New("remaining needs SKILL=N")
			}
		case "paper":
			if len(args) != 1 || (code(args[0]) != "fits" && code(args[0]) != "short") {
				return nil, errors.New("want paper fits (the template fits on the paper left) or paper short (it does not)")
			}
			fits := code(args[0]) == "fits"
			g.PaperFitsTemplate = &fits
		case "out":
			if len(args) != 1 {
				return nil, errors.New("want out no_skills_left or out too_little_paper")
			}
			g.Out = judge.OutReason(code(args[0]))
		case "note":
			// The rest of the line, keywords and all.
			j = len(words)
			g.Note = strings.Join(words[i:], " ")
			if g.Note == "" {
				return nil, errors.New("note needs the GM's words")
			}
		default:
			return nil, fmt.Errorf("unknown word %q: want valid, faux_pas FAULT..., remaining SKILL=N, paper fits|short, out REASON or note TEXT", words[i-1])
		}
		i = j
	}
	return g, nil
}
