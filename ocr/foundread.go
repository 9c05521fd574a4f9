package ocr

import "math"

// Reads without the letters of skills not found. Every region is read with the letters of all
// the declared skills allowed (whitelistFor), so a declared skill that is not on the sheet
// still changes how the others read: on the bundled sample, declaring "Cooking" as well lets
// Tesseract read "hand" as "honed" (an o and an e allowed), 50% like the name instead of 75%,
// and the read with only the name's letters then looks like another word forced into them
// (refused): 88% -> 30%. Once the skills are assigned, each located skill's orientation is
// read once more (both read modes, and the other size when it was read at one) with only the
// letters of the skills that were found, which is how it would have read had the missing
// skills not been declared; the read more like the name is kept. A skill whose ink reads
// nearly as well like a missing skill (ambiguous) is not read again: that ink may be the
// missing skill's word, and leaving its letters out would read it away from it.

// rivalOf is the best similarity of the ink matched to skill k with a declared skill that was
// not found, and that skill's name ("" when there is none).
func rivalOf(m skillMatch, k int, match []skillMatch, skills, folded []string) (float64, string) {
	rival, name := 0.0, ""
	if m.cand == nil {
		return rival, name
	}
	for k2 := range skills {
		if k2 != k && match[k2].view == nil && latinScript(skills[k2]) {
			if _, s2 := m.cand.bestView(folded[k2]); s2 > rival {
				rival, name = s2, skills[k2]
			}
		}
	}
	return rival, name
}

// rereadFound reads each located skill's orientation again with only the letters of the
// located skills allowed, when the skills not found added letters to the whitelist, and keeps
// the read when it is more like the name (see above). It returns the reads it made.
func (l *Locator) rereadFound(im *inkMap, match []skillMatch, skills, folded []string, whitelist string) (int, error) {
	var found []string
	for k, s := range skills {
		if latinScript(s) && match[k].view != nil {
			found = append(found, s)
		}
	}
	wl := whitelistFor(found)
	if len(found) == 0 || wl == whitelist {
		return 0, nil
	}
	type again struct {
		k int
		c *candidate
	}
	var todo []again
	var views []*view
	for k := range skills {
		m := match[k]
		if m.view == nil || m.cand == nil || m.sim >= 1 {
			continue
		}
		if rival, _ := rivalOf(m, k, match, skills, folded); (evidence{sim: m.sim, rival: rival}).ambiguous() {
			continue
		}
		c := &candidate{rg: m.cand.rg, parts: m.cand.parts, whole: m.cand.whole}
		for _, v := range m.cand.views {
			if v.rg == m.view.rg && v.rd != nil {
				c.views = append(c.views, &view{rg: v.rg, psm: v.psm, zoom: v.zoom})
			}
		}
		todo = append(todo, again{k, c})
		views = append(views, c.views...)
	}
	if len(views) == 0 {
		return 0, nil
	}
	l.readAll(im, views, wl)
	for _, v := range views {
		if v.err != nil {
			return len(views), v.err
		}
	}
	for _, a := range todo {
		m := &match[a.k]
		v, s := a.c.bestView(folded[a.k])
		if v == nil || s <= m.sim {
			continue
		}
		second := 0.0
		for k2 := range skills {
			if k2 != a.k && latinScript(skills[k2]) {
				_, s2 := a.c.bestView(folded[k2])
				second = math.Max(second, s2)
			}
		}
		m.view, m.sim, m.margin = v, s, s-second
	}
	return len(views), nil
}
