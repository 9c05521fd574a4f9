package ocr

import (
	"math"
	"sort"
)

// atomDP: letters are found by aligning the word's marks with its letters (atomParts)
// rather than by the mark count alone.
var atomDP = true

// Weights of the alignment of marks with letters (atomParts).
var (
	// mergeGapWeight is the cost of putting two marks apart by a whole letter width into
	// one letter (proportional to the gap).
	mergeGapWeight = 5.0
	// splitWeight is the cost of cutting a mark into letters, on top of the ink cut.
	splitWeight = 1.0
	// mergeWeight is the cost of each mark beyond the first in one letter.
	mergeWeight = 0.5
	// bearing is the part of a letter's width (cap heights) that is no ink of its own: the
	// space beside a letter written apart.
	bearing = 0.12
	// emptyWeight is the cost of a letter with no ink of its own in a gap between marks.
	emptyWeight = 2.0
)

// joinedUp reports whether the word of n letters is written joined-up and slanted, like a
// script hand (see joinedEnds): more than 3 letters per mark (tiny marks aside), its strokes
// at least joinedSlant off the vertical (shear, px along the line per px across).
func (f *segFrame) joinedUp(marks []*atomMark, n int) bool {
	big := 0
	for _, am := range marks {
		if !am.tiny {
			big++
		}
	}
	return n > 3*big && math.Abs(f.shear) >= joinedSlant
}

// tinyArea is the most ink (pixels) of a tiny mark (a dot, an accent: no letter of its own)
// among marks of the given areas (sorted in place): a fifth of the median mark's.
func tinyArea(areas []int) int {
	sort.Ints(areas)
	return areas[len(areas)/2] / 5
}

// atomMark is a mark with its extent along u' on the core band (its whole extent when it
// has no core-band ink) and its column profile of core-band ink.
type atomMark struct {
	*blob
	c0, c1 float64 // core extent along u'
	tiny   bool    // a dot or accent: no width of its own
	prof   []float64
	off    float64 // u' of prof[0]
}

// atomStep is one step of the alignment: marks a..b-1 make letters i..j-1 (one mark cut
// into several letters at cuts, or several marks joined into one letter).
type atomStep struct {
	a, b, i, j int
	cuts       []float64
}

