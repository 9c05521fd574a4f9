package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"tearcam/internal/synth"
	"tearcam/judge"
)

// segCase is one located skill: its ink, the view it was matched in, and its truth.
type segCase struct {
	im    *inkMap
	v     *view
	truth synth.Skill
}

// TestSegDiag (OCR_SEGDIAG=1) locates the skills of OCR_SYNTH_N synthetic sheets (seed
// OCR_SYNTH_SEED; OCR_SEGDIAG_PHOTO=1: photographed and rectified) once, then cuts the
// located skills into letters under each variant named in OCR_SEGDIAG_VARIANTS
// (comma-separated; see segVariant) and logs the letter figures per variant and per font
// family (OCR_SEGDIAG_SIDE=1: and which way the cuts err, see sideTally; OCR_SEGDIAG_BAD=1:
// the letters more than 1 mm off tallied by cause, =v: each listed, see logBadLetters). A
// diagnostic for letter cutting, skipped otherwise.
func TestSegDiag(t *testing.T) {
	if os.Getenv("OCR_SEGDIAG") == "" {
		t.Skip("OCR_SEGDIAG not set")
	}
	n, seed := 40, int64(100)
	if v, err := strconv.Atoi(os.Getenv("OCR_SYNTH_N")); err == nil {
		n = v
	}
	if v, err := strconv.ParseInt(os.Getenv("OCR_SYNTH_SEED"), 10, 64); err == nil {
		seed = v
	}
	photo := os.Getenv("OCR_SEGDIAG_PHOTO") == "1"
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var cases []segCase
	var mu = make(chan struct{}, 1)
	for i := 0; i < n; i++ {
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed+int64(i))), synth.SheetSpec{PxPerMM: 4})
		if err != nil {
			t.Fatal(err)
		}
		var m gocv.Mat
		if photo {
			m = photographed(t, sh, seed+int64(i))
		} else {
			m = sheetMat(t, sh)
		}
		empty := gocv.NewMat()
		matchHook = func(im *inkMap, k int, v *view) {
			mu <- struct{}{}
			cases = append(cases, segCase{im: im, v: v, truth: sh.Skills[k]})
			<-mu
		}
		_, err = l.Locate(m, empty, sh.PxPerMM, sh.SkillNames())
		matchHook = nil
		m.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	variants := strings.Split(os.Getenv("OCR_SEGDIAG_VARIANTS"), ",")
	for _, vn := range variants {
		oracle := strings.HasPrefix(vn, "oracle") && !strings.HasPrefix(vn, "oraclepart")
		restore := func() {}
		if oracle {
			_, rest, _ := strings.Cut(vn, "+")
			r := segVariant(t, rest)
			restore = func() { r(); widthOf = letterWidth }
		} else {
			var rs []func()
			for _, part := range strings.Split(vn, "+") {
				rs = append(rs, segVariant(t, part))
			}
			restore = func() {
				for _, r := range rs {
					r()
				}
			}
		}
		if os.Getenv("OCR_SEGDIAG_BAD") != "" && !strings.HasPrefix(vn, "oracle") {
			logBadLetters(t, cases, os.Getenv("OCR_SEGDIAG_BAD") == "v")
		}
		fam := map[string]*[4]float64{}
		side := map[string]*[4]int{} // OCR_SEGDIAG_SIDE: see sideTally
		var hds []float64
		right, located := 0, 0
		var sdx, sdy, sar, sn float64
		var beyond, forward []float64 // mm: the truth's letter beyond ours; into the next letter's
		var cutTime time.Duration
		for _, c := range cases {
			if oracle {
				adv := fontAdvances(t, c.truth.Font)
				widthOf = func(r rune) float64 {
					if a, ok := adv[r]; ok {
						return a
					}
					return letterWidth(r)
				}
			}
			var lets []judge.Letter
			var notes []string
			if strings.HasPrefix(vn, "oraclepart") {
				lets = oraclePartition(c, vn == "oraclepart-overlap")
			} else {
				t0 := time.Now()
				lets, notes, _ = c.im.letterOutlines(c.v, c.truth.Name)
				cutTime += time.Since(t0)
			}
			lay := judge.SkillLayout{Name: c.truth.Name, Letters: lets, Located: len(lets)}
			s := scoreSkill(lay, c.truth)
			if !s.located {
				if d := os.Getenv("OCR_SEGDIAG_DUMP"); d != "" && len(lets) == len(c.truth.Letters) {
					dumpParts(t, d, c, "unlocated")
				}
				continue
			}
			located++
			if s.lettersRight {
				right++
			}
			f := c.truth.Font
			for _, p := range []string{"dkg", "Dancing", "Breip", "Comic", "Kaushan", "femke", "Humor"} {
				if strings.HasPrefix(f, p) {
					f = p
				}
			}
			a := fam[f]
			if a == nil {
				a = &[4]float64{}
				fam[f] = a
			}
			a[0]++
			if s.lettersRight {
				a[1]++
			}
			for _, h := range s.hd {
				a[2]++
				if h <= 1 {
					a[3]++
				}
			}
			hds = append(hds, s.hd...)
			for i, le := range lets {
				tq := truthOutline(c.truth.Letters[i])
				if len(le.Outline) < 3 {
					continue
				}
				c1, c2 := centroid(le.Outline), centroid(tq)
				sdx += c1.X - c2.X
				sdy += c1.Y - c2.Y
				sar += polyArea(le.Outline) / math.Max(1e-6, polyArea(tq))
				sn++
				beyond = append(beyond, maxDistTo(tq, le.Outline))
				if i+1 < len(lets) && len(lets[i+1].Outline) >= 3 {
					// How far the truth's letter reaches into the next letter's outline
					// beyond its own: the boundary error vision/'s split doubt allows for.
					into := 0.0
					for _, v := range tq {
						if inQuad(lets[i+1].Outline, v.X, v.Y, 0) {
							into = math.Max(into, distToConvex(v, le.Outline))
						}
					}
					forward = append(forward, into)
				}
			}
			if d := os.Getenv("OCR_SEGDIAG_DUMP"); d != "" && (vn == os.Getenv("OCR_SEGDIAG_DUMPV") || os.Getenv("OCR_SEGDIAG_DUMPV") == "" && vn == variants[0]) {
				worst := 0.0
				for _, h := range s.hd {
					worst = math.Max(worst, h)
				}
				if worst > 1 {
					dumpParts(t, d, c, fmt.Sprintf("%.1f", worst))
				}
			}
			if f := os.Getenv("OCR_SEGDIAG_FONT"); f != "" && strings.HasPrefix(c.truth.Font, f) {
				var hs []string
				for _, h := range s.hd {
					hs = append(hs, fmt.Sprintf("%.1f", h))
				}
				t.Logf("  %s %q %s %s", vn, c.truth.Name, c.truth.Font, strings.Join(hs, " "))
			}
			if os.Getenv("OCR_SEGDIAG_SIDE") != "" && !strings.HasPrefix(vn, "oracle") {
				sideTally(side, c, f, vn == variants[0])
			}
			if os.Getenv("OCR_SEGDIAG_V") != "" && !s.lettersRight {
				t.Logf("  %s %q %s %s %v", vn, c.truth.Name, c.truth.Font, s.marks, notes)
			}
		}
		for f, a := range side {
			t.Logf("  side %s: ours earlier than truth %d px, later %d px; core %d/%d", f, a[0], a[1], a[2], a[3])
		}
		sort.Float64s(hds)
		within := 0
		for _, h := range hds {
			if h <= 1 {
				within++
			}
		}
		var fs []string
		for f, a := range fam {
			fs = append(fs, f+":"+strconv.Itoa(int(a[1]))+"/"+strconv.Itoa(int(a[0]))+" "+strconv.FormatFloat(100*a[3]/a[2], 'f', 0, 64)+"%")
		}
		sort.Strings(fs)
		q := func(f float64) float64 { return hds[min(len(hds)-1, int(f*float64(len(hds))))] }
		t.Logf("variant %-12s located %d: letters right %.1f%%; outlines within 1 mm %.1f%%, median %.2f, p90 %.2f, mean %.2f | %s",
			vn, located, 100*float64(right)/float64(located), 100*float64(within)/float64(len(hds)), q(0.5), q(0.9), mean(hds), strings.Join(fs, " "))
		for k, ds := range [][]float64{beyond, forward} {
			t.Logf("  the truth's letters beyond ours (%s): %s", []string{"all sides", "into the next letter's outline"}[k], tail(ds))
		}
		t.Logf("  mean centroid offset %.3f, %.3f mm; mean area ratio %.2f; cutting %v for %d skills", sdx/sn, sdy/sn, sar/sn, cutTime, len(cases))
		restore()
	}
}

