package ocr

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// inkMap is the ink of a rectified sheet, in pure Go: per pixel its darkness against the local
// paper (0 = paper, 255 = full ink), and the connected components of ink.
type inkMap struct {
	w, h    int
	pxPerMM float64
	dark    []uint8 // darkness, stretched so that typical ink is near 255
	label   []int32 // component index + 1 for ink pixels, 0 elsewhere
	comps   []component
	// paper is the paper mask at the working scale (nonzero on paper), nil when none was given.
	paper []uint8
	// lineLevel is the darkness of the paper's printed ruling, 0 when it has none.
	lineLevel int
}

// component is one connected blob of ink.
type component struct {
	pix            []int32 // pixel indices y*w+x
	x0, y0, x1, y1 int     // bounding box, inclusive
	cx, cy         float64 // centroid
	scale          float64 // the letter size it suggests, px
	line           bool    // a piece of joined-up writing several letters long
}

func (c *component) area() int { return len(c.pix) }

// workPxPerMM is the resolution ink is analysed at; vision's rectified sheets are at 4.
const workPxPerMM = 4.0

// extractInk finds the ink on a rectified sheet (BGR or grey, 8 bit). Ink is what is darker
// than the local paper in its darkest colour channel (so blue or red pen counts as well as
// pencil and black pen). mask, when not empty, is the paper: ink outside it is ignored.
func extractInk(sheet, mask gocv.Mat, pxPerMM float64) (*inkMap, error) {
	if sheet.Empty() {
		return nil, errors.New("empty sheet image")
	}
	if pxPerMM <= 0 || math.IsNaN(pxPerMM) {
		return nil, fmt.Errorf("bad scale %v px/mm", pxPerMM)
	}
	if sheet.Type() != gocv.MatTypeCV8UC3 && sheet.Type() != gocv.MatTypeCV8UC1 && sheet.Type() != gocv.MatTypeCV8UC4 {
		return nil, fmt.Errorf("sheet image type %v: want 8-bit BGR or grey", sheet.Type())
	}
	if !mask.Empty() && (mask.Cols() != sheet.Cols() || mask.Rows() != sheet.Rows()) {
		return nil, fmt.Errorf("mask %dx%d does not match sheet %dx%d", mask.Cols(), mask.Rows(), sheet.Cols(), sheet.Rows())
	}
	minc := gocv.NewMat()
	defer minc.Close()
	switch sheet.Channels() {
	case 1:
		sheet.CopyTo(&minc)
	case 4:
		gocv.CvtColor(sheet, &minc, gocv.ColorBGRAToGray)
	default:
		gocv.CvtColor(sheet, &minc, gocv.ColorBGRToGray)
	}
	// Work at about workPxPerMM: finer photos are reduced (outlines are in mm, so nothing
	// outside notices), coarse ones enlarged.
	var paperMask gocv.Mat
	if !mask.Empty() {
		paperMask = gocv.NewMat()
		defer paperMask.Close()
		if mask.Channels() != 1 {
			gocv.CvtColor(mask, &paperMask, gocv.ColorBGRToGray)
		} else {
			mask.CopyTo(&paperMask)
		}
	}
	if pxPerMM > 1.5*workPxPerMM || pxPerMM < 0.6*workPxPerMM {
		f := workPxPerMM / pxPerMM
		sz := image.Pt(max(1, int(math.Round(float64(minc.Cols())*f))), max(1, int(math.Round(float64(minc.Rows())*f))))
		interp := gocv.InterpolationArea
		if f > 1 {
			interp = gocv.InterpolationLinear
		}
		gocv.Resize(minc, &minc, sz, 0, 0, interp)
		if !mask.Empty() {
			gocv.Resize(paperMask, &paperMask, sz, 0, 0, gocv.InterpolationNearestNeighbor)
		}
		pxPerMM = workPxPerMM
	}
	w, h := minc.Cols(), minc.Rows()
	// Paper level: a grey closing larger than any pen stroke removes the ink.
	k := int(math.Round(3.5*pxPerMM)) | 1
	k = max(k, 5)
	kernel := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(k, k))
	defer kernel.Close()
	bg := gocv.NewMat()
	defer bg.Close()
	gocv.MorphologyEx(minc, &bg, gocv.MorphClose, kernel)
	gocv.Blur(bg, &bg, image.Pt(k, k))
	diff := gocv.NewMat()
	defer diff.Close()
	gocv.Subtract(bg, minc, &diff)
	d, err := diff.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("read ink map: %w", err)
	}
	dark := make([]uint8, len(d))
	copy(dark, d)

	var paper, rawPaper []uint8
	if !mask.Empty() {
		raw, err := paperMask.DataPtrUint8()
		if err != nil {
			return nil, fmt.Errorf("read paper mask: %w", err)
		}
		rawPaper = append([]uint8(nil), raw...)
		m := gocv.NewMat()
		defer m.Close()
		paperMask.CopyTo(&m)
		e := int(math.Round(1.0*pxPerMM))*2 + 1
		ek := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(e, e))
		defer ek.Close()
		gocv.Erode(m, &m, ek)
		p, err := m.DataPtrUint8()
		if err != nil {
			return nil, fmt.Errorf("read paper mask: %w", err)
		}
		paper = make([]uint8, len(p))
		copy(paper, p)
		// The erosion leaves the image's own border alone (OpenCV erodes as if paper went
		// on beyond it); where the paper reaches the border of the rectified image, that
		// border is its edge too, and the warp's dark rim there is no ink (a one-pixel
		// line along a whole side read as dozens of word candidates).
		r := e / 2
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if x < r || y < r || x >= w-r || y >= h-r {
					paper[y*w+x] = 0
				}
			}
		}
		for i := range dark {
			if paper[i] == 0 {
				dark[i] = 0
			}
		}
	}
	im := &inkMap{w: w, h: h, pxPerMM: pxPerMM, dark: dark, paper: rawPaper}
	if err := im.removeRuling(diff); err != nil {
		return nil, err
	}
	im.threshold()
	return im, nil
}