// atomParts divides the word's marks (sorted along u') among its letters by dynamic
// programming: each letter is one mark, several marks (a broken letter, an accent), or a
// piece of a mark holding several joined letters, cut through its thinnest ink near the
// expected widths (exp, px per unit of width: scale). Each choice costs its letters' width
// deviation, the gaps inside joined marks and the ink cut through; Tesseract's symbol
// centres (when given) pull the letters. ok is false when no division fits.
func (f *segFrame) atomParts(blobs []*blob, exp []float64, wordEnds []int, scale float64, centres []float64) ([]letterPart, []string, division, bool) {
	n, m := len(exp), len(blobs)
	if m == 0 || n == 0 || scale <= 0 {
		return nil, nil, 0, false
	}
	// Letter widths without the space after a word: the space is a gap, not ink.
	lw := append([]float64{}, exp...)
	for _, e := range wordEnds {
		lw[e] -= spaceWidth
	}
	areas := make([]int, m)
	for i, b := range blobs {
		areas[i] = len(b.pix)
	}
	small := tinyArea(areas)
	marks := make([]*atomMark, m)
	sum, cnt := 0.0, 0
	for i, b := range blobs {
		am := &atomMark{blob: b, c0: math.Inf(1), c1: math.Inf(-1), tiny: len(b.pix) <= small}
		for _, p := range b.pix {
			if f.inCore(p) {
				u := f.u(p)
				am.c0, am.c1 = math.Min(am.c0, u), math.Max(am.c1, u)
			}
		}
		if am.c0 > am.c1 {
			am.c0, am.c1 = b.u0, b.u1
		}
		am.off = math.Floor(am.c0)
		am.prof = make([]float64, int(math.Ceil(am.c1-am.off))+2)
		for _, p := range b.pix {
			if coreProfile && !f.inCore(p) {
				continue
			}
			k := int(f.u(p) - am.off)
			if k >= 0 && k < len(am.prof) {
				am.prof[k]++
			}
		}
		for _, v := range am.prof {
			if v > 0 {
				sum += v
				cnt++
			}
		}
		marks[i] = am
	}
	mean := math.Max(1, sum/math.Max(1, float64(cnt)))
	cursive := strokeEnd || joinedEnds && f.joinedUp(marks, n)
	// Where each letter is expected to start along the line, to bound the search.
	start := make([]float64, n+1)
	for i := range exp {
		start[i+1] = start[i] + exp[i]*scale
	}
	first := marks[0].c0
	for _, am := range marks {
		first = math.Min(first, am.c0)
	}
	pitch := start[n] / float64(n)
	wcost := func(w, e float64) float64 {
		// By the ratio's logarithm: a narrow letter is not penalised more than a wide one.
		r := math.Log(math.Max(w, 1) / e)
		return widthWeight * r * r
	}
	ccost := func(i int, lo, hi float64) float64 {
		if centres == nil || math.IsNaN(centres[i]) {
			return 0
		}
		r := ((lo+hi)/2 - centres[i]) / (lw[i] * scale)
		return symbolWeight * r * r
	}
	inf := math.Inf(1)
	d := make([][]float64, m+1)
	from := make([][]atomStep, m+1)
	for a := range d {
		d[a] = make([]float64, n+1)
		from[a] = make([]atomStep, n+1)
		for i := range d[a] {
			d[a][i] = inf
		}
	}
	d[0][0] = 0
	for a := 0; a < m; a++ {
		for i := 0; i <= n; i++ {
			if d[a][i] == inf {
				continue
			}
			// Tiny marks join the letter before them (or the next one) at no cost.
			if marks[a].tiny {
				if c := d[a][i]; c < d[a+1][i] && i > 0 {
					d[a+1][i], from[a+1][i] = c, atomStep{a: a, b: a + 1, i: i, j: i}
				}
			}
			if i == n {
				continue
			}
			// Letter i has no ink here (not found, or too faint): it takes the gap before
			// mark a, when that gap is about a letter wide.
			if emptyWeight > 0 {
				g0 := first
				if a > 0 {
					g0 = marks[a-1].c1
				}
				if g := marks[a].c0 - g0; g > 0 {
					e := lw[i] * scale
					c := d[a][i] + wcost(g, e) + emptyWeight
					if c < d[a][i+1] {
						d[a][i+1], from[a][i+1] = c, atomStep{a: a, b: a, i: i, j: i + 1}
					}
				}
			}
			// Marks a..b-1 make letter i.
			lo, hi := inf, -inf
			gaps := 0.0
			for b := a + 1; b <= m && b <= a+4; b++ {
				am := marks[b-1]
				if !am.tiny {
					if hi > -inf {
						gaps += math.Max(0, am.c0-hi)
					}
					lo, hi = math.Min(lo, am.c0), math.Max(hi, am.c1)
				}
				if hi == -inf {
					continue
				}
				e := lw[i] * scale
				ei := math.Max(0.5*e, (lw[i]-bearing)*scale)
				c := d[a][i] + wcost(hi-lo+1, ei) + mergeGapWeight*gaps/e + ccost(i, lo, hi) + mergeWeight*float64(b-a-1)
				if c < d[b][i+1] {
					d[b][i+1], from[b][i+1] = c, atomStep{a: a, b: b, i: i, j: i + 1}
				}
			}
			// Mark a cut into letters i..j-1 (j-i >= 2).
			am := marks[a]
			if am.tiny {
				continue
			}
			// Only starts near where the mark lies along the line.
			if math.Abs(am.c0-first-start[i]) > 3*pitch {
				continue
			}
			costs, cuts := am.splitCosts(lw[i:], scale, mean, centres, i, cursive)
			for k := 2; k < len(costs); k++ {
				if costs[k] == inf {
					continue
				}
				c := d[a][i] + costs[k] + splitWeight*float64(k-1)
				if c < d[a+1][i+k] {
					d[a+1][i+k], from[a+1][i+k] = c, atomStep{a: a, b: a + 1, i: i, j: i + k, cuts: cuts[k]}
				}
			}
		}
	}
	if d[m][n] == inf {
		return nil, nil, 0, false
	}
	// Walk back: which letter each mark is, or the cuts inside it.
	letterOf := make([]int, m) // first letter of the mark
	kOf := make([]int, m)      // letters in the mark (1 unless cut)
	markCuts := make([][]float64, m)
	split := false
	empty := map[int][2]float64{} // letters given a gap: the gap along u'
	for a, i := m, n; a > 0 || i > 0; {
		st := from[a][i]
		if st.a == st.b {
			g0 := first
			if st.a > 0 {
				g0 = marks[st.a-1].c1
			}
			empty[st.i] = [2]float64{g0, marks[st.a].c0}
			a, i = st.a, st.i
			continue
		}
		for x := st.a; x < st.b; x++ {
			letterOf[x] = max(0, st.j-1)
			kOf[x] = 1
			if st.j == st.i { // a tiny mark joined to the letter before
				letterOf[x] = st.i - 1
			}
		}
		if st.cuts != nil {
			letterOf[st.a] = st.i
			kOf[st.a] = st.j - st.i
			markCuts[st.a] = st.cuts
			split = true
		}
		a, i = st.a, st.i
	}
	mark := map[int32]int{}
	for x, am := range marks {
		for _, p := range am.pix {
			mark[p] = x
		}
	}
	// Cuts along the whole word for the seams (between marks: halfway across the gap).
	cuts := make([]float64, n-1)
	narrow := make([]bool, n-1) // cuts at the end of a thin stretch: seams keep to them
	for x, am := range marks {
		for q, c := range markCuts[x] {
			cuts[letterOf[x]+q] = c
			narrow[letterOf[x]+q] = cursive
		}
		if am.tiny {
			continue
		}
		last := letterOf[x] + kOf[x] - 1
		if last < n-1 {
			// The next non-tiny mark with a later letter.
			for y := x + 1; y < m; y++ {
				if !marks[y].tiny && letterOf[y] > last {
					cuts[last] = (am.c1 + marks[y].c0) / 2
					break
				}
			}
		}
	}
	for i, g := range empty {
		if i > 0 {
			cuts[i-1] = g[0]
		}
		if i < n-1 {
			cuts[i] = g[1]
		}
	}
	for i := 1; i < len(cuts); i++ {
		cuts[i] = math.Max(cuts[i], cuts[i-1])
	}
	var seams *seamSet
	if split {
		seams = f.seams(cuts, pitch, narrow)
	}
	cutOf := func(p int32) int {
		x := mark[p]
		lo, k := letterOf[x], kOf[x]
		if k == 1 {
			return lo
		}
		var l int
		if seams == nil {
			l = sort.SearchFloat64s(cuts, f.u(p))
		} else {
			l = seams.letterOf(f, p)
		}
		return min(max(l, lo), lo+k-1)
	}
	letterAt := f.followStrokes(cutOf)
	groups := make([][]int32, n)
	for x, am := range marks {
		for _, p := range am.pix {
			l := letterAt(p)
			if kOf[x] == 1 {
				l = letterOf[x]
			}
			groups[l] = append(groups[l], p)
		}
	}
	if split {
		// The letters cut inside a mark: a joining stroke's tip stays with its letter.
		var bounds []int
		for x, am := range marks {
			if markCuts[x] != nil && !am.tiny {
				for q := range markCuts[x] {
					bounds = append(bounds, letterOf[x]+q)
				}
			}
		}
		f.keepTips(groups, bounds, pitch)
	}
	notes := []string{cutByMarks}
	conf := byMarks
	if split {
		notes, conf = []string{cutByProfile}, byProfile
	} else if m != n {
		notes, conf = []string{cutByJoined}, byJoinedMarks
	}
	out := make([]letterPart, n)
	u0, u1 := blobs[0].u0, blobs[0].u1
	for _, b := range blobs {
		u0, u1 = math.Min(u0, b.u0), math.Max(u1, b.u1)
	}
	for i := range groups {
		if len(groups[i]) == 0 {
			conf = withEmptyLetter
			notes = append(notes, cutNoInkShare)
		}
		lo, hi := u0, u1
		if i > 0 {
			lo = cuts[i-1]
		}
		if i < len(cuts) {
			hi = cuts[i]
		}
		out[i] = letterPart{pix: groups[i], lo: lo, hi: hi}
	}
	return out, notes, conf, true
}

