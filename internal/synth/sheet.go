package synth

import (
	"fmt"
	"image"
	"math"
	"math/rand"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"tearcam/judge"
	"tearcam/template"
)

// SkillNames are plausible role-playing skills, some of several words, RenderSheet picks from.
var SkillNames = []string{
	"Swordsmanship", "Investigation", "Tea Ceremony", "Hopscotch", "Archery", "Cooking",
	"Stealth", "Lockpicking", "Diplomacy", "Juggling", "Horse Riding", "First Aid", "Alchemy",
	"Sailing", "Climbing", "Persuasion", "Knitting", "Astronomy", "Fencing", "Herbalism",
	"Cartography", "Pickpocket", "Swimming", "Blacksmithing", "Poetry", "Dancing", "Tracking",
	"Sleight of Hand", "Haggling", "Yodelling", "Origami", "Gardening", "Brewing", "Falconry",
	"Navigation", "Etiquette", "Intimidation", "Disguise", "Riddles", "Cryptography",
	"Marksmanship", "Wrestling", "Fishing", "Baking", "Lute", "Calligraphy", "Medicine",
	"History", "Forgery", "Acrobatics", "Survival", "Bartering", "Singing", "Chess",
	"Mechanics", "Piloting", "Hacking", "Demolitions", "Zero G Combat", "Lasso", "Charm",
	"Occult Lore", "Dog Training", "Card Tricks",
}

// Ink is a named pen colour.
type Ink struct {
	Name    string
	RGB     [3]uint8
	Opacity float64 // 0..1 at full coverage
	Grain   float64 // 0..1: how much the stroke's opacity varies pixel to pixel (pencil)
}

// Inks are the pen colours RenderSheet picks from.
var Inks = []Ink{
	{"blue", [3]uint8{28, 44, 140}, 0.95, 0.15},
	{"black", [3]uint8{22, 22, 28}, 0.97, 0.1},
	{"dark_red", [3]uint8{128, 22, 30}, 0.95, 0.15},
	{"pencil", [3]uint8{58, 58, 64}, 0.85, 0.4},
	{"green", [3]uint8{20, 90, 50}, 0.95, 0.15},
	{"felt_black", [3]uint8{10, 10, 12}, 1, 0.05},
}

// SheetSpec says what RenderSheet draws. Zero fields take defaults.
type SheetSpec struct {
	Paper   template.Paper // zero: A4
	Skills  []string       // nil: six distinct names from SkillNames
	PxPerMM float64        // sheet raster resolution; 0: 8
	// Ruled: 0 picks at random (about a third ruled), 1 ruled, -1 plain.
	Ruled int
	// MinCapMM and MaxCapMM bound each skill's cap height; 0: 5 and 18.
	MinCapMM, MaxCapMM float64
	// Upright forces every skill to be written at 0 degrees (useful for OCR baselines).
	Upright bool
	Fonts   []string // nil: FontFiles
}

// Sheet is an untorn character sheet in the sheet frame.
type Sheet struct {
	Paper   template.Paper
	PxPerMM float64
	// Image is the untorn sheet raster: Image.Bounds() is (0,0)-(W,H) with
	// W = ceil(Paper.WidthMM*PxPerMM), H = ceil(Paper.HeightMM*PxPerMM); the paper is the
	// pixels whose centre lies on it (NewState's first Paper).
	Image  *image.RGBA
	Skills []Skill
	Ruled  bool
}

// Skill is one skill as written on the sheet.
type Skill struct {
	Name        string
	Font        string  // font file base name
	CapHeightMM float64 // nominal cap height
	AngleDeg    float64 // baseline direction in the sheet frame, degrees, clockwise from +x (y down)
	Ink         string
	Letters     []*Letter // one per judge.LetterRunes(Name), in reading order
}

// Letter is one letter (Unicode letter or digit) with its exact ink.
type Letter struct {
	Skill      string
	SkillIndex int // index of the skill in Sheet.Skills
	Index      int // index of the letter in the skill's letters
	Char       rune
	// Box is where Ink lies in the sheet raster (pixels); Ink has Box.Dx()*Box.Dy() bytes,
	// row-major, 1 where the glyph's rendered coverage is at least 25%.
	Box image.Rectangle
	Ink []uint8
	// InkPx is the number of ink pixels.
	InkPx int
	// Outline is the convex hull of the ink pixels (their pixel squares), sheet frame, mm.
	Outline []Pt
}

// W and H are the sheet raster size in pixels.
func (s *Sheet) W() int { return s.Image.Bounds().Dx() }

