package ocr

import (
	"fmt"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Ink fractions of a letter's outline: below inkNone nothing of the letter is there; at or above
// inkSome something is. Letters cover 10-50% of their box.
const (
	inkNone = 0.02
	inkSome = 0.06
)

// Reread reads a later registered sheet image again and compares with what the geometry says
// is left (states per skill, as judge.SkillLetters, in the order of layouts); returns
// disagreements as human-readable notes, none when both agree. sheet and mask are in the
// sheet frame at pxPerMM, like the fresh sheet given to Locate.
//
// Two checks: each letter the geometry keeps (LetterOnSheet) must still have ink inside its
// outline, and each letter it took away (LetterRemoved, LetterGone) must have none on the
// paper; and the letters kept, read again with Tesseract, must still read like themselves.
func (l *Locator) Reread(sheet, mask gocv.Mat, pxPerMM float64, layouts []judge.SkillLayout, states []judge.SkillLetters) ([]string, error) {
	im, err := extractInk(sheet, mask, pxPerMM)
	if err != nil {
		return nil, fmt.Errorf("reread sheet: %w", err)
	}
	paper := im.paper
	var notes []string
	for k, lay := range layouts {
		if lay.Located == 0 || k >= len(states) {
			continue
		}
		st := states[k].States
		if len(st) != len(lay.Letters) {
			notes = append(notes, fmt.Sprintf("%s: %d letter states for %d located letters, not compared", lay.Name, len(st), len(lay.Letters)))
			continue
		}
		var kept []int
		for i, le := range lay.Letters {
			ink, onPaper := im.inkIn(le.Outline, paper)
			switch st[i] {
			case judge.LetterOnSheet:
				kept = append(kept, i)
				// Low-confidence layouts may hold outlines placed without ink of their own:
				// no ink there proves nothing.
				if ink < inkNone && lay.Confidence >= judge.WeakReadConfidence {
					notes = append(notes, fmt.Sprintf("%s: letter %d %q should be on the sheet but no ink is there", lay.Name, i+1, le.Char))
				}
			case judge.LetterRemoved, judge.LetterGone:
				if ink >= inkSome && onPaper > 0.95 {
					notes = append(notes, fmt.Sprintf("%s: letter %d %q should be gone but its ink is still on the sheet", lay.Name, i+1, le.Char))
				}
			}
		}
		if len(kept) >= 3 && lay.Confidence >= judge.WeakReadConfidence {
			if n := l.rereadWord(im, lay, kept); n != "" {
				notes = append(notes, n)
			}
		}
	}
	return notes, nil
}

// rereadWord reads the ink under the kept letters and says so when it does not read like them.
func (l *Locator) rereadWord(im *inkMap, lay judge.SkillLayout, kept []int) string {
	var want strings.Builder
	var quads [][]judge.Point
	for _, i := range kept {
		want.WriteString(lay.Letters[i].Char)
		quads = append(quads, lay.Letters[i].Outline)
	}
	var comps []int
	for ci := range im.comps {
		in := 0
		for _, p := range im.comps[ci].pix {
			x, y := (float64(int(p)%im.w)+0.5)/im.pxPerMM, (float64(int(p)/im.w)+0.5)/im.pxPerMM
			for _, q := range quads {
				if inQuad(q, x, y, 0.5) {
					in++
					break
				}
			}
		}
		if in*2 > len(im.comps[ci].pix) {
			comps = append(comps, ci)
		}
	}
	if len(comps) == 0 {
		return ""
	}
	rg := im.newRegion(comps)
	if rg == nil {
		return ""
	}
	// Reading direction: from the first kept letter's centre to the last one's.
	a, b := quadCentre(lay.Letters[kept[0]].Outline), quadCentre(lay.Letters[kept[len(kept)-1]].Outline)
	if math.Hypot(b.X-a.X, b.Y-a.Y) < 1 {
		return ""
	}
	rg.setAngle(math.Atan2(b.Y-a.Y, b.X-a.X), im.w)
	var views []*view
	for _, psm := range readModes {
		views = append(views, &view{rg: rg, psm: psm})
	}
	l.readAll(im, views, whitelistFor([]string{lay.Name}))
	best, bestText := -1.0, ""
	for _, v := range views {
		if v.err != nil || v.rd == nil {
			continue
		}
		if s := similarity(v.rd.folded(), foldLetters(want.String())); s > best {
			best, bestText = s, v.rd.text
		}
	}
	// Only a definite reading of something else disagrees; reading nothing (or a letter or
	// two) is no evidence either way.
	if best >= 0 && best < minSimilar && len([]rune(foldLetters(bestText))) >= 3 {
		return fmt.Sprintf("%s: re-read finds %q where the geometry leaves %q", lay.Name, bestText, want.String())
	}
	return ""
}

func quadCentre(q []judge.Point) judge.Point {
	var c judge.Point
	for _, p := range q {
		c.X += p.X / float64(len(q))
		c.Y += p.Y / float64(len(q))
	}
	return c
}

// inkIn is the fraction of the outline's pixels that are ink, and the fraction on paper
// (1 when there is no mask).
func (im *inkMap) inkIn(q []judge.Point, paper []uint8) (ink, onPaper float64) {
	if len(q) < 3 {
		return 0, 0
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range q {
		x0, x1 = math.Min(x0, p.X), math.Max(x1, p.X)
		y0, y1 = math.Min(y0, p.Y), math.Max(y1, p.Y)
	}
	n, nInk, nPaper := 0, 0, 0
	for py := int(y0 * im.pxPerMM); py <= int(y1*im.pxPerMM); py++ {
		for px := int(x0 * im.pxPerMM); px <= int(x1*im.pxPerMM); px++ {
			x, y := (float64(px)+0.5)/im.pxPerMM, (float64(py)+0.5)/im.pxPerMM
			if !inQuad(q, x, y, 0) {
				continue
			}
			n++
			if px < 0 || py < 0 || px >= im.w || py >= im.h {
				continue
			}
			i := py*im.w + px
			if im.label[i] != 0 {
				nInk++
			}
			if paper == nil || paper[i] != 0 {
				nPaper++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(nInk) / float64(n), float64(nPaper) / float64(n)
}

// inQuad reports whether (x, y) is inside the convex polygon q grown by pad mm.
func inQuad(q []judge.Point, x, y, pad float64) bool {
	sign := 0.0
	for i := range q {
		a, b := q[i], q[(i+1)%len(q)]
		ex, ey := b.X-a.X, b.Y-a.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		c := (ex*(y-a.Y) - ey*(x-a.X)) / l
		if sign == 0 {
			// Orientation of the polygon from its signed area.
			area := 0.0
			for j := range q {
				p1, p2 := q[j], q[(j+1)%len(q)]
				area += p1.X*p2.Y - p2.X*p1.Y
			}
			sign = 1
			if area < 0 {
				sign = -1
			}
		}
		if c*sign < -pad {
			return false
		}
	}
	return true
}
