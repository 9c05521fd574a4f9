package ocr

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Word is one piece of writing found on a sheet by Discover.
type Word struct {
	Text       string        // what Tesseract read, at the best of the orientations tried
	Confidence float64       // 0..1, Tesseract's mean symbol confidence
	Outline    []judge.Point // the word's ink box in the sheet frame, mm (reading order corners)
}

// Discover lists the words found on a sheet whose skills were not declared, with confidences,
// in reading order of the sheet (top to bottom, left to right). Words with nothing readable
// are left out. It is for the GM to confirm, not a ruling.
func (l *Locator) Discover(sheet, mask gocv.Mat, pxPerMM float64) ([]Word, error) {
	im, err := extractInk(sheet, mask, pxPerMM)
	if err != nil {
		return nil, fmt.Errorf("discover words: %w", err)
	}
	regions := im.groupWords(wordGap)
	var views []*view
	owner := map[*view]int{}
	for i, rg := range regions {
		for _, o := range orientations(rg, im.w) {
			for _, psm := range readModes {
				v := &view{rg: o, psm: psm}
				views = append(views, v)
				owner[v] = i
			}
		}
	}
	l.readAll(im, views, "")
	best := make([]*view, len(regions))
	score := func(v *view) float64 {
		// Confident reads of several letters beat confident reads of one stray glyph.
		n := float64(len([]rune(v.rd.text)))
		return v.rd.conf * math.Min(1, n/3)
	}
	for _, v := range views {
		if v.err != nil {
			return nil, fmt.Errorf("discover words: %w", v.err)
		}
		i := owner[v]
		if v.rd.text == "" {
			continue
		}
		if best[i] == nil || score(v) > score(best[i]) {
			best[i] = v
		}
	}
	var out []Word
	for _, v := range best {
		if v == nil {
			continue
		}
		text := wordText(v.rd)
		out = append(out, Word{
			Text:       text,
			Confidence: round3(v.rd.conf / 100),
			Outline:    im.outline(v.rg, v.rg.pix, v.rg.u0, v.rg.u1),
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Outline[0], out[j].Outline[0]
		if math.Abs(a.Y-b.Y) > 5 {
			return a.Y < b.Y
		}
		return a.X < b.X
	})
	return out, nil
}

// wordText rebuilds the text with a space where Tesseract's symbols leave a wide gap.
func wordText(rd *reading) string {
	if len(rd.syms) == 0 {
		return rd.text
	}
	var b strings.Builder
	hsum := 0
	for _, s := range rd.syms {
		hsum += s.box.Dy()
	}
	h := float64(hsum) / float64(len(rd.syms))
	for i, s := range rd.syms {
		if i > 0 && float64(s.box.Min.X-rd.syms[i-1].box.Max.X) > 0.45*h {
			b.WriteByte(' ')
		}
		b.WriteRune(s.r)
	}
	return b.String()
}