// removeRuling finds the printed lines of ruled paper (long, thin, straight, along the sheet's
// axes, and lighter than pen ink) and wipes them from the darkness map, keeping the pixels
// where ink crosses a line (darker than the line itself).
func (im *inkMap) removeRuling(diff gocv.Mat) error {
	bin := gocv.NewMat()
	defer bin.Close()
	gocv.Threshold(diff, &bin, 22, 255, gocv.ThresholdBinary)
	l := int(math.Round(25 * im.pxPerMM))
	lines := gocv.NewMatWithSize(im.h, im.w, gocv.MatTypeCV8U)
	defer lines.Close()
	for _, sz := range []image.Point{{l, 1}, {1, l}} {
		k := gocv.GetStructuringElement(gocv.MorphRect, sz)
		o := gocv.NewMat()
		gocv.MorphologyEx(bin, &o, gocv.MorphOpen, k)
		gocv.BitwiseOr(lines, o, &lines)
		o.Close()
		k.Close()
	}
	k3 := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k3.Close()
	gocv.Dilate(lines, &lines, k3)
	lp, err := lines.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("read line mask: %w", err)
	}
	var hist [256]int
	n := 0
	for i, v := range lp {
		if v != 0 && im.dark[i] >= 22 {
			hist[im.dark[i]]++
			n++
		}
	}
	if n < 2*im.w { // less than two lines across the sheet: not ruled paper
		return nil
	}
	// The lines' own darkness: their 80th percentile.
	level, acc := 0, 0
	for v := 0; v < 256; v++ {
		acc += hist[v]
		if acc >= n*4/5 {
			level = v
			break
		}
	}
	if level > 100 {
		return nil // as dark as pen ink: writing, or the sheet's edge, not printed ruling
	}
	keep := uint8(min(255, level*3/2+10))
	for i, v := range lp {
		if v != 0 && im.dark[i] < keep {
			im.dark[i] = 0
		}
	}
	im.lineLevel = level
	return nil
}

// faintLevel (of the threshold) and faintMM2: a component with that much ink that dark is
// kept although no pixel reaches the threshold (0 disables).
var (
	faintLevel = 0.65
	faintMM2   = 1.0
)

