package main

import (
	"fmt"
	"io"

	"tearcam/ocr"
	"tearcam/session"
)

// warnUnreadable notes on w, once per skill, the declared skills with letters outside the
// Latin alphabet: tearcam reads with Tesseract's English model, which cannot produce them,
// so such a skill is reported not located (issue 4: "skills with non-Latin letters: a clear
// message").
func warnUnreadable(w io.Writer, m *session.Manifest) {
	for _, p := range m.Players {
		warnUnreadableSkills(w, p.Name, p.Skills)
	}
}

// warnUnreadableSkills is warnUnreadable for one player's skills (watch's players).
func warnUnreadableSkills(w io.Writer, player string, skills []string) {
	for _, s := range skills {
		if rs := ocr.Unreadable(s); len(rs) > 0 {
			fmt.Fprintf(w, "note: %s's skill %q has letters outside the Latin alphabet (%s), which tearcam's OCR (Tesseract, English model) cannot read: it will be reported not located\n", player, s, string(rs))
		}
	}
}
