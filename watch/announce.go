package watch

import (
	"errors"
	"fmt"
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
}

// ErrEmptyLine is returned by ParseAnnouncement for a blank or comment line.
var ErrEmptyLine = errors.New("empty announcement")

// ParseAnnouncement reads one GM line:
//
//	use SKILL | damage SKILL | penalty [SKILL] | last-ditch hit|miss | sheet NAME
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
		return Announcement{}, fmt.Errorf("announcement %q: want use, damage, penalty, last-ditch or sheet", line)
	}
	if arg == "" && a.Tear.Kind != judge.KindPenalty {
		return Announcement{}, fmt.Errorf("announcement %q: %s needs a skill", line, a.Tear.Kind)
	}
	a.Tear.Skill = arg
	return a, nil
}