// threshold picks the ink threshold (Otsu on the darkness, within sane bounds), labels
// components with hysteresis (pixels above half the threshold joined to ones above it),
// drops specks and stretches the darkness map.
func (im *inkMap) threshold() {
	var hist [256]int
	for _, v := range im.dark {
		hist[v]++
	}
	t := otsu(hist[:])
	t = min(max(t, 28), 110)
	lo := uint8(t / 2)
	hi := uint8(t)
	im.label = labelComponents(im.dark, im.w, im.h, lo)
	// Collect components; keep those holding a pixel above hi and larger than a speck.
	n := int32(0)
	for _, l := range im.label {
		n = max(n, l)
	}
	comps := make([]component, n)
	strong := make([]bool, n)
	// A faint stroke (pencil on a sheet also written on in black felt, which sets the
	// threshold) holds no pixel above hi: a letter's worth of ink above faintLevel of it
	// makes it ink too.
	faint := make([]int, n)
	fl := uint8(max(28, int(faintLevel*float64(t))))
	for i, l := range im.label {
		if l == 0 {
			continue
		}
		c := &comps[l-1]
		c.pix = append(c.pix, int32(i))
		if im.dark[i] >= hi {
			strong[l-1] = true
		}
		if im.dark[i] >= fl {
			faint[l-1]++
		}
	}
	faintArea := int(math.Ceil(faintMM2 * im.pxPerMM * im.pxPerMM))
	for i := range strong {
		strong[i] = strong[i] || faintLevel > 0 && faint[i] >= faintArea
	}
	minArea := max(4, int(0.12*im.pxPerMM*im.pxPerMM))
	maxSide := 150 * im.pxPerMM
	remap := make([]int32, n+1)
	var kept []component
	for i := range comps {
		c := &comps[i]
		if !strong[i] || len(c.pix) < minArea {
			continue
		}
		c.bounds(im.w)
		if float64(c.x1-c.x0) > maxSide || float64(c.y1-c.y0) > maxSide {
			continue
		}
		kept = append(kept, *c)
		remap[i+1] = int32(len(kept))
	}
	for i, l := range im.label {
		im.label[i] = remap[l]
	}
	im.comps = kept
	// Stretch: the 90th percentile of strong ink darkness becomes 255.
	var inkHist [256]int
	total := 0
	for i, l := range im.label {
		if l != 0 {
			inkHist[im.dark[i]]++
			total++
		}
	}
	ref := 255
	if total > 0 {
		acc := 0
		for v := 255; v >= 0; v-- {
			acc += inkHist[v]
			if acc >= total/5 {
				ref = max(v, int(hi))
				break
			}
		}
	}
	for i, v := range im.dark {
		im.dark[i] = uint8(min(255, int(v)*255/ref))
	}
	for i := range im.comps {
		im.comps[i].measure(im.w, im.pxPerMM)
	}
}

func (c *component) bounds(w int) {
	c.x0, c.y0, c.x1, c.y1 = math.MaxInt, math.MaxInt, -1, -1
	for _, p := range c.pix {
		x, y := int(p)%w, int(p)/w
		c.x0, c.x1 = min(c.x0, x), max(c.x1, x)
		c.y0, c.y1 = min(c.y0, y), max(c.y1, y)
	}
}

// measure fills centroid and scale. The scale is the component's long side, except for
// elongated ones (a cursive word, an "l") whose short side stands for the letter size.
func (c *component) measure(w int, ppm float64) {
	var sx, sy float64
	for _, p := range c.pix {
		sx += float64(int(p) % w)
		sy += float64(int(p) / w)
	}
	n := float64(len(c.pix))
	c.cx, c.cy = sx/n, sy/n
	long, short := orientedExtent(c.pix, w)
	switch {
	case short > 3*ppm:
		// Joined-up writing: the core band (x-height) of the piece is the letter size;
		// its full height holds ascenders and descenders, and would join lines together.
		c.scale = min(long, max(1.5*coreBand(c.pix, w), long/6))
		// Several letters long (a single letter with a loop or a crossbar is not).
		c.line = long > 2.5*short && long > 3.5*c.scale
	case long > 2.5*short:
		c.scale = max(short, long/4)
	default:
		c.scale = long
	}
}