// H is the sheet raster height in pixels.
func (s *Sheet) H() int { return s.Image.Bounds().Dy() }

// Letters returns every letter of every skill, skill by skill.
func (s *Sheet) Letters() []*Letter {
	var out []*Letter
	for _, sk := range s.Skills {
		out = append(out, sk.Letters...)
	}
	return out
}

// SkillNames returns the skills' names in order.
func (s *Sheet) SkillNames() []string {
	out := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		out[i] = sk.Name
	}
	return out
}

// Layout returns the letters as ocr/ would report them: judge.SkillLayout per skill, outlines
// in the sheet frame (mm), confidence 1.
func (s *Sheet) Layout() []judge.SkillLayout {
	out := make([]judge.SkillLayout, len(s.Skills))
	for i, sk := range s.Skills {
		l := judge.SkillLayout{Name: sk.Name, Located: len(sk.Letters), Confidence: 1}
		for _, le := range sk.Letters {
			jl := judge.Letter{Char: string(le.Char)}
			for _, p := range le.Outline {
				jl.Outline = append(jl.Outline, p.judge())
			}
			l.Letters = append(l.Letters, jl)
		}
		out[i] = l
	}
	return out
}

// glyphLayout is one glyph of a word placed in the word's local frame (px, baseline y=0).
type glyphLayout struct {
	r        rune
	segs     sfnt.Segments
	tr       affine // local unit coords -> word frame px
	isLetter bool
}

// affine maps (x, y) to (a*x + b*y + c, d*x + e*y + f).
type affine [6]float64

func (t affine) apply(p Pt) Pt {
	return Pt{t[0]*p.X + t[1]*p.Y + t[2], t[3]*p.X + t[4]*p.Y + t[5]}
}

// then returns the affine "t, then u".
func (t affine) then(u affine) affine {
	return affine{
		u[0]*t[0] + u[1]*t[3], u[0]*t[1] + u[1]*t[4], u[0]*t[2] + u[1]*t[5] + u[2],
		u[3]*t[0] + u[4]*t[3], u[3]*t[1] + u[4]*t[4], u[3]*t[2] + u[4]*t[5] + u[5],
	}
}

func rotAffine(a float64) affine {
	s, c := math.Sincos(a)
	return affine{c, -s, 0, s, c, 0}
}

// layoutWord lays name out in font lf with cap height capPx, returning the glyphs and the
// word's ink bounds in its local frame.
func layoutWord(rng *rand.Rand, lf *loadedFont, name string, capPx float64) ([]glyphLayout, [4]float64, error) {
	var buf sfnt.Buffer
	ppem := fixed.I(unitPPEM)
	k := capPx / lf.capHeight
	pen := 0.0
	var out []glyphLayout
	bounds := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	var prev sfnt.GlyphIndex
	slant := rng.Float64()*0.1 - 0.05
	for _, r := range name {
		gi, err := lf.f.GlyphIndex(&buf, r)
		if err != nil || (gi == 0 && r != ' ') {
			return nil, bounds, fmt.Errorf("font %s has no glyph for %q", lf.name, r)
		}
		if prev != 0 {
			if kern, err := lf.f.Kern(&buf, prev, gi, ppem, font.HintingNone); err == nil {
				pen += float64(kern) / 64 * k
			}
		}
		adv, err := lf.f.GlyphAdvance(&buf, gi, ppem, font.HintingNone)
		if err != nil {
			return nil, bounds, fmt.Errorf("font %s advance %q: %w", lf.name, r, err)
		}
		isLetter := len(judgeLetters(string(r))) == 1
		if r != ' ' {
			segs, err := lf.f.LoadGlyph(&buf, gi, ppem, nil)
			if err != nil {
				return nil, bounds, fmt.Errorf("font %s glyph %q: %w", lf.name, r, err)
			}
			segs = append(sfnt.Segments(nil), segs...)
			// Per-letter hand jitter: size, tilt and baseline wobble.
			sc := k * (1 + rng.NormFloat64()*0.035)
			tilt := rng.NormFloat64()*0.03 + slant
			cx := float64(adv) / 64 * k / 2
			base := rng.NormFloat64() * 0.03 * capPx
			tr := affine{sc, 0, 0, 0, sc, 0}.
				then(affine{1, 0, -cx, 0, 1, 0}).
				then(rotAffine(tilt)).
				then(affine{1, 0, cx + pen, 0, 1, base})
			for _, s := range segs {
				n := segArgs(s.Op)
				for i := 0; i < n; i++ {
					p := tr.apply(Pt{float64(s.Args[i].X) / 64, float64(s.Args[i].Y) / 64})
					bounds[0] = math.Min(bounds[0], p.X)
					bounds[1] = math.Min(bounds[1], p.Y)
					bounds[2] = math.Max(bounds[2], p.X)
					bounds[3] = math.Max(bounds[3], p.Y)
				}
			}
			out = append(out, glyphLayout{r: r, segs: segs, tr: tr, isLetter: isLetter})
		}
		pen += float64(adv)/64*k + rng.NormFloat64()*0.02*capPx
		prev = gi
	}
	return out, bounds, nil
}

