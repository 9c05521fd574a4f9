package vision

import (
	"math"
	"sort"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Letter states.
//
// A letter's ink is the pixels inside its outline (from ocr/) clearly darker than the paper
// around it on the before-image; when none are, the whole outline stands in for the ink. Each
// ink pixel is on the before-sheet or not, and on the after-sheet or not. A pixel within the
// uncertainty radius (0.5 mm plus the registration residual) of the tear, that is of a
// before-paper pixel on the other side, is uncertain. A letter is gone if some of its ink was
// already off the before-sheet, cut if both sides hold certain ink, on_sheet or removed if all
// of its ink is on one side and none is uncertain, and ambiguous otherwise.

const letterMinPx = 2 // ink pixels needed to count a side (1/8 mm² at 4 px/mm)

func letterStates(before *SheetImage, bm, am []byte, w, h int, layouts []judge.SkillLayout, resid float64) []judge.SkillLetters {
	if len(layouts) == 0 {
		return nil
	}
	ppm := before.PxPerMM
	gray := gocv.NewMat()
	gocv.CvtColor(before.Image, &gray, gocv.ColorBGRToGray)
	g := gray.ToBytes()
	gray.Close()
	rad := int(math.Ceil((0.5 + resid) * ppm))
	out := make([]judge.SkillLetters, len(layouts))
	for si, sk := range layouts {
		out[si].Name = sk.Name
		if sk.Located == 0 || len(sk.Letters) == 0 {
			continue
		}
		out[si].States = make([]judge.LetterState, len(sk.Letters))
		for li, le := range sk.Letters {
			out[si].States[li] = letterState(le, g, bm, am, w, h, ppm, rad)
		}
	}
	return out
}

func letterState(le judge.Letter, g, bm, am []byte, w, h int, ppm float64, rad int) judge.LetterState {
	if len(le.Outline) < 3 {
		return judge.LetterUnknown
	}
	poly := make([]pt, len(le.Outline))
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, p := range le.Outline {
		poly[i] = mmToPx(pt{p.X, p.Y}, ppm)
		x0, y0 = math.Min(x0, poly[i].X), math.Min(y0, poly[i].Y)
		x1, y1 = math.Max(x1, poly[i].X), math.Max(y1, poly[i].Y)
	}
	bx0, by0 := int(math.Floor(x0)), int(math.Floor(y0))
	bx1, by1 := int(math.Ceil(x1)), int(math.Ceil(y1))
	if bx1 < 0 || by1 < 0 || bx0 >= w || by0 >= h {
		return judge.LetterUnknown
	}
	// Paper level around the letter.
	pad := int(2 * ppm)
	var paper []int
	for y := max(0, by0-pad); y <= min(h-1, by1+pad); y++ {
		for x := max(0, bx0-pad); x <= min(w-1, bx1+pad); x++ {
			if bm[y*w+x] != 0 {
				paper = append(paper, int(g[y*w+x]))
			}
		}
	}
	var inside, ink []int
	for y := max(0, by0); y <= min(h-1, by1); y++ {
		for x := max(0, bx0); x <= min(w-1, bx1); x++ {
			if pointInPoly(pt{float64(x), float64(y)}, poly) {
				inside = append(inside, y*w+x)
			}
		}
	}
	if len(inside) == 0 {
		return judge.LetterUnknown
	}
	if len(paper) > 0 {
		sort.Ints(paper)
		level := paper[len(paper)*3/4] // the paper is the bright majority
		thr := level - max(25, level/5)
		for _, i := range inside {
			if int(g[i]) < thr && bm[i] != 0 {
				ink = append(ink, i)
			}
		}
		// Ink already off the sheet (outline pixels off the before paper count too).
		for _, i := range inside {
			if bm[i] == 0 && !near(i, bm, am, w, h, rad, true) {
				return judge.LetterGone
			}
		}
	}
	if len(ink) < letterMinPx {
		ink = inside
	}
	var onC, onU, remC, remU, goneC int
	for _, i := range ink {
		if bm[i] == 0 {
			if !near(i, bm, am, w, h, rad, true) {
				goneC++
			}
			continue
		}
		unc := near(i, bm, am, w, h, rad, false)
		switch {
		case am[i] != 0 && unc:
			onU++
		case am[i] != 0:
			onC++
		case unc:
			remU++
		default:
			remC++
		}
	}
	// A side counts when it holds at least letterMinPx pixels and 4% of the ink: a few stray
	// pixels of mask noise do not cut a letter.
	k := max(letterMinPx, len(ink)/25)
	switch {
	case goneC >= k:
		return judge.LetterGone
	case remC >= k && onC >= k:
		return judge.LetterCut
	case remC+remU < k && onU == 0:
		return judge.LetterOnSheet
	case onC+onU < k && remU == 0:
		return judge.LetterRemoved
	}
	return judge.LetterAmbiguous
}

// near reports whether pixel i lies within rad of a pixel in the other state: for the tear
// (beforeEdge false), a before-paper pixel whose after-state differs; for the before-sheet's
// edge (beforeEdge true), a before-paper pixel.
func near(i int, bm, am []byte, w, h, rad int, beforeEdge bool) bool {
	x, y := i%w, i/w
	r2 := rad * rad
	for dy := -rad; dy <= rad; dy++ {
		yy := y + dy
		if yy < 0 || yy >= h {
			continue
		}
		for dx := -rad; dx <= rad; dx++ {
			xx := x + dx
			if xx < 0 || xx >= w || dx*dx+dy*dy > r2 {
				continue
			}
			j := yy*w + xx
			if beforeEdge {
				if bm[j] != 0 {
					return true
				}
			} else if bm[j] != 0 && (am[j] != 0) != (am[i] != 0) {
				return true
			}
		}
	}
	return false
}