// coreBand is the height, across the pixels' principal axis, of the band of rows holding at
// least 40% of the busiest row's pixels.
func coreBand(pix []int32, w int) float64 {
	cx, cy, ux, uy := principalAxis(pix, w)
	_, _, v0, v1 := extentAlong(pix, w, cx, cy, ux, uy)
	rows := make([]int, int(v1-v0)+2)
	for _, p := range pix {
		x, y := float64(int(p)%w)-cx, float64(int(p)/w)-cy
		rows[int(-x*uy+y*ux-v0)]++
	}
	a, b := busyRows(rows)
	return float64(b - a + 1)
}

// busyRows is the first and last index of the rows holding at least 40% of the busiest
// row's count (the core band of a line of writing); -1, -1 for an empty profile.
func busyRows(rows []int) (a, b int) {
	mx := 0
	for _, r := range rows {
		mx = max(mx, r)
	}
	a, b = -1, -1
	for i, r := range rows {
		if 5*r >= 2*mx {
			if a < 0 {
				a = i
			}
			b = i
		}
	}
	return a, b
}

// orientedExtent is the long and short side of the pixels' box along their principal axes.
func orientedExtent(pix []int32, w int) (long, short float64) {
	cx, cy, ux, uy := principalAxis(pix, w)
	u0, u1, v0, v1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pix {
		x, y := float64(int(p)%w)-cx, float64(int(p)/w)-cy
		u, v := x*ux+y*uy, -x*uy+y*ux
		u0, u1 = math.Min(u0, u), math.Max(u1, u)
		v0, v1 = math.Min(v0, v), math.Max(v1, v)
	}
	return u1 - u0 + 1, v1 - v0 + 1
}

// principalAxis is the centroid and the unit direction of the largest spread of the pixels.
func principalAxis(pix []int32, w int) (cx, cy, ux, uy float64) {
	n := float64(len(pix))
	for _, p := range pix {
		cx += float64(int(p) % w)
		cy += float64(int(p) / w)
	}
	cx, cy = cx/n, cy/n
	var sxx, syy, sxy float64
	for _, p := range pix {
		x, y := float64(int(p)%w)-cx, float64(int(p)/w)-cy
		sxx += x * x
		syy += y * y
		sxy += x * y
	}
	th := 0.5 * math.Atan2(2*sxy, sxx-syy)
	return cx, cy, math.Cos(th), math.Sin(th)
}

func otsu(hist []int) int {
	total, sum := 0, 0.0
	for i, c := range hist {
		total += c
		sum += float64(i * c)
	}
	if total == 0 {
		return 0
	}
	var sumB, wB float64
	best, bestT := -1.0, 0
	for t := range hist {
		wB += float64(hist[t])
		if wB == 0 {
			continue
		}
		wF := float64(total) - wB
		if wF == 0 {
			break
		}
		sumB += float64(t * hist[t])
		mB, mF := sumB/wB, (sum-sumB)/wF
		v := wB * wF * (mB - mF) * (mB - mF)
		if v > best {
			best, bestT = v, t
		}
	}
	return bestT
}

// labelComponents labels 8-connected pixels with value >= lo (two passes, union-find).
// Labels are 1..n, consecutive; 0 is background.
func labelComponents(img []uint8, w, h int, lo uint8) []int32 {
	lab := make([]int32, w*h)
	parent := []int32{0}
	find := func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	union := func(a, b int32) int32 {
		a, b = find(a), find(b)
		if a == b {
			return a
		}
		if a < b {
			parent[b] = a
			return a
		}
		parent[a] = b
		return b
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if img[i] < lo {
				continue
			}
			var l int32
			try := func(j int) {
				if lab[j] == 0 {
					return
				}
				if l == 0 {
					l = lab[j]
				} else if lab[j] != l {
					l = union(l, lab[j])
				}
			}
			if x > 0 {
				try(i - 1)
			}
			if y > 0 {
				if x > 0 {
					try(i - w - 1)
				}
				try(i - w)
				if x < w-1 {
					try(i - w + 1)
				}
			}
			if l == 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			lab[i] = l
		}
	}
	// Flatten to consecutive labels.
	next := int32(0)
	final := make([]int32, len(parent))
	for i := 1; i < len(parent); i++ {
		r := find(int32(i))
		if final[r] == 0 {
			next++
			final[r] = next
		}
		final[i] = final[r]
	}
	for i, l := range lab {
		if l != 0 {
			lab[i] = final[l]
		}
	}
	return lab
}

