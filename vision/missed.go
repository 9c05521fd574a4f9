package vision

import "tearcam/judge"

// Paper a photo's mask may have missed.
//
// Measure doubts a removed piece that still shows the fresh sheet's writing, or a hole that
// looks like the paper around it (shade), or a piece at the sheet's edge with no tear line
// seen bounding it (tearLineUnseen): the after photo's paper mask may have missed paper
// there, and the tear is undecided. The sheet after that tear is the next tear's "before",
// and before this, its mask said "no paper" there for certain: the next photo, showing that
// paper, was refused as paper reappearing ("paper only shrinks"), and so was every photo after
// it, each measured against the same sheet (held-out seed 9 case-007: one shaded patch of
// 1011 mm² missed on chidi-1 refused chidi-2, -3 and -4; seeds 6, 7 and 9: 10 tears so lost).
//
// markMissed makes such pieces unknown on the after-sheet instead (unknownMissed; Mask stays
// 0 there), as the part of the frame a photo that cut the sheet off does not show
// (cutoff.go): the next measurement fills them where its photo shows paper (paper only
// shrinks, so the paper was there), and what it does not show is a "maybe" region, removed by
// that tear or gone before it, with its doubts and letters measured both ways. The letters
// the doubted pieces made gone keep the history they had before the tear (applyHistory), so
// that a letter shown again later is measured, not counted gone for good.

// unknownMissed marks, in SheetImage.unknown, paper the sheet's own mask may have missed
// (markMissed); the part of the frame a photo did not show is 255 (cutoff.go).
const unknownMissed = 128

// markMissed marks the pixels of missed (frame layout, 255: the doubted removed pieces) as
// unknown on after (unknownMissed). The letters are measured with the pieces removed and with
// them kept (bm, am, removed, seen as Measure measured them); each letter whose state differs,
// and that was not gone before, is unknown in letters (Measure's result: whether this tear
// took it cannot be told, and it is counted as left, not certain) and keeps before's history,
// so that the next photo measures it again. after.Mask is not changed.
func markMissed(before, after *SheetImage, missed, bm, am, removed []byte, ai afterInk, w, h int, layouts []judge.SkillLayout, resid float64, letters []judge.SkillLetters) {
	if len(after.unknown) != w*h {
		after.unknown = make([]byte, w*h)
	}
	kept, rest := append([]byte(nil), am...), append([]byte(nil), removed...)
	for i, v := range missed {
		if v == 0 {
			continue
		}
		if after.unknown[i] == 0 {
			after.unknown[i] = unknownMissed
		}
		kept[i], rest[i] = 255, 0
	}
	if len(layouts) == 0 {
		return
	}
	if after.letterHist == nil {
		after.letterHist = make(map[letterKey]int)
	}
	raw := letterStates(before, bm, am, removed, ai, w, h, layouts, resid)
	alt := letterStates(before, bm, kept, rest, ai, w, h, layouts, resid)
	for si := range letters {
		for li, st := range letters[si].States {
			if si >= len(raw) || li >= len(raw[si].States) || si >= len(alt) || li >= len(alt[si].States) ||
				alt[si].States[li] == raw[si].States[li] || st == judge.LetterGone {
				continue
			}
			letters[si].States[li] = judge.LetterUnknown
			k := letterKey{si, li}
			if v, ok := before.letterHist[k]; ok {
				after.letterHist[k] = v
			} else {
				delete(after.letterHist, k)
			}
		}
	}
}

// maybeWhere says where the maybe region's paper (partialMasks) may have been lost: outside
// the view of a photo that cut the sheet off, where the photo before this tear may have
// missed it (markMissed), or both, by the before-sheet's unknown kinds under it.
func maybeWhere(before *SheetImage, maybe []byte) string {
	cut, missed := false, false
	if len(before.unknown) == len(maybe) {
		for i, v := range maybe {
			if v == maybeBefore {
				switch before.unknown[i] {
				case unknownMissed:
					missed = true
				case 0:
				default:
					cut = true
				}
			} else if v != 0 {
				cut = true
			}
		}
	} else {
		cut = true
	}
	const (
		outside = "outside the view of a photo that cut the sheet off"
		doubted = "where the photo before this tear may have missed paper (its measurement was in doubt there)"
	)
	switch {
	case missed && cut:
		return outside + " or " + doubted
	case missed:
		return doubted
	}
	return outside
}

// addPiece adds a piece's pixels (pm, 255) to acc (nil: a new mask of pm's size) and
// returns it.
func addPiece(acc, pm []byte) []byte {
	if acc == nil {
		acc = make([]byte, len(pm))
	}
	for i, v := range pm {
		if v != 0 {
			acc[i] = 255
		}
	}
	return acc
}