func segArgs(op sfnt.SegmentOp) int {
	switch op {
	case sfnt.SegmentOpQuadTo:
		return 2
	case sfnt.SegmentOpCubeTo:
		return 3
	}
	return 1
}

func judgeLetters(s string) []rune { return judge.LetterRunes(s) }

// rasterGlyph renders the glyph's outline through tr (unit coords -> sheet px) and returns its
// coverage (0..255) and where it lies. Nil when the glyph has no ink in the raster.
func rasterGlyph(segs sfnt.Segments, tr affine, w, h int) (*image.Alpha, image.Rectangle) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range segs {
		for i := 0; i < segArgs(s.Op); i++ {
			p := tr.apply(Pt{float64(s.Args[i].X) / 64, float64(s.Args[i].Y) / 64})
			minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
			maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
		}
	}
	box := image.Rect(int(math.Floor(minX))-1, int(math.Floor(minY))-1, int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1)
	box = box.Intersect(image.Rect(0, 0, w, h))
	if box.Empty() {
		return nil, box
	}
	z := vector.NewRasterizer(box.Dx(), box.Dy())
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	pt := func(a fixed.Point26_6) (float32, float32) {
		p := tr.apply(Pt{float64(a.X) / 64, float64(a.Y) / 64})
		return float32(p.X - ox), float32(p.Y - oy)
	}
	for i, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			// vector.Rasterizer's MoveTo does not close the previous contour; fonts' contours
			// are closed implicitly.
			if i > 0 {
				z.ClosePath()
			}
			x, y := pt(s.Args[0])
			z.MoveTo(x, y)
		case sfnt.SegmentOpLineTo:
			x, y := pt(s.Args[0])
			z.LineTo(x, y)
		case sfnt.SegmentOpQuadTo:
			x1, y1 := pt(s.Args[0])
			x2, y2 := pt(s.Args[1])
			z.QuadTo(x1, y1, x2, y2)
		case sfnt.SegmentOpCubeTo:
			x1, y1 := pt(s.Args[0])
			x2, y2 := pt(s.Args[1])
			x3, y3 := pt(s.Args[2])
			z.CubeTo(x1, y1, x2, y2, x3, y3)
		}
	}
	z.ClosePath()
	a := image.NewAlpha(image.Rect(0, 0, box.Dx(), box.Dy()))
	z.Draw(a, a.Bounds(), image.Opaque, image.Point{})
	return a, box
}

// inkThreshold is the coverage (of 255) from which a pixel counts as a letter's ink.
const inkThreshold = 64