// region is a group of ink components taken to be one written word or phrase.
type region struct {
	comps []int // component indices into inkMap.comps
	pix   []int32
	// Oriented frame: centre, reading direction (ux,uy) and the down direction (-uy,ux).
	cx, cy, ux, uy float64
	u0, u1, v0, v1 float64 // extent of the ink in that frame, px
	// full, when set, is the whole region this one is a clipped view of (see clipped):
	// what is read is the clipped ink, what is cut into letters the full region's.
	full *region
	// tilted marks a view turned off the region's estimated direction (see tiltedViews).
	tilted bool
	// core is the height of its core band along its estimated direction (see coreHeight).
	core float64
}

// lastLook reports whether the region is a view made in the last search among the ink no
// skill took (clipped, or tilted off its estimated direction), where a weak likeness to a
// missing skill is most likely another word: such a read must read well.
func (rg *region) lastLook() bool { return rg.full != nil || rg.tilted }

// descenderClip is how far below the core band, in core band heights, a clipped view keeps ink.
const descenderClip = 0.35

// peakBand is the run of rows around the busiest one holding at least 40% of its count
// (first and last row index).
func peakBand(rows []int) (a, b int) {
	pk := 0
	for i, r := range rows {
		if r > rows[pk] {
			pk = i
		}
	}
	a, b = pk, pk
	for a > 0 && 5*rows[a-1] >= 2*rows[pk] {
		a--
	}
	for b+1 < len(rows) && 5*rows[b+1] >= 2*rows[pk] {
		b++
	}
	return a, b
}

// clipped is the region, in its own reading frame, without the ink hanging more than
// descenderClip core heights below its core band (peakBand: the run of rows around the
// busiest one holding at least 40% of its ink): big descender loops under a word make Tesseract misread the
// letters above them. nil when nothing hangs that low.
func (im *inkMap) clipped(rg *region) *region {
	if rg.full != nil || len(rg.pix) == 0 {
		return nil
	}
	off := math.Floor(rg.v0)
	vs := make([]float64, len(rg.pix))
	rows := make([]int, int(rg.v1-off)+2)
	for i, p := range rg.pix {
		_, vs[i] = rg.toUV(float64(int(p)%im.w), float64(int(p)/im.w))
		rows[min(len(rows)-1, max(0, int(vs[i]-off)))]++
	}
	a, b := peakBand(rows)
	vmax := off + float64(b+1) + descenderClip*float64(b-a+1)
	var kept []int32
	for i, p := range rg.pix {
		if vs[i] <= vmax {
			kept = append(kept, p)
		}
	}
	if len(kept) == len(rg.pix) || len(kept) < len(rg.pix)/2 {
		return nil
	}
	c := *rg
	c.pix = kept
	c.full = rg
	c.setAngle(rg.angle(), im.w)
	return &c
}

