package template

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Paper is a sheet's size in millimetres, portrait (WidthMM <= HeightMM is not required: a
// custom "WxH" keeps the order given).
type Paper struct {
	Name     string  // as given: "a4", "letter" or "WxH"
	WidthMM  float64 // short side for a4 and letter
	HeightMM float64
}

// ParsePaper reads "a4" (210 x 297 mm), "letter" (215.9 x 279.4 mm) or "WxH" in millimetres
// (e.g. "210x297"); the empty string is a4. Sides must lie in 20..2000 mm.
func ParsePaper(s string) (Paper, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "a4":
		return Paper{Name: "a4", WidthMM: 210, HeightMM: 297}, nil
	case "letter":
		return Paper{Name: "letter", WidthMM: 215.9, HeightMM: 279.4}, nil
	}
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return Paper{}, fmt.Errorf("paper %q: want a4, letter or WxH in millimetres", s)
	}
	w, h = strings.TrimSpace(w), strings.TrimSpace(h)
	wf, err1 := strconv.ParseFloat(w, 64)
	hf, err2 := strconv.ParseFloat(h, 64)
	if !plainMM.MatchString(w) || !plainMM.MatchString(h) || err1 != nil || err2 != nil ||
		!(wf >= 20 && wf <= 2000) || !(hf >= 20 && hf <= 2000) {
		return Paper{}, fmt.Errorf("paper %q: want WxH in millimetres, plain numbers like 148x210 or 215.9x279.4, each side 20..2000", s)
	}
	return Paper{Name: s, WidthMM: wf, HeightMM: hf}, nil
}

// plainMM is a size in millimetres as people write it: digits, an optional decimal point
// (strconv alone would also take "1e3", "0x1p4" or "1_000").
var plainMM = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// AreaMM2 is the paper's area in mm².
func (p Paper) AreaMM2() float64 { return p.WidthMM * p.HeightMM }

// FitsOn reports whether the template fits on an untorn sheet of paper p under some rotation
// (every 0.25°) and translation: a polygon fits in a rectangle exactly when, at some
// rotation, its bounding box does. A template that does not fit on the untorn sheet makes
// the game impossible (the character would be out at the first tear), so manifests and the
// judge command refuse it (CheckPaper).
func (t Template) FitsOn(p Paper) bool {
	for a := 0.0; a < 180; a += 0.25 {
		pl := t.Apply(Placement{AngleDeg: a})
		minX, minY := math.Inf(1), math.Inf(1)
		maxX, maxY := math.Inf(-1), math.Inf(-1)
		for _, q := range pl {
			minX, maxX = math.Min(minX, q[0]), math.Max(maxX, q[0])
			minY, maxY = math.Min(minY, q[1]), math.Max(maxY, q[1])
		}
		if maxX-minX <= p.WidthMM && maxY-minY <= p.HeightMM {
			return true
		}
	}
	return false
}

// CheckPaper is nil when the template fits on the untorn paper, else an error saying both
// sizes.
func (t Template) CheckPaper(p Paper) error {
	if t.FitsOn(p) {
		return nil
	}
	minX, minY, maxX, maxY := t.Bounds()
	return fmt.Errorf("template %q (%.1f x %.1f mm) does not fit on the paper %s (%g x %g mm)",
		t.Name, maxX-minX, maxY-minY, p.Name, p.WidthMM, p.HeightMM)
}