// RenderSheet draws an untorn sheet with six skills (or spec.Skills) in handwriting fonts,
// each at its own cap height (spec.MinCapMM..MaxCapMM), ink and angle (any, often near 0, 90,
// 180 or 270 degrees), without two skills overlapping. Every letter keeps its exact ink mask.
// All randomness comes from rng.
func RenderSheet(rng *rand.Rand, spec SheetSpec) (*Sheet, error) {
	if spec.Paper.WidthMM == 0 {
		spec.Paper, _ = template.ParsePaper("a4")
	}
	if spec.PxPerMM == 0 {
		spec.PxPerMM = 8
	}
	if spec.MinCapMM == 0 {
		spec.MinCapMM = 5
	}
	if spec.MaxCapMM == 0 {
		spec.MaxCapMM = 18
	}
	paths := spec.Fonts
	if paths == nil {
		paths = FontFiles
	}
	fonts, err := availableFonts(paths)
	if err != nil {
		return nil, err
	}
	skills := spec.Skills
	if skills == nil {
		perm := rng.Perm(len(SkillNames))
		for _, i := range perm[:6] {
			skills = append(skills, SkillNames[i])
		}
	}
	ppm := spec.PxPerMM
	w, h := int(math.Ceil(spec.Paper.WidthMM*ppm-1e-9)), int(math.Ceil(spec.Paper.HeightMM*ppm-1e-9))
	sh := &Sheet{Paper: spec.Paper, PxPerMM: ppm}
	switch spec.Ruled {
	case 1:
		sh.Ruled = true
	case 0:
		sh.Ruled = rng.Float64() < 0.35
	}
	sh.Image = paperImage(rng, w, h, ppm, sh.Ruled)

	var placed [][4]Pt // word rectangles with margin, sheet px
	margin := 4 * ppm
	for si, name := range skills {
		var (
			ok    bool
			glyph []glyphLayout
			world affine
			sk    Skill
		)
		capMM := spec.MinCapMM + (spec.MaxCapMM-spec.MinCapMM)*math.Pow(rng.Float64(), 1.3)
		for attempt := 0; attempt < 400 && !ok; attempt++ {
			if attempt > 0 && attempt%40 == 0 {
				capMM = math.Max(spec.MinCapMM, capMM*0.85)
			}
			lf := fonts[rng.Intn(len(fonts))]
			if !lf.hasRunes(name) {
				continue
			}
			g, b, err := layoutWord(rng, lf, name, capMM*ppm)
			if err != nil {
				continue
			}
			angle := pickAngle(rng, spec.Upright)
			// The word's ink box with a margin, rotated and placed at a random spot.
			rect := [4]Pt{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}}
			rot := rotAffine(angle * math.Pi / 180)
			var minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, p := range rect {
				q := rot.apply(p)
				minX, minY = math.Min(minX, q.X), math.Min(minY, q.Y)
				maxX, maxY = math.Max(maxX, q.X), math.Max(maxY, q.Y)
			}
			spanX := float64(w) - 2*margin - (maxX - minX)
			spanY := float64(h) - 2*margin - (maxY - minY)
			if spanX <= 0 || spanY <= 0 {
				capMM = math.Max(spec.MinCapMM, capMM*0.9)
				continue
			}
			tx := margin - minX + rng.Float64()*spanX
			ty := margin - minY + rng.Float64()*spanY
			tr := rot.then(affine{1, 0, tx, 0, 1, ty})
			pad := 2.5 * ppm
			var quad [4]Pt
			for i, p := range [4]Pt{{b[0] - pad, b[1] - pad}, {b[2] + pad, b[1] - pad}, {b[2] + pad, b[3] + pad}, {b[0] - pad, b[3] + pad}} {
				quad[i] = tr.apply(p)
			}
			clash := false
			for _, q := range placed {
				if convexOverlap(quad[:], q[:]) {
					clash = true
					break
				}
			}
			if clash {
				continue
			}
			ok = true
			placed = append(placed, quad)
			glyph, world = g, tr
			sk = Skill{Name: name, Font: lf.name, CapHeightMM: round2(capMM), AngleDeg: round2(angle)}
		}
		if !ok {
			return nil, fmt.Errorf("render sheet: no room for skill %q", name)
		}
		ink := Inks[rng.Intn(len(Inks))]
		sk.Ink = ink.Name
		opacity := ink.Opacity * (0.9 + 0.1*rng.Float64())
		li := 0
		for _, g := range glyph {
			cov, box := rasterGlyph(g.segs, g.tr.then(world), w, h)
			if cov == nil {
				if g.isLetter {
					return nil, fmt.Errorf("render sheet: letter %q of %q off the sheet", g.r, name)
				}
				continue
			}
			inkPaint(rng, sh.Image, cov, box, ink, opacity)
			if !g.isLetter {
				continue
			}
			le := &Letter{Skill: name, SkillIndex: si, Index: li, Char: g.r, Box: box, Ink: make([]uint8, box.Dx()*box.Dy())}
			var corners []Pt
			for y := 0; y < box.Dy(); y++ {
				for x := 0; x < box.Dx(); x++ {
					if cov.Pix[y*cov.Stride+x] < inkThreshold {
						continue
					}
					le.Ink[y*box.Dx()+x] = 1
					le.InkPx++
					// Only boundary pixels can be on the hull.
					if x > 0 && y > 0 && x < box.Dx()-1 && y < box.Dy()-1 &&
						cov.Pix[y*cov.Stride+x-1] >= inkThreshold && cov.Pix[y*cov.Stride+x+1] >= inkThreshold &&
						cov.Pix[(y-1)*cov.Stride+x] >= inkThreshold && cov.Pix[(y+1)*cov.Stride+x] >= inkThreshold {
						continue
					}
					px, py := float64(box.Min.X+x), float64(box.Min.Y+y)
					corners = append(corners, Pt{px, py}, Pt{px + 1, py}, Pt{px + 1, py + 1}, Pt{px, py + 1})
				}
			}
			if le.InkPx == 0 {
				return nil, fmt.Errorf("render sheet: letter %q of %q has no ink", g.r, name)
			}
			for _, p := range convexHull(corners) {
				le.Outline = append(le.Outline, Pt{round3(p.X / ppm), round3(p.Y / ppm)})
			}
			sk.Letters = append(sk.Letters, le)
			li++
		}
		if len(sk.Letters) != len(judge.LetterRunes(name)) {
			return nil, fmt.Errorf("render sheet: %q rendered %d letters, want %d", name, len(sk.Letters), len(judge.LetterRunes(name)))
		}
		sh.Skills = append(sh.Skills, sk)
	}
	return sh, nil
}