// fragments joins components into pieces of words: two components belong together when the
// gap between their boxes is small against the letter size they suggest.
func (im *inkMap) fragments(gapFactor float64) [][]int {
	n := len(im.comps)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(a int) int {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	// Sort by x0 for a sweep.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return im.comps[order[a]].x0 < im.comps[order[b]].x0 })
	maxScale := 0.0
	for i := range im.comps {
		maxScale = math.Max(maxScale, im.comps[i].scale)
	}
	for ai, a := range order {
		ca := &im.comps[a]
		for _, b := range order[ai+1:] {
			cb := &im.comps[b]
			if float64(cb.x0-ca.x1) > gapFactor*maxScale {
				break
			}
			gx := max(0, cb.x0-ca.x1, ca.x0-cb.x1)
			gy := max(0, cb.y0-ca.y1, ca.y0-cb.y1)
			gap := math.Hypot(float64(gx), float64(gy))
			s := math.Max(ca.scale, cb.scale)
			// A small piece (a dot, an accent) joins a letter close to it; two letters join
			// when the gap is small against the smaller one's size (words of very different
			// sizes next to each other stay apart).
			small := math.Min(ca.scale, cb.scale)
			lim := gapFactor * math.Min(s, 1.25*small)
			if small < 0.35*s {
				lim = gapFactor * s * 0.6
			}
			// Boxes bound the ink's gap, and loosely when the larger piece is joined-up
			// writing at a slant: its box covers paper far from its ink, where another word
			// may lie (a small word tucked under a big one's first letters). Then the ink
			// itself must lie within a letter (the smaller piece's size, or half the larger
			// one's: the letter size is unsure).
			big := ca
			if cb.scale > ca.scale {
				big = cb
			}
			if gap <= lim && (!big.line || im.inkWithin(ca, cb, math.Max(small, s/2))) {
				parent[find(a)] = find(b)
			}
		}
	}
	groups := map[int][]int{}
	var roots []int
	for i := 0; i < n; i++ {
		r := find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], i)
	}
	out := make([][]int, 0, len(roots))
	for _, r := range roots {
		out = append(out, groups[r])
	}
	return out
}

// inkWithin reports whether some pixel of a lies within lim px of some pixel of b (the
// distance between pixel centres).
func (im *inkMap) inkWithin(a, b *component, lim float64) bool {
	if len(a.pix) > len(b.pix) {
		a, b = b, a
	}
	r := int(math.Ceil(lim))
	// a's pixels near b's box, bucketed in cells of side r+1.
	cell := r + 1
	near := func(c *component, x, y int) bool {
		return x >= c.x0-r && x <= c.x1+r && y >= c.y0-r && y <= c.y1+r
	}
	grid := map[[2]int][]int32{}
	for _, p := range a.pix {
		x, y := int(p)%im.w, int(p)/im.w
		if near(b, x, y) {
			k := [2]int{x / cell, y / cell}
			grid[k] = append(grid[k], p)
		}
	}
	if len(grid) == 0 {
		return false
	}
	l2 := lim * lim
	for _, p := range b.pix {
		x, y := int(p)%im.w, int(p)/im.w
		if !near(a, x, y) {
			continue
		}
		cx, cy := x/cell, y/cell
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				for _, q := range grid[[2]int{cx + dx, cy + dy}] {
					ddx, ddy := float64(int(q)%im.w-x), float64(int(q)/im.w-y)
					if ddx*ddx+ddy*ddy <= l2 {
						return true
					}
				}
			}
		}
	}
	return false
}

// frag is a piece of writing during line grouping.
type frag struct {
	comps          []int
	pix            []int32
	cx, cy, ux, uy float64
	u0, u1, v0, v1 float64
	elongated      bool
	size           float64 // letter height it suggests, px
}

func (im *inkMap) newFrag(comps []int) *frag {
	f := &frag{comps: comps}
	for _, c := range comps {
		f.pix = append(f.pix, im.comps[c].pix...)
	}
	cx, cy, ux, uy := principalAxis(f.pix, im.w)
	f.cx, f.cy = cx, cy
	th := math.Atan2(uy, ux)
	f.ux, f.uy = math.Cos(th), math.Sin(th)
	f.u0, f.u1, f.v0, f.v1 = extentAlong(f.pix, im.w, cx, cy, f.ux, f.uy)
	lu, lv := f.u1-f.u0+1, f.v1-f.v0+1
	// A thin elongated piece is one stroke (l, i, 1, the stem of a t), not a line of
	// writing: its direction says nothing about the line's.
	f.elongated = lu > 1.8*lv && lv > 2.5*im.pxPerMM
	if f.elongated {
		th = im.refineAngle(f.pix, cx, cy, th)
		f.ux, f.uy = math.Cos(th), math.Sin(th)
		f.u0, f.u1, f.v0, f.v1 = extentAlong(f.pix, im.w, cx, cy, f.ux, f.uy)
		f.size = f.v1 - f.v0 + 1
	} else {
		f.size = 0.85 * math.Max(lu, lv)
	}
	return f
}

