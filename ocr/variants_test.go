package ocr

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReadVariants (OCR_VARIANTS=1; OCR_VARIANTS_SETS=dir:dir) reads each written skill's word
// region (in its estimated direction, the way up nearer the truth's) rendered in several
// ways and tallies, per font family, how like its name each rendering reads, and how like
// the best other name of the sheet. A diagnostic, skipped otherwise.
func TestReadVariants(t *testing.T) {
	if os.Getenv("OCR_VARIANTS") == "" {
		t.Skip("OCR_VARIANTS not set")
	}
	n := 40
	if v, err := strconv.Atoi(os.Getenv("OCR_VARIANTS_N")); err == nil {
		n = v
	}
	var dirs []string
	if s := os.Getenv("OCR_VARIANTS_SETS"); s != "" {
		dirs = strings.Split(s, ":")
	}
	cases := angleCases(t, 100, n, dirs)
	l := newTestLocator(t)
	type variant struct {
		name   string
		render func(im *inkMap, rg *region) *crop
	}
	post := func(f func(cr *crop)) func(im *inkMap, rg *region) *crop {
		return func(im *inkMap, rg *region) *crop {
			cr := im.renderSheared(rg, 1, 0)
			f(cr)
			return cr
		}
	}
	variants := []variant{
		{"base", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 1, 0) }},
		{"solid", post(func(cr *crop) { solidify(cr, 0.25, 0.45) })},
		{"solidlo", post(func(cr *crop) { solidify(cr, 0.12, 0.3) })},
		{"gamma", post(func(cr *crop) {
			for i, p := range cr.pix {
				cr.pix[i] = uint8(255 - math.Min(255, 1.8*float64(255-p)))
			}
		})},
		{"dilate", post(func(cr *crop) { minFilter(cr, 1) })},
		{"erode", post(func(cr *crop) { maxFilter(cr, 1) })},
		{"deslant", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 1, estimateShear(im, rg)) }},
		{"deslant.7", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 1, 0.7*estimateShear(im, rg)) }},
		{"deslant.5", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 1, 0.5*estimateShear(im, rg)) }},
		{"z1.3", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 1.3, 0) }},
		{"z0.75", func(im *inkMap, rg *region) *crop { return im.renderSheared(rg, 0.75, 0) }},
	}
	if s := os.Getenv("OCR_VARIANTS_ONLY"); s != "" {
		var keep []variant
		for _, v := range variants {
			if v.name == "base" || strings.Contains(","+s+",", ","+v.name+",") {
				keep = append(keep, v)
			}
		}
		variants = keep
	}
	type agg struct {
		n                      int
		sim, other             float64
		low, good, exact, lose int
	}
	res := map[string]map[string]*agg{}
	// Names of the same source (sheet) for the "other name" column.
	bySrc := map[*inkMap][]string{}
	for _, c := range cases {
		bySrc[c.im] = append(bySrc[c.im], c.name)
	}
	for _, c := range cases {
		names := bySrc[c.im]
		wl := whitelistFor(names)
		rg := *c.rg
		rg.setAngle(rg.angle(), c.im.w)
		if math.Abs(math.Remainder(rg.angle()-c.angle, 2*math.Pi)) > math.Pi/2 {
			rg.setAngle(rg.angle()+math.Pi, c.im.w)
		}
		font := c.font
		fam := "other"
		if strings.HasPrefix(font, "dkg") {
			fam = "dkg"
		}
		var line []string
		baseSim := 0.0
		for vi, v := range variants {
			cr := v.render(c.im, &rg)
			best, other := 0.0, 0.0
			var texts []string
			for _, psm := range readModes {
				rd, err := l.read(cr, wl, psm)
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, rd.text)
				best = math.Max(best, similarity(rd.folded(), foldLetters(c.name)))
				for _, o := range names {
					if o != c.name {
						other = math.Max(other, similarity(rd.folded(), foldLetters(o)))
					}
				}
			}
			if vi == 0 {
				baseSim = best
			}
			for _, key := range []string{fam, "all"} {
				if res[v.name] == nil {
					res[v.name] = map[string]*agg{}
				}
				a := res[v.name][key]
				if a == nil {
					a = &agg{}
					res[v.name][key] = a
				}
				a.n++
				a.sim += best
				a.other += other
				if best < lowSim {
					a.low++
				}
				if best >= goodSim {
					a.good++
				}
				if best == 1 {
					a.exact++
				}
				if best < baseSim-0.1 {
					a.lose++
				}
			}
			line = append(line, v.name+":"+strings.Join(texts, "/"))
		}
		if fam == "dkg" && os.Getenv("OCR_VARIANTS_V") != "" {
			t.Logf("%s %q %s: %s", c.src, c.name, font, strings.Join(line, " "))
		}
	}
	for _, v := range variants {
		for _, key := range []string{"dkg", "other", "all"} {
			a := res[v.name][key]
			if a == nil {
				continue
			}
			t.Logf("%-8s %-5s n %3d mean sim %.3f (best other name %.3f) under %.1f %3d, good %3d, exact %3d, lost >0.1 vs base %3d",
				v.name, key, a.n, a.sim/float64(a.n), a.other/float64(a.n), lowSim, a.low, a.good, a.exact, a.lose)
		}
	}
}

// solidify maps a crop's ink-ness (0 paper .. 1 ink) through a smooth step from lo to hi.
func solidify(cr *crop, lo, hi float64) {
	for i, p := range cr.pix {
		a := (255 - float64(p)) / 255
		s := math.Max(0, math.Min(1, (a-lo)/(hi-lo)))
		s = s * s * (3 - 2*s)
		cr.pix[i] = uint8(math.Round(255 * (1 - s)))
	}
}

func minFilter(cr *crop, r int) {
	src := append([]uint8(nil), cr.pix...)
	for y := 0; y < cr.h; y++ {
		for x := 0; x < cr.w; x++ {
			m := uint8(255)
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < cr.w && yy < cr.h {
						m = min(m, src[yy*cr.w+xx])
					}
				}
			}
			cr.pix[y*cr.w+x] = m
		}
	}
}

func maxFilter(cr *crop, r int) {
	src := append([]uint8(nil), cr.pix...)
	for y := 0; y < cr.h; y++ {
		for x := 0; x < cr.w; x++ {
			m := uint8(0)
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < cr.w && yy < cr.h {
						m = max(m, src[yy*cr.w+xx])
					}
				}
			}
			cr.pix[y*cr.w+x] = m
		}
	}
}