func polyArea(q []judge.Point) float64 {
	a := 0.0
	for i := range q {
		j := (i + 1) % len(q)
		a += q[i].X*q[j].Y - q[j].X*q[i].Y
	}
	return math.Abs(a) / 2
}

var advCache = map[string]map[rune]float64{}

// fontAdvances is each letter's advance width over the font's cap height (the oracle width
// model: the widths the generator drew with).
func fontAdvances(t *testing.T, base string) map[rune]float64 {
	if m, ok := advCache[base]; ok {
		return m
	}
	var path string
	for _, p := range synth.FontFiles {
		if filepath.Base(p) == base {
			path = p
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	ppem := fixed.I(1000)
	capH := 0.0
	if gi, err := f.GlyphIndex(&buf, 'H'); err == nil && gi != 0 {
		if b, _, err := f.GlyphBounds(&buf, gi, ppem, font.HintingNone); err == nil {
			capH = -float64(b.Min.Y) / 64
		}
	}
	m := map[rune]float64{}
	for r := rune('A'); r <= 'z'; r++ {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 {
			continue
		}
		a, err := f.GlyphAdvance(&buf, gi, ppem, font.HintingNone)
		if err == nil {
			m[r] = float64(a) / 64 / capH
		}
	}
	advCache[base] = m
	return m
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Min(v, 20)
	}
	return s / float64(len(x))
}

// segVariant applies a named letter-cutting variant and returns a function undoing it.
func segVariant(t *testing.T, name string) func() {
	k, v, _ := strings.Cut(name, "=")
	f, _ := strconv.ParseFloat(v, 64)
	switch k {
	case "", "base", "oraclepart", "oraclepart-overlap":
		return func() {}
	case "symw":
		old := symbolWeight
		symbolWeight = f
		return func() { symbolWeight = old }
	case "symalign":
		old := symbolAlign
		symbolAlign = v != "0"
		return func() { symbolAlign = old }
	case "bearing":
		old := bearing
		bearing = f
		return func() { bearing = old }
	case "mgw":
		old := mergeGapWeight
		mergeGapWeight = f
		return func() { mergeGapWeight = old }
	case "mw":
		old := mergeWeight
		mergeWeight = f
		return func() { mergeWeight = old }
	case "sw":
		old := splitWeight
		splitWeight = f
		return func() { splitWeight = old }
	case "outline":
		old := outlineLevel
		outlineLevel = f
		return func() { outlineLevel = old }
	case "dots":
		old := dotPrior
		dotPrior = v != "0"
		return func() { dotPrior = old }
	case "ww":
		old := widthWeight
		widthWeight = f
		return func() { widthWeight = old }
	case "pieces":
		old := wholePieces
		wholePieces = v != "0"
		return func() { wholePieces = old }
	case "seamw":
		old := seamWindow
		seamWindow = f
		return func() { seamWindow = old }
	case "fill":
		old := fillGaps
		fillGaps = v != "0"
		return func() { fillGaps = old }
	case "fillr":
		old := fillReach
		fillReach = f
		return func() { fillReach = old }
	case "fills":
		old := fillShare
		fillShare = f
		return func() { fillShare = old }
	case "empty":
		old := emptyWeight
		emptyWeight = f
		return func() { emptyWeight = old }
	case "rb":
		old := rightBias
		rightBias = f
		return func() { rightBias = old }
	case "rl":
		old := rightLook
		rightLook = f
		return func() { rightLook = old }
	case "atom":
		old := atomDP
		atomDP = v != "0"
		return func() { atomDP = old }
	case "atomset":
		// atomset=gap:split:merge:bearing
		ps := strings.Split(v, ":")
		fl := func(i int) float64 { x, _ := strconv.ParseFloat(ps[i], 64); return x }
		o1, o2, o3, o4, o5 := atomDP, mergeGapWeight, splitWeight, mergeWeight, bearing
		atomDP, mergeGapWeight, splitWeight, mergeWeight, bearing = true, fl(0), fl(1), fl(2), fl(3)
		return func() { atomDP, mergeGapWeight, splitWeight, mergeWeight, bearing = o1, o2, o3, o4, o5 }
	case "atomm":
		old, o2 := atomDP, mergeGapWeight
		atomDP, mergeGapWeight = true, f
		return func() { atomDP, mergeGapWeight = old, o2 }
	case "atoms":
		old, o2 := atomDP, splitWeight
		atomDP, splitWeight = true, f
		return func() { atomDP, splitWeight = old, o2 }
	case "strokeend":
		o1, o2 := strokeEnd, seamWindow
		strokeEnd = v != "0"
		if strokeEnd {
			seamWindow = strokeEndWindow
		}
		return func() { strokeEnd, seamWindow = o1, o2 }
	case "strokepos", "strokeposw":
		// strokepos=f: strokeEnd with the cut at f along the thin stretch, seam paths kept
		// near it (strokeposw: near it in words cut by atoms only).
		o1, o2, o3 := strokeEnd, seamWindow, strokePos
		strokeEnd, strokePos = true, f
		if k == "strokepos" {
			seamWindow = strokeEndWindow
		}
		return func() { strokeEnd, seamWindow, strokePos = o1, o2, o3 }
	case "joined":
		old := joinedEnds
		joinedEnds = v != "0"
		return func() { joinedEnds = old }
	case "tip":
		old := tipReach
		tipReach = f
		return func() { tipReach = old }
	case "tipthin":
		old := tipThin
		tipThin = f
		return func() { tipThin = old }
	case "slant":
		old := joinedSlant
		joinedSlant = f
		return func() { joinedSlant = old }
	case "dotown":
		old := dotOwners
		dotOwners = v != "0"
		return func() { dotOwners = old }
	case "corem":
		old := coreMargin
		coreMargin = f
		return func() { coreMargin = old }
	}
	t.Fatalf("unknown variant %q", name)
	return nil
}

// dumpParts writes the case's ink coloured by letter: this package's division on the left,
// the truth's (oraclePartition) on the right.
func dumpParts(t *testing.T, dir string, c segCase, tag string) {
	rg := c.v.rg
	if rg.full != nil {
		rg = rg.full
	}
	im := c.im
	parts, rg2, _, _ := im.letterParts(c.v, c.truth.Name)
	x0, y0, x1, y1 := im.w, im.h, 0, 0
	for _, p := range rg.pix {
		x, y := int(p)%im.w, int(p)/im.w
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	const sc = 3
	w, h := (x1-x0+1)*sc, (y1-y0+1)*sc
	img := image.NewRGBA(image.Rect(0, 0, 2*w+10, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	pal := []color.RGBA{{220, 0, 0, 255}, {0, 0, 220, 255}, {0, 160, 0, 255}, {200, 0, 200, 255}, {230, 140, 0, 255}, {0, 170, 170, 255}}
	paint := func(groups [][]int32, ox int) {
		for i, g := range groups {
			for _, p := range g {
				x, y := int(p)%im.w-x0, int(p)/im.w-y0
				for dy := 0; dy < sc; dy++ {
					for dx := 0; dx < sc; dx++ {
						img.Set(ox+x*sc+dx, y*sc+dy, pal[i%len(pal)])
					}
				}
			}
		}
	}
	// Ink of other components in the box, grey.
	in := map[int]bool{}
	for _, ci := range rg2.comps {
		in[ci] = true
	}
	for ci, cp := range im.comps {
		if in[ci] {
			continue
		}
		for _, p := range cp.pix {
			x, y := int(p)%im.w-x0, int(p)/im.w-y0
			if x < 0 || y < 0 || x*sc >= w || y*sc >= h {
				continue
			}
			for dy := 0; dy < sc; dy++ {
				for dx := 0; dx < sc; dx++ {
					img.Set(x*sc+dx, y*sc+dy, color.Gray{160})
				}
			}
		}
	}
	var ours [][]int32
	for _, p := range parts {
		ours = append(ours, p.pix)
	}
	paint(ours, 0)
	paint(oracleGroups(c, false), w+10)
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s_%s_%s.png", c.truth.Name, c.truth.Font, tag)))
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, img)
	f.Close()
}

// oraclePartition gives each ink pixel of the matched region to the truth letter whose
// rendered ink holds it (nearest letter centre when several do, or none: overlap gives it
// to each), and outlines the parts as letterOutlines would: the best any division of the
// ink into letters can score.
func oraclePartition(c segCase, overlap bool) []judge.Letter {
	groups := oracleGroups(c, overlap)
	rg := c.v.rg
	if rg.full != nil {
		rg = rg.full
	}
	out := make([]judge.Letter, len(groups))
	for i := range groups {
		out[i] = judge.Letter{Char: string(c.truth.Letters[i].Char), Outline: c.im.outline(rg, groups[i], 0, 0)}
	}
	return out
}

// oracleGroups is oraclePartition's division of the ink.
func oracleGroups(c segCase, overlap bool) [][]int32 {
	rg := c.v.rg
	if rg.full != nil {
		rg = rg.full
	}
	im := c.im
	n := len(c.truth.Letters)
	groups := make([][]int32, n)
	centre := make([][2]float64, n)
	for i, le := range c.truth.Letters {
		centre[i] = [2]float64{float64(le.Box.Min.X+le.Box.Max.X) / 2, float64(le.Box.Min.Y+le.Box.Max.Y) / 2}
	}
	for _, p := range rg.pix {
		x, y := int(p)%im.w, int(p)/im.w
		best, bd := -1, math.Inf(1)
		var hits []int
		for i, le := range c.truth.Letters {
			if x >= le.Box.Min.X && x < le.Box.Max.X && y >= le.Box.Min.Y && y < le.Box.Max.Y && le.Ink[(y-le.Box.Min.Y)*le.Box.Dx()+x-le.Box.Min.X] != 0 {
				hits = append(hits, i)
			}
		}
		if overlap && len(hits) > 0 {
			for _, i := range hits {
				groups[i] = append(groups[i], p)
			}
			continue
		}
		cand := hits
		if len(cand) == 0 {
			cand = make([]int, n)
			for i := range cand {
				cand[i] = i
			}
		}
		for _, i := range cand {
			if d := math.Hypot(float64(x)-centre[i][0], float64(y)-centre[i][1]); d < bd {
				best, bd = i, d
			}
		}
		groups[best] = append(groups[best], p)
	}
	return groups
}

// sideTally counts in side[fam] the ink pixels this package gives to an earlier (later)
// letter than the truth's partition does, in all and on the core band: which way the cuts
// err. With OCR_SEGDIAG_SIDEDUMP=dir and dump, a word's ink (of the family
// OCR_SEGDIAG_SIDEFAM, DancingScript by default) is drawn there,
// its letters in two greys, blue where a pixel went to an earlier letter, red a later one.
func sideTally(side map[string]*[4]int, c segCase, fam string, dump bool) {
	parts, _, _, _ := c.im.letterParts(c.v, c.truth.Name)
	og := oracleGroups(c, false)
	truthOf := map[int32]int{}
	for i, g := range og {
		for _, p := range g {
			truthOf[p] = i
		}
	}
	rg := c.v.rg
	if rg.full != nil {
		rg = rg.full
	}
	f := &segFrame{im: c.im, rg: rg, shear: estimateShear(c.im, rg)}
	f.setCore()
	dumpFam := os.Getenv("OCR_SEGDIAG_SIDEFAM")
	if dumpFam == "" {
		dumpFam = "Dancing"
	}
	if d := os.Getenv("OCR_SEGDIAG_SIDEDUMP"); d != "" && dump && fam == dumpFam {
		x0, y0, x1, y1 := c.im.w, c.im.h, 0, 0
		for _, p := range rg.pix {
			x, y := int(p)%c.im.w, int(p)/c.im.w
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
		img := image.NewRGBA(image.Rect(0, 0, (x1-x0+1)*3, (y1-y0+1)*3))
		draw.Draw(img, img.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
		for i, pt := range parts {
			for _, p := range pt.pix {
				col := color.RGBA{170, 170, 170, 255}
				if i%2 == 1 {
					col = color.RGBA{90, 90, 90, 255}
				}
				if tr, ok := truthOf[p]; ok && tr > i {
					col = color.RGBA{0, 0, 255, 255}
				} else if ok && tr < i {
					col = color.RGBA{255, 0, 0, 255}
				}
				x, y := int(p)%c.im.w-x0, int(p)/c.im.w-y0
				for dy := 0; dy < 3; dy++ {
					for dx := 0; dx < 3; dx++ {
						img.Set(x*3+dx, y*3+dy, col)
					}
				}
			}
		}
		fp, err := os.Create(filepath.Join(d, c.truth.Name+"_"+c.truth.Font+".png"))
		if err == nil {
			png.Encode(fp, img)
			fp.Close()
		}
	}
	a := side[fam]
	if a == nil {
		a = &[4]int{}
		side[fam] = a
	}
	for i, pt := range parts {
		for _, p := range pt.pix {
			tr, ok := truthOf[p]
			if !ok || tr == i {
				continue
			}
			if i < tr {
				a[0]++
			} else {
				a[1]++
			}
			if f.inCore(p) {
				if i < tr {
					a[2]++
				} else {
					a[3]++
				}
			}
		}
	}
}

// tail describes the tail of distances ds (mm, sorted in place): the share over 0.5, 0.75, 1
// and 2 mm, and the 90th and 95th percentiles.
func tail(ds []float64) string {
	if len(ds) == 0 {
		return "none"
	}
	sort.Float64s(ds)
	over := func(x float64) float64 {
		return 100 * float64(len(ds)-sort.SearchFloat64s(ds, math.Nextafter(x, math.Inf(1)))) / float64(len(ds))
	}
	return fmt.Sprintf("%d, over 0.5 mm %.1f%%, 0.75 mm %.1f%%, 1 mm %.1f%%, 2 mm %.1f%%; p90 %.2f, p95 %.2f mm",
		len(ds), over(0.5), over(0.75), over(1), over(2), ds[len(ds)*9/10], ds[len(ds)*95/100])
}