// extentAlong is the extent of the pixels along (ux,uy) and across it, around (cx,cy).
func extentAlong(pix []int32, w int, cx, cy, ux, uy float64) (u0, u1, v0, v1 float64) {
	u0, u1, v0, v1 = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pix {
		x, y := float64(int(p)%w)-cx, float64(int(p)/w)-cy
		u, v := x*ux+y*uy, -x*uy+y*ux
		u0, u1 = math.Min(u0, u), math.Max(u1, u)
		v0, v1 = math.Min(v0, v), math.Max(v1, v)
	}
	return
}

// joinGap says whether two fragments continue one line of writing, and how far apart they are
// along it (the smaller, the sooner they are joined); ok false when they are not in line.
func (im *inkMap) joinGap(a, b *frag) (float64, bool) {
	if math.Max(a.size, b.size) > 2.5*math.Min(a.size, b.size) {
		return 0, false
	}
	size := math.Max(a.size, b.size)
	// Quick reject on centre distance.
	d := math.Hypot(b.cx-a.cx, b.cy-a.cy)
	la, lb := a.u1-a.u0, b.u1-b.u0
	if !a.elongated {
		la = a.size
	}
	if !b.elongated {
		lb = b.size
	}
	if d-(la+lb)/2 > 1.5*size {
		return 0, false
	}
	// The reading direction: the longer elongated fragment's, else the centres' line.
	var ux, uy float64
	ref := a
	if b.elongated && (!a.elongated || lb > la) {
		ref = b
	}
	if ref.elongated {
		ux, uy = ref.ux, ref.uy
		other := b
		if ref == b {
			other = a
		}
		if other.elongated && math.Abs(math.Sin(math.Atan2(other.uy, other.ux)-math.Atan2(uy, ux))) > 0.35 {
			return 0, false
		}
		// The other fragment's centre must lie near ref's line.
		off := math.Abs(-(other.cx-ref.cx)*uy + (other.cy-ref.cy)*ux)
		if off > 0.55*ref.size {
			return 0, false
		}
	} else {
		if d == 0 {
			return 0, true
		}
		ux, uy = (b.cx-a.cx)/d, (b.cy-a.cy)/d
	}
	a0, a1, av0, av1 := extentAlong(a.pix, im.w, ref.cx, ref.cy, ux, uy)
	b0, b1, bv0, bv1 := extentAlong(b.pix, im.w, ref.cx, ref.cy, ux, uy)
	if math.Min(av1, bv1)-math.Max(av0, bv0) < 0.3*math.Min(av1-av0, bv1-bv0) {
		return 0, false // side by side across the line, not along it
	}
	gap := math.Max(0, math.Max(b0-a1, a0-b1))
	lim := 0.9 * size
	if !a.elongated && !b.elongated {
		lim = 0.6 * size
	}
	if gap > lim {
		return 0, false
	}
	return gap / size, true
}

// attachMarks joins small marks left alone (the dot of an i or j, an accent) to the nearest
// piece of writing when they lie within about a letter height of its ink.
func (im *inkMap) attachMarks(frags []*frag) []*frag {
	isMark := func(f *frag) bool {
		return math.Max(f.u1-f.u0, f.v1-f.v0) < 3*im.pxPerMM
	}
	for i := 0; i < len(frags); i++ {
		f := frags[i]
		if !isMark(f) {
			continue
		}
		bj, bd := -1, math.Inf(1)
		for j, g := range frags {
			if j == i || isMark(g) {
				continue
			}
			if math.Hypot(g.cx-f.cx, g.cy-f.cy) > (g.u1-g.u0)/2+(g.v1-g.v0)+g.size {
				continue
			}
			d := math.Inf(1)
			for _, p := range g.pix {
				d = math.Min(d, math.Hypot(float64(int(p)%im.w)-f.cx, float64(int(p)/im.w)-f.cy))
			}
			// About half an x-height: where the dot of an i sits above its stem.
			lim := 0.5 * g.size
			if g.elongated {
				lim = 0.9 * coreBand(g.pix, im.w)
			}
			if d < lim && d < bd {
				bj, bd = j, d
			}
		}
		if bj < 0 {
			continue
		}
		frags[bj] = im.newFrag(append(append([]int{}, frags[bj].comps...), f.comps...))
		frags = append(frags[:i], frags[i+1:]...)
		i--
	}
	return frags
}