// splitCosts divides the mark's columns among the first k letters of widths lw (k = 2 ..
// len(lw)), each near its expected width (scale px per unit) and cut through little ink
// (mean: a typical column's ink; at the end of a thin stretch with cursive: see strokeEnd),
// the letters numbered from first for Tesseract's centres.
// costs[k] is the best cost for k letters (+Inf when they cannot fit) and cuts[k] their
// k-1 cuts along u'.
func (am *atomMark) splitCosts(lw []float64, scale, mean float64, centres []float64, first int, cursive bool) ([]float64, [][]float64) {
	W := len(am.prof) - 1 // columns 0..W-1 hold the mark (prof has one spare)
	for W > 0 && am.prof[W-1] == 0 {
		W--
	}
	kmax := 0
	acc := 0.0
	for kmax < len(lw) && acc < 2*float64(W) {
		acc += lw[kmax] * scale
		kmax++
	}
	inf := math.Inf(1)
	costs := make([]float64, kmax+1)
	cuts := make([][]float64, kmax+1)
	for k := range costs {
		costs[k] = inf
	}
	if kmax < 2 || W < 2 {
		return costs, cuts
	}
	d := make([][]float64, kmax)
	from := make([][]int, kmax)
	for i := range d {
		d[i] = make([]float64, W+1)
		from[i] = make([]int, W+1)
		for c := range d[i] {
			d[i][c] = inf
		}
	}
	cc := cutCosts(am.prof, mean, max(1, int(math.Round(rightLook*scale))), cursive)
	for i := 0; i < kmax; i++ {
		e := lw[i] * scale
		lo, hi := max(1, int(0.25*e)), int(math.Ceil(3*e))+1
		for c := 1; c <= W; c++ {
			cut := 0.0
			if c < W {
				cut = cc[c]
			}
			for w := lo; w <= hi && w <= c; w++ {
				j := c - w
				var prev float64
				if i == 0 {
					if j != 0 {
						continue
					}
				} else {
					prev = d[i-1][j]
					if prev == inf {
						continue
					}
				}
				r := (float64(w) - e) / e
				cc := prev + widthWeight*r*r + cut
				if centres != nil && !math.IsNaN(centres[first+i]) {
					rr := (am.off + float64(j+c)/2 - centres[first+i]) / e
					cc += symbolWeight * rr * rr
				}
				if cc < d[i][c] {
					d[i][c], from[i][c] = cc, j
				}
			}
		}
	}
	for k := 2; k <= kmax; k++ {
		if d[k-1][W] == inf {
			continue
		}
		costs[k] = d[k-1][W]
		cs := make([]float64, k-1)
		c := W
		for i := k - 1; i > 0; i-- {
			c = from[i][c]
			cs[i-1] = am.off + float64(c) + 0.5
		}
		cuts[k] = cs
	}
	return costs, cuts
}
