package synth

import (
	"fmt"
	"image"
	"math"
	"math/rand"
	"sort"

	"encoding/binary"

	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// TearKind is the kind of tear the generator aims for. The truth of a tear is always measured
// from the masks afterwards, never taken from its kind.
type TearKind string

// The tear kinds and the ruling each aims at.
const (
	TearBite      TearKind = "bite"       // valid: a bite from an edge taking whole letters
	TearCorner    TearKind = "corner"     // valid: a corner taking whole letters
	TearCutOnly   TearKind = "cut_only"   // faux pas no_full_letter: cuts through letters only
	TearTooSmall  TearKind = "too_small"  // faux pas piece_too_small
	TearHole      TearKind = "hole"       // faux pas not_edge_to_edge: a hole touching no edge
	TearTwoPieces TearKind = "two_pieces" // faux pas several_pieces
	TearNone      TearKind = "none"       // faux pas nothing_removed
	// TearGraze is a close call: the tear line grazes a letter of the skill (cutting a sliver
	// of it, or leaving only a sliver of it), with no other letter of the skill taken whole,
	// so the expected verdict is undecided.
	TearGraze TearKind = "graze"
)

// TearKinds lists every kind.
var TearKinds = []TearKind{TearBite, TearCorner, TearCutOnly, TearTooSmall, TearHole, TearTwoPieces, TearNone, TearGraze}

// TearSpec says what tear to make.
type TearSpec struct {
	Kind   TearKind   // geometry to aim for
	Skill  string     // the skill used, or named by the GM (must be on the sheet)
	Action judge.Kind // use, damage or penalty (manifest kind); "" is use
}

// SliverMM2 is the area under which a removed piece is ignored (not counted in Pieces).
const SliverMM2 = 4.0

// Letter ambiguity thresholds: a letter cut so that less than SliverInkFrac of its ink, or a
// part less than SliverDepthMM deep, lies on one side, or a whole letter whose ink comes within
// NearMissMM of the tear line, is marked judge.LetterAmbiguous.
const (
	SliverInkFrac = 0.02
	SliverDepthMM = 0.5
	NearMissMM    = 0.25
)

// State is a sheet and what is left of its paper, tear after tear.
type State struct {
	Sheet    *Sheet
	Template template.Template
	// Paper is the paper present now, in the sheet raster (1 = paper).
	Paper *Mask
	Tears []*TearResult
	// uncertain marks letters (flat index over Sheet.Letters()) ever measured ambiguous.
	uncertain map[int]bool
	owed      int
	out       bool
}

// NewState starts from the untorn sheet with the default template.
func NewState(sh *Sheet) *State {
	p := NewMask(sh.W(), sh.H())
	for y := 0; y < p.H; y++ {
		for x := 0; x < p.W; x++ {
			if (float64(x)+0.5)/sh.PxPerMM < sh.Paper.WidthMM && (float64(y)+0.5)/sh.PxPerMM < sh.Paper.HeightMM {
				p.Pix[y*p.W+x] = 1
			}
		}
	}
	return &State{Sheet: sh, Template: template.Default(), Paper: p, uncertain: map[int]bool{}}
}

// TearResult is one tear: the masks and the truth measured from them.
type TearResult struct {
	Before, After, Removed *Mask // sheet raster
	Truth                  TearTruth
}

// Tear makes a tear of spec.Kind on the current paper (several attempts at the geometry; the
// first whose measured ruling matches the kind and is not ambiguous wins, else the closest),
// applies it and returns its measured truth.
func (st *State) Tear(rng *rand.Rand, spec TearSpec) (*TearResult, error) {
	if spec.Action == "" {
		spec.Action = judge.KindUse
	}
	si := -1
	for i, sk := range st.Sheet.Skills {
		if sk.Name == spec.Skill {
			si = i
		}
	}
	if si < 0 {
		return nil, fmt.Errorf("tear: skill %q is not on the sheet", spec.Skill)
	}
	var best *TearResult
	bestScore, good := -1, 0
	for attempt := 0; attempt < 30 && good < 2; attempt++ {
		reg := st.plan(rng, spec.Kind, si)
		if reg == nil {
			continue
		}
		// Big tears are rarely what is wanted: skip them cheaply while there is time.
		if attempt < 20 && spec.Kind != TearNone && st.coarseFraction(reg) > 0.35 {
			continue
		}
		res, err := st.apply(reg, spec)
		if err != nil {
			return nil, err
		}
		score := matchScore(spec.Kind, res.Truth)
		// Players tear modest pieces: prefer tears taking at most 30% of the paper, and
		// hardly ever more than half of it.
		if score > 0 && res.Truth.RemovedAreaMM2 > 0.3*res.Truth.BeforeAreaMM2 {
			score--
		}
		if score > 0 && res.Truth.RemovedAreaMM2 > 0.5*res.Truth.BeforeAreaMM2 {
			score = 0
		}
		if score == 3 {
			good++
		}
		// Among equally good tears, the smallest.
		if score > bestScore || (score == bestScore && res.Truth.RemovedAreaMM2 < best.Truth.RemovedAreaMM2) {
			best, bestScore = res, score
		}
		if spec.Kind == TearNone {
			break
		}
	}
	if best == nil {
		res, err := st.apply(empty{}, spec)
		if err != nil {
			return nil, err
		}
		best = res
	}
	st.commit(best)
	return best, nil
}

// matchScore rates how well a measured tear matches its kind: 3 exact and unambiguous,
// 2 exact but ambiguous, 1 the aimed fault among others, 0 otherwise.
func matchScore(k TearKind, t TearTruth) int {
	want := map[TearKind][]judge.Fault{
		TearBite: {}, TearCorner: {},
		TearCutOnly:   {judge.FaultNoFullLetter},
		TearTooSmall:  {judge.FaultPieceTooSmall},
		TearHole:      {judge.FaultNotEdgeToEdge},
		TearTwoPieces: {judge.FaultSeveralPieces},
		TearNone:      {judge.FaultNothingRemoved},
	}[k]
	if k == TearGraze {
		if t.Expected.Verdict == judge.Undecided {
			return 3
		}
		return 0
	}
	got := t.ExactFaults
	same := len(got) == len(want)
	for i := range want {
		if !same || got[i] != want[i] {
			same = false
		}
	}
	if same {
		if t.Ambiguous {
			return 2
		}
		return 3
	}
	if len(want) == 1 {
		for _, f := range got {
			if f == want[0] && !t.Ambiguous {
				return 1
			}
		}
	}
	return 0
}

// letterCenter is the mean of a letter's outline (mm).
func letterCenter(l *Letter) Pt {
	c := Pt{}
	for _, p := range l.Outline {
		c = c.add(p)
	}
	return c.mul(1 / float64(len(l.Outline)))
}

// onSheet returns the letters of skill si wholly on the current paper.
func (st *State) onSheet(si int) []*Letter {
	var out []*Letter
	for _, l := range st.Sheet.Skills[si].Letters {
		if inkWithin(l, st.Paper) == l.InkPx {
			out = append(out, l)
		}
	}
	return out
}

// inkWithin counts l's ink pixels set in m.
func inkWithin(l *Letter, m *Mask) int {
	n := 0
	bw := l.Box.Dx()
	for y := l.Box.Min.Y; y < l.Box.Max.Y; y++ {
		for x := l.Box.Min.X; x < l.Box.Max.X; x++ {
			if l.Ink[(y-l.Box.Min.Y)*bw+x-l.Box.Min.X] != 0 && m.Pix[y*m.W+x] != 0 {
				n++
			}
		}
	}
	return n
}

// ray returns how far (mm) one can go from c in direction d before leaving the paper.
func (st *State) ray(c, d Pt) float64 {
	ppm := st.Sheet.PxPerMM
	for t := 0.0; t < 2000; t += 0.5 {
		p := c.add(d.mul(t))
		if !st.Paper.At(int(p.X*ppm), int(p.Y*ppm)) {
			return t
		}
	}
	return 2000
}

// exits returns the directions (radians) out of the paper from c, shortest first.
func (st *State) exits(c Pt) []struct{ a, d float64 } {
	var out []struct{ a, d float64 }
	for k := 0; k < 24; k++ {
		a := float64(k) * math.Pi / 12
		out = append(out, struct{ a, d float64 }{a, st.ray(c, unit(a))})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	return out
}

// pickExit picks an exit direction, favouring short ones.
func pickExit(rng *rand.Rand, ex []struct{ a, d float64 }) (float64, float64) {
	i := int(math.Floor(math.Pow(rng.Float64(), 2.5) * 6))
	if i >= len(ex) {
		i = len(ex) - 1
	}
	return ex[i].a, ex[i].d
}

// cutBeyond returns a half-plane removing everything beyond the letters ls (whole) towards
// direction a, at least depth mm deep from the paper's edge along a.
func (st *State) cutBeyond(rng *rand.Rand, ls []*Letter, a, edgeDist, depth, rough float64) region {
	n := unit(a)
	c := letterCenter(ls[0])
	lo := math.Inf(1)
	for _, l := range ls {
		for _, p := range l.Outline {
			lo = math.Min(lo, n.dot(p.sub(c)))
		}
	}
	d := lo - 1.5 - 2.5*rough - rng.Float64()*3
	d = math.Min(d, edgeDist-depth)
	return halfPlane{o: c, n: n, u: Pt{-n.Y, n.X}, prof: lineTable(rng, 500, rough)}.shift(d)
}

func (h halfPlane) shift(d float64) halfPlane {
	h.o = h.o.add(h.n.mul(d))
	return h
}

// plan proposes the geometry of a tear of kind k on skill si, or nil.
func (st *State) plan(rng *rand.Rand, k TearKind, si int) region {
	on := st.onSheet(si)
	sk := st.Sheet.Skills[si]
	rough := 0.6 + 1.6*rng.Float64()
	switch k {
	case TearNone:
		return empty{}
	case TearBite, TearCorner:
		if len(on) == 0 {
			return nil
		}
		l := nearEdge(rng, st, on)
		ls := []*Letter{l}
		ex := st.exits(letterCenter(l))
		a, dist := pickExit(rng, ex)
		if k == TearCorner {
			// Aim between the two shortest perpendicular-ish exits: towards a corner.
			a2, _ := ex[0].a, ex[0].d
			for _, e := range ex[1:] {
				if diff := math.Abs(math.Remainder(e.a-a2, 2*math.Pi)); diff > math.Pi/3 && diff < 2*math.Pi/3 {
					a = a2 + math.Remainder(e.a-a2, 2*math.Pi)/2
					break
				}
			}
			dist = st.ray(letterCenter(l), unit(a))
		}
		if rng.Float64() < 0.35 && k == TearBite {
			// A round bite from the edge, centred where the exit ray leaves the paper.
			c := letterCenter(l)
			e := c.add(unit(a).mul(dist + 2 + 6*rng.Float64()))
			r := 0.0
			for _, p := range l.Outline {
				r = math.Max(r, p.sub(e).norm())
			}
			r = math.Max(r+2+2*rough+3*rng.Float64(), 32+8*rng.Float64())
			return blob{c: e, u: unit(rng.Float64() * 2 * math.Pi), a: r, b: r * (0.8 + 0.2*rng.Float64()), prof: ringTable(rng, r, rough)}
		}
		return st.cutBeyond(rng, ls, a, dist, 30+12*rng.Float64(), rough)
	case TearGraze:
		if len(on) == 0 {
			return nil
		}
		// The first or the last letter of the word, torn along the word's direction, so that
		// no other letter of it is on the piece.
		l, dir := on[0], unit(sk.AngleDeg*math.Pi/180).mul(-1)
		if rng.Float64() < 0.5 {
			l, dir = on[len(on)-1], dir.mul(-1)
		}
		dir = dir.rot((rng.Float64() - 0.5) * 0.3)
		c := letterCenter(l)
		lo, hi := inkExtent(l, st.Sheet.PxPerMM, dir, c)
		delta := 0.08 + 0.2*rng.Float64()
		d := hi - delta // a sliver of the letter comes away
		if rng.Float64() < 0.5 {
			d = lo + delta // all of the letter but a sliver comes away
		}
		h := halfPlane{o: c, n: dir, u: Pt{-dir.Y, dir.X}, prof: lineTable(rng, 500, 0.04)}
		return h.shift(d)
	case TearCutOnly:
		if len(on) == 0 {
			return nil
		}
		// A line along the word through its letters: every letter it meets is cut.
		l := on[rng.Intn(len(on))]
		u := unit(sk.AngleDeg * math.Pi / 180)
		nrm := Pt{-u.Y, u.X}
		c := letterCenter(l)
		if st.ray(c, nrm.mul(-1)) < st.ray(c, nrm) {
			nrm = nrm.mul(-1)
		}
		if rng.Float64() < 0.25 {
			nrm = nrm.mul(-1)
		}
		r := math.Min(rough, 0.12*sk.CapHeightMM)
		h := halfPlane{o: c, n: nrm, u: Pt{-nrm.Y, nrm.X}, prof: lineTable(rng, 500, r*0.5)}
		// Shift the line a little, staying inside the letters' band.
		h = h.shift((rng.Float64() - 0.5) * 0.15 * sk.CapHeightMM)
		if rng.Float64() < 0.3 {
			return h
		}
		// Close the piece off with a second tear across the word, beyond one of its letters,
		// so that not the whole side of the sheet comes away.
		dir := u
		if rng.Float64() < 0.5 {
			dir = u.mul(-1)
		}
		k := on[rng.Intn(len(on))]
		across := halfPlane{o: letterCenter(k), n: dir.mul(-1), u: Pt{dir.Y, -dir.X}, prof: lineTable(rng, 500, rough)}
		return intersect{h, across.shift(-rng.Float64() * 10)}
	case TearTooSmall:
		var l *Letter
		if len(on) > 0 {
			l = on[rng.Intn(len(on))]
		}
		var c Pt
		var a, dist float64
		if l != nil && rng.Float64() < 0.8 {
			c = letterCenter(l)
			a, dist = st.exits(c)[0].a, st.exits(c)[0].d
		} else {
			c = Pt{rng.Float64() * st.Sheet.Paper.WidthMM, rng.Float64() * st.Sheet.Paper.HeightMM}
			a, dist = st.exits(c)[0].a, st.exits(c)[0].d
		}
		e := c.add(unit(a).mul(dist + 1))
		r := 9 + 6*rng.Float64()
		if l != nil {
			for _, p := range l.Outline {
				r = math.Max(r, p.sub(e).norm()+1.5)
			}
		}
		if r > 19 {
			r = 9 + 6*rng.Float64()
		}
		return blob{c: e, u: unit(rng.Float64() * 2 * math.Pi), a: r, b: r * (0.7 + 0.3*rng.Float64()), prof: ringTable(rng, r, math.Min(rough, 1))}
	case TearHole:
		if len(on) == 0 {
			return nil
		}
		// Letters far enough from the edge for a hole around them.
		var far []int
		for i, l := range on {
			if st.exits(letterCenter(l))[0].d > 12+0.8*sk.CapHeightMM {
				far = append(far, i)
			}
		}
		i := rng.Intn(len(on))
		if len(far) > 0 {
			i = far[rng.Intn(len(far))]
		}
		ls := on[i : i+1]
		if i+1 < len(on) && rng.Float64() < 0.5 {
			ls = on[i : i+2]
		}
		u := unit(sk.AngleDeg * math.Pi / 180)
		c := Pt{}
		for _, l := range ls {
			c = c.add(letterCenter(l))
		}
		c = c.mul(1 / float64(len(ls)))
		ra, rb := 0.0, 0.0
		for _, l := range ls {
			for _, p := range l.Outline {
				d := p.sub(c)
				ra = math.Max(ra, math.Abs(u.dot(d)))
				rb = math.Max(rb, math.Abs(-u.Y*d.X+u.X*d.Y))
			}
		}
		m := 3 + 2*rough + 4*rng.Float64()
		big := rng.Float64() < 0.6 // big enough for the template, so the only fault is the hole
		ra, rb = (ra+m)*1.2, (rb+m)*1.2
		if big {
			ra, rb = math.Max(ra, 26+6*rng.Float64()), math.Max(rb, 19+5*rng.Float64())
		}
		// Keep clear of the edge: shrink towards the letters if needed.
		if room := st.exits(c)[0].d - 3 - rough; room < math.Max(ra, rb) && room > 0 {
			k := math.Max(room/math.Max(ra, rb), 0.5)
			ra, rb = ra*k, rb*k
		}
		return blob{c: c, u: u, a: ra, b: rb, prof: ringTable(rng, (ra+rb)/2, math.Min(rough, 1.2))}
	case TearTwoPieces:
		if len(on) == 0 {
			return nil
		}
		first := st.plan(rng, TearBite, si)
		// The second: a corner or bite somewhere else, on any letter or at random.
		var second region
		for try := 0; try < 5 && second == nil; try++ {
			c := Pt{rng.Float64() * st.Sheet.Paper.WidthMM, rng.Float64() * st.Sheet.Paper.HeightMM}
			if !st.Paper.At(int(c.X*st.Sheet.PxPerMM), int(c.Y*st.Sheet.PxPerMM)) {
				continue
			}
			ex := st.exits(c)
			if first.contains(c) {
				continue
			}
			e := c.add(unit(ex[0].a).mul(ex[0].d + 3))
			if first.contains(e) {
				continue
			}
			r := 20 + 14*rng.Float64()
			second = blob{c: e, u: unit(rng.Float64() * 6.3), a: r, b: r * (0.7 + 0.3*rng.Float64()), prof: ringTable(rng, r, rough)}
		}
		if first == nil || second == nil {
			return nil
		}
		return union{first, second}
	}
	return nil
}

// apply measures what region would do to the current paper, without committing it.
func (st *State) apply(reg region, spec TearSpec) (*TearResult, error) {
	sh := st.Sheet
	ppm := sh.PxPerMM
	before := st.Paper
	after := before.Clone()
	x0, y0, x1, y1 := 0, 0, before.W, before.H
	if b, ok := reg.(bounded); ok {
		if bx0, by0, bx1, by1, ok := b.box(); ok {
			x0, y0 = max(0, int(bx0*ppm)-1), max(0, int(by0*ppm)-1)
			x1, y1 = min(before.W, int(bx1*ppm)+2), min(before.H, int(by1*ppm)+2)
		}
	}
	for y := y0; y < y1; y++ {
		py := (float64(y) + 0.5) / ppm
		for x := x0; x < x1; x++ {
			i := y*before.W + x
			if before.Pix[i] == 0 {
				continue
			}
			if reg.contains(Pt{(float64(x) + 0.5) / ppm, py}) {
				after.Pix[i] = 0
			}
		}
	}
	// The player keeps one sheet: any other part of the paper left comes away too.
	kept, err := largestComponent(after)
	if err != nil {
		return nil, err
	}
	removed := before.andNot(kept)
	res := &TearResult{Before: before, After: kept, Removed: removed}
	if err := st.measure(res, spec); err != nil {
		return nil, err
	}
	return res, nil
}

// commit makes res the current state.
func (st *State) commit(res *TearResult) {
	st.Paper = res.After
	st.Tears = append(st.Tears, res)
	for i, l := range st.Sheet.Letters() {
		_ = l
		if res.Truth.letterAmbiguous[i] {
			st.uncertain[i] = true
		}
	}
	st.owed = res.Truth.Expected.OwedTears
	st.out = res.Truth.Expected.Out
}

// largestComponent keeps the largest 8-connected component of m.
func largestComponent(m *Mask) (*Mask, error) {
	src, err := m.mat()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	labels := gocv.NewMat()
	defer labels.Close()
	stats := gocv.NewMat()
	defer stats.Close()
	cents := gocv.NewMat()
	defer cents.Close()
	n := gocv.ConnectedComponentsWithStatsWithParams(src, &labels, &stats, &cents, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	if n <= 2 {
		return m.Clone(), nil
	}
	best, bestA := 0, -1
	for i := 1; i < n; i++ {
		if a := int(stats.GetIntAt(i, int(gocv.CC_STAT_AREA))); a > bestA {
			best, bestA = i, a
		}
	}
	lab, err := int32s(labels)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	out := NewMask(m.W, m.H)
	for i, v := range lab {
		if int(v) == best {
			out.Pix[i] = 1
		}
	}
	return out, nil
}

// piecesOf splits removed into 8-connected pieces.
func piecesOf(removed *Mask) ([]*Mask, []image.Rectangle, error) {
	src, err := removed.mat()
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	labels := gocv.NewMat()
	defer labels.Close()
	stats := gocv.NewMat()
	defer stats.Close()
	cents := gocv.NewMat()
	defer cents.Close()
	n := gocv.ConnectedComponentsWithStatsWithParams(src, &labels, &stats, &cents, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	lab, err := int32s(labels)
	if err != nil {
		return nil, nil, fmt.Errorf("labels: %w", err)
	}
	var out []*Mask
	var boxes []image.Rectangle
	for i := 1; i < n; i++ {
		x := int(stats.GetIntAt(i, int(gocv.CC_STAT_LEFT)))
		y := int(stats.GetIntAt(i, int(gocv.CC_STAT_TOP)))
		w := int(stats.GetIntAt(i, int(gocv.CC_STAT_WIDTH)))
		h := int(stats.GetIntAt(i, int(gocv.CC_STAT_HEIGHT)))
		box := image.Rect(x, y, x+w, y+h)
		pm := NewMask(removed.W, removed.H)
		for yy := box.Min.Y; yy < box.Max.Y; yy++ {
			for xx := box.Min.X; xx < box.Max.X; xx++ {
				if int(lab[yy*removed.W+xx]) == i {
					pm.Pix[yy*removed.W+xx] = 1
				}
			}
		}
		out = append(out, pm)
		boxes = append(boxes, box)
	}
	return out, boxes, nil
}

// int32s copies a CV_32S Mat's values.
func int32s(m gocv.Mat) ([]int32, error) {
	if m.Type() != gocv.MatTypeCV32S {
		return nil, fmt.Errorf("mat type %v, want CV_32S", m.Type())
	}
	b := m.ToBytes()
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// nearEdge picks one of the (up to) three letters closest to the paper's edge.
func nearEdge(rng *rand.Rand, st *State, ls []*Letter) *Letter {
	type cand struct {
		l *Letter
		d float64
	}
	var cs []cand
	for _, l := range ls {
		cs = append(cs, cand{l, st.exits(letterCenter(l))[0].d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	n := len(cs)
	if n > 3 {
		n = 3
	}
	return cs[rng.Intn(n)].l
}

// coarseFraction estimates (on a 2 px/mm grid) the fraction of the paper reg would take.
func (st *State) coarseFraction(reg region) float64 {
	ppm := st.Sheet.PxPerMM
	step := max(1, int(ppm/2))
	in, all := 0, 0
	for y := step / 2; y < st.Paper.H; y += step {
		for x := step / 2; x < st.Paper.W; x += step {
			if st.Paper.Pix[y*st.Paper.W+x] == 0 {
				continue
			}
			all++
			if reg.contains(Pt{(float64(x) + 0.5) / ppm, (float64(y) + 0.5) / ppm}) {
				in++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(in) / float64(all)
}

// inkExtent returns the range of dir.(p-c) over the letter's ink pixels' centres (mm).
func inkExtent(l *Letter, ppm float64, dir, c Pt) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	bw := l.Box.Dx()
	for y := l.Box.Min.Y; y < l.Box.Max.Y; y++ {
		for x := l.Box.Min.X; x < l.Box.Max.X; x++ {
			if l.Ink[(y-l.Box.Min.Y)*bw+x-l.Box.Min.X] == 0 {
				continue
			}
			v := dir.dot(Pt{(float64(x) + 0.5) / ppm, (float64(y) + 0.5) / ppm}.sub(c))
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}