// groupWords finds the word regions: close components first (letters of a word, dots,
// accents), then pieces in line with each other (the next letters, the next word of a skill),
// joined nearest first. Two words side by side across their lines stay apart.
func (im *inkMap) groupWords(gapFactor float64) []*region {
	var frags []*frag
	for _, g := range im.fragments(gapFactor) {
		frags = append(frags, im.newFrag(g))
	}
	for {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := range frags {
			for j := i + 1; j < len(frags); j++ {
				if g, ok := im.joinGap(frags[i], frags[j]); ok && g < best {
					bi, bj, best = i, j, g
				}
			}
		}
		if bi < 0 {
			break
		}
		nf := im.newFrag(append(append([]int{}, frags[bi].comps...), frags[bj].comps...))
		frags[bi] = nf
		frags = append(frags[:bj], frags[bj+1:]...)
	}
	frags = im.attachMarks(frags)
	var out []*region
	for _, f := range frags {
		if rg := im.newRegion(f.comps); rg != nil {
			out = append(out, rg)
		}
	}
	return out
}

// newRegion builds a region from components and estimates its reading direction; nil when the
// ink is too small to be writing (height below 2.5 mm) or too big (a stain, a drawing).
func (im *inkMap) newRegion(comps []int) *region {
	rg := &region{comps: comps}
	for _, c := range comps {
		rg.pix = append(rg.pix, im.comps[c].pix...)
	}
	if len(rg.pix) < 10 {
		return nil
	}
	cx, cy, ux, uy := principalAxis(rg.pix, im.w)
	rg.cx, rg.cy = cx, cy
	th := im.refineAngle(rg.pix, cx, cy, math.Atan2(uy, ux))
	rg.setAngle(th, im.w)
	long := rg.u1 - rg.u0
	short := rg.v1 - rg.v0
	if math.Max(long, short) < 2.5*im.pxPerMM {
		return nil
	}
	if short > 60*im.pxPerMM {
		return nil
	}
	rg.core = im.coreHeight(rg)
	return rg
}

// setAngle sets the reading direction and recomputes the extent.
func (rg *region) setAngle(th float64, w int) {
	rg.ux, rg.uy = math.Cos(th), math.Sin(th)
	rg.u0, rg.u1, rg.v0, rg.v1 = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range rg.pix {
		u, v := rg.toUV(float64(int(p)%w), float64(int(p)/w))
		rg.u0, rg.u1 = math.Min(rg.u0, u), math.Max(rg.u1, u)
		rg.v0, rg.v1 = math.Min(rg.v0, v), math.Max(rg.v1, v)
	}
}

func (rg *region) toUV(x, y float64) (u, v float64) {
	x, y = x-rg.cx, y-rg.cy
	return x*rg.ux + y*rg.uy, -x*rg.uy + y*rg.ux
}

func (rg *region) fromUV(u, v float64) (x, y float64) {
	return rg.cx + u*rg.ux - v*rg.uy, rg.cy + u*rg.uy + v*rg.ux
}

func (rg *region) angle() float64 { return math.Atan2(rg.uy, rg.ux) }

// flipped is the same region read the other way up.
func (rg *region) rotated(by float64, w int) *region {
	r2 := *rg
	r2.setAngle(rg.angle()+by, w)
	return &r2
}

// refineAngle searches around th0 (±12°, 1° steps) for the angle whose row projection is most
// peaked: text lines give sharp rows when the baseline is level.
func (im *inkMap) refineAngle(pix []int32, cx, cy, th0 float64) float64 {
	best, bestTh := -1.0, th0
	bins := map[int]float64{}
	for d := -12; d <= 12; d++ {
		th := th0 + float64(d)*math.Pi/180
		s, c := math.Sin(th), math.Cos(th)
		clear(bins)
		for _, p := range pix {
			x, y := float64(int(p)%im.w)-cx, float64(int(p)/im.w)-cy
			v := -x*s + y*c
			bins[int(math.Floor(v))]++
		}
		e := 0.0
		for _, b := range bins {
			e += b * b
		}
		if e > best*1.0001 {
			best, bestTh = e, th
		}
	}
	return bestTh
}