// pickAngle draws a writing direction in degrees: mostly near upright, often a quarter or half
// turn, sometimes anything.
func pickAngle(rng *rand.Rand, upright bool) float64 {
	if upright {
		return 0
	}
	u := rng.Float64()
	switch {
	case u < 0.35:
		return rng.NormFloat64() * 6
	case u < 0.5:
		return 90 + rng.NormFloat64()*5
	case u < 0.65:
		return 180 + rng.NormFloat64()*5
	case u < 0.75:
		return -90 + rng.NormFloat64()*5
	}
	return rng.Float64()*360 - 180
}

// convexOverlap reports whether two convex polygons intersect (separating axis test).
func convexOverlap(a, b []Pt) bool {
	for _, poly := range [][]Pt{a, b} {
		for i := range poly {
			e := poly[(i+1)%len(poly)].sub(poly[i])
			n := Pt{-e.Y, e.X}
			amin, amax := math.Inf(1), math.Inf(-1)
			for _, p := range a {
				v := n.dot(p)
				amin, amax = math.Min(amin, v), math.Max(amax, v)
			}
			bmin, bmax := math.Inf(1), math.Inf(-1)
			for _, p := range b {
				v := n.dot(p)
				bmin, bmax = math.Min(bmin, v), math.Max(bmax, v)
			}
			if amax < bmin || bmax < amin {
				return false
			}
		}
	}
	return true
}

// paperImage draws off-white paper with a faint texture and, when ruled, blue lines and a red
// margin.
func paperImage(rng *rand.Rand, w, h int, ppm float64, ruled bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	base := [3]float64{238 + 12*rng.Float64(), 236 + 10*rng.Float64(), 226 + 14*rng.Float64()}
	low := valueNoise(rng, w, h, 40*ppm, 2)
	lineStep := (7 + 2*rng.Float64()) * ppm
	lineTop := (15 + 15*rng.Float64()) * ppm
	lineW := 0.3 * ppm
	marginX := (25 + 8*rng.Float64()) * ppm
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 1 + 0.025*low[y*w+x] + 0.012*(rng.Float64()-0.5)
			c := [3]float64{base[0] * v, base[1] * v, base[2] * v}
			if ruled {
				fy := float64(y) - lineTop
				if fy > 0 {
					d := math.Abs(math.Mod(fy+lineStep/2, lineStep) - lineStep/2)
					if d < lineW {
						a := 0.45 * (1 - d/lineW)
						c = mix3(c, [3]float64{140, 170, 215}, a)
					}
				}
				if d := math.Abs(float64(x) - marginX); d < lineW*1.2 {
					c = mix3(c, [3]float64{220, 110, 120}, 0.5*(1-d/(lineW*1.2)))
				}
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = u8(c[0]), u8(c[1]), u8(c[2]), 255
		}
	}
	return img
}

// inkPaint lays ink of the given coverage onto img.
func inkPaint(rng *rand.Rand, img *image.RGBA, cov *image.Alpha, box image.Rectangle, ink Ink, opacity float64) {
	for y := 0; y < box.Dy(); y++ {
		for x := 0; x < box.Dx(); x++ {
			c := cov.Pix[y*cov.Stride+x]
			if c == 0 {
				continue
			}
			a := float64(c) / 255 * opacity * (1 - ink.Grain*rng.Float64())
			i := img.PixOffset(box.Min.X+x, box.Min.Y+y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = u8(float64(img.Pix[i+k])*(1-a) + float64(ink.RGB[k])*a)
			}
		}
	}
}

func mix3(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0]*(1-t) + b[0]*t, a[1]*(1-t) + b[1]*t, a[2]*(1-t) + b[2]*t}
}

func u8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}
