package vision

import (
	"cmp"
	"fmt"
	"image"
	"math"
	"slices"
	"sync"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// Template fitting.
//
// The question is whether some rotation, translation and flip put the whole template polygon
// inside a mask. tearcam answers it on a 2 px/mm copy of the mask with a signed distance
// transform (inside positive, outside negative, the frame's edge counting as outside):
//   - the template's own largest inscribed circle (radius r, centre c) must fit, so only
//     positions with distance >= r are candidates for c, and none means "does not fit";
//   - when the mask's largest inscribed circle reaches the template's farthest vertex from c,
//     it fits at once at every rotation;
//   - otherwise, for every rotation in fitStepDeg steps (both flips unless the template is
//     mirror- and half-turn-symmetric, like the default rectangle), the candidates are tried,
//     deepest first, against points along the template's outline every half pixel (plus an
//     interior grid, so a hole in the mask cannot hide inside the template), stopping at the
//     first outline point that leaves the mask.
// This is erosion by the rotated template restricted to the few pixels that can matter, so it
// costs milliseconds, and the same search with the template grown or shrunk by NearFitMM in
// width and height (its outline moved NearFitMM/2 outwards or inwards) tells when the answer
// is within 1 mm of the template's size: the band of issue 3 and of the synthetic truth
// (internal/synth FitMarginMM). Half a millimetre per side covers the mask's own boundary error
// (a quarter millimetre at 4 px/mm plus this search's half-pixel steps).

const (
	fitPxPerMM = 2.0
	fitStepDeg = 1.0
	// NearFitMM is the size tolerance (mm, in width and height) within which a fit is
	// reported as a doubt.
	NearFitMM = 1.0
)

// FitResult is the full answer of a template fit.
type FitResult struct {
	Fits      bool
	Placement template.Placement // where it fits (zero when it does not)
	// Near: the answer would change if the template were NearFitMM larger or smaller in
	// width and height.
	Near bool
}

// FitTemplate reports whether t fits inside region (CV_8UC1, non-zero = inside, pxPerMM
// pixels per millimetre, pixel (0,0) covering 0..1/pxPerMM mm) at some rotation (every
// degree), translation and flip, and where.
func FitTemplate(region gocv.Mat, pxPerMM float64, t template.Template) (template.Placement, bool, error) {
	r, err := FitTemplateDetail(region, pxPerMM, t)
	return r.Placement, r.Fits, err
}

// FitTemplateDetail is FitTemplate with the near-fit test.
func FitTemplateDetail(region gocv.Mat, pxPerMM float64, t template.Template) (FitResult, error) {
	return fitOpened(region, pxPerMM, t, 0)
}

// fitTemplateWithin is FitTemplateDetail for a region whose non-zero pixels all lie in box
// (region px) and that was opened with a disc of radius openedMM (0: not opened): the same
// answer, computed on the part of the region around box (settleMisfit allows for the
// opening). The signed
// distance there is the whole region's (the distances that decide lie within the box and a
// margin of fitMarginPx at fit resolution around it, where nothing is region; see
// outerDepthNear for why a window suffices); the resampling to fitPxPerMM keeps the same
// blocks when the window starts and ends on multiples of the scale factor. Otherwise, and
// for a template too thin for the margin argument, it is FitTemplateDetail on the whole
// region. Measure uses it for the removed pieces, which are small parts of the frame.
func fitTemplateWithin(region gocv.Mat, pxPerMM float64, t template.Template, box image.Rectangle, openedMM float64) (FitResult, error) {
	k := int(math.Round(pxPerMM / fitPxPerMM))
	whole := image.Rect(0, 0, region.Cols(), region.Rows())
	if region.Ptr() == nil || region.Empty() || region.Type() != gocv.MatTypeCV8UC1 || t.Validate() != nil ||
		k < 2 || float64(k)*fitPxPerMM != pxPerMM || whole.Dx()%k != 0 || whole.Dy()%k != 0 || box.Empty() {
		return fitOpened(region, pxPerMM, t, openedMM)
	}
	m := fitMarginPx * k
	r := image.Rect((box.Min.X-m)/k*k, (box.Min.Y-m)/k*k, (box.Max.X+m+k-1)/k*k, (box.Max.Y+m+k-1)/k*k).Intersect(whole)
	if r.Min.X < 0 || r.Min.Y < 0 || r == whole {
		return fitOpened(region, pxPerMM, t, openedMM)
	}
	sub := region.Region(r)
	defer sub.Close()
	f := newFitter(sub, pxPerMM, t, r.Min.X/k, r.Min.Y/k)
	// Every search (tau down to -NearFitMM/2) must look for the pole strictly inside the
	// region, which the window holds whole.
	if f.rIn-NearFitMM/2-misfitWindowMM <= 0.75/fitPxPerMM+0.5/fitPxPerMM {
		return fitOpened(region, pxPerMM, t, openedMM)
	}
	res := f.detail()
	if !res.Fits && !res.Near {
		return settleMisfit(f, sub, pxPerMM, t, r.Min.X/k, r.Min.Y/k, openedMM), nil
	}
	if res.Near {
		// The same window at the region's own resolution (refineNear); the margin is the
		// same in millimetres.
		m := fitMarginPx * k
		r := box.Inset(-m).Intersect(whole)
		sub := region.Region(r)
		defer sub.Close()
		res = newFitterAt(sub, pxPerMM, t, r.Min.X, r.Min.Y, pxPerMM).refineNear(res)
	}
	return res, nil
}

// fitOpened is FitTemplateDetail for a region opened with a disc of radius openedMM (0: not
// opened). A near fit is refined on the region's own grid when it is at least twice the fit
// grid; a certain misfit is settled there too (settleMisfit), and on any grid when the region
// was opened.
func fitOpened(region gocv.Mat, pxPerMM float64, t template.Template, openedMM float64) (FitResult, error) {
	if region.Ptr() == nil || region.Empty() || region.Type() != gocv.MatTypeCV8UC1 {
		return FitResult{}, fmt.Errorf("%w: fit region must be a non-empty CV_8UC1 mask", ErrBadInput)
	}
	if pxPerMM <= 0 {
		return FitResult{}, fmt.Errorf("%w: pxPerMM %g", ErrBadInput, pxPerMM)
	}
	if err := t.Validate(); err != nil {
		return FitResult{}, fmt.Errorf("%w: template: %v", ErrBadInput, err)
	}
	fine := pxPerMM >= 2*fitPxPerMM
	f := newFitter(region, pxPerMM, t, 0, 0)
	res := f.detail()
	switch {
	case res.Near && fine:
		res = newFitterAt(region, pxPerMM, t, 0, 0, pxPerMM).refineNear(res)
	case !res.Fits && !res.Near && (fine || openedMM > 0):
		res = settleMisfit(f, region, pxPerMM, t, 0, 0, openedMM)
	}
	return res, nil
}

// settleMisfit checks a misfit that the fitPxPerMM search f (on region, whose fitter image
// starts at (ox, oy) px at fitPxPerMM) calls certain, not near: that search can understate a
// margin by about 0.6 mm per side (0.57 on 300 convex shapes within 0.8 mm of a tight fit,
// 0.86 on deeper misfits: TestFitExactErrors), more than the half band the near test allows.
// And a region opened with a disc of radius openedMM (the removed pieces, Measure's opening
// of SliverMM) has lost its corners, where a tight template's corners lie: a rectangle's
// margin drops by up to 0.41 openedMM (TestFitExactShapes: a 38.12 x 25.42 mm hole turned
// 45°, 0.01 mm per side to spare, was a certain misfit after the opening).
//
// So the misfit is certain only for the template with its corners rounded by openedMM
// (roundedTemplate: if the template fits the region before the opening, that one fits it
// after), which contains no more than the template: when even that fails by more than the
// search's error. First on the fitPxPerMM grid, beyond misfitWindowMM past the half band,
// then on the region's own grid (refineNear's), beyond misfitFineMM. Otherwise the answer is
// a near misfit. Without the finer grid (pxPerMM under 2 fitPxPerMM) or for a template the
// rounding does not apply to (not convex, or sides too short), f's answer stands when
// openedMM is 0; otherwise the misfit is certain only when the region (after the opening)
// has no room for the template's inscribed circle, which an opening by a smaller disc keeps
// whole, and near if it has. For a template whose inscribed circle is under 1.875 mm in
// radius (a strip under 3.75 mm wide), f's answer stands: the searches would cover the whole
// frame at that depth.
func settleMisfit(f *fitter, region gocv.Mat, pxPerMM float64, t template.Template, ox, oy int, openedMM float64) FitResult {
	if f.rIn-NearFitMM/2-misfitWindowMM <= 0.75/fitPxPerMM+0.5/fitPxPerMM {
		return FitResult{}
	}
	near := FitResult{Near: true}
	rt, ok := roundedTemplate(t, openedMM)
	if !ok || pxPerMM < 2*fitPxPerMM {
		if openedMM <= 0 {
			return FitResult{}
		}
		// The inscribed circle, with the search's own allowance (search's need).
		if openedMM <= f.rIn && float64(f.maxIn) < (f.rIn-NearFitMM/2-misfitWindowMM)*f.res-0.75 {
			return FitResult{}
		}
		return near
	}
	k := int(math.Round(pxPerMM / fitPxPerMM))
	// The searches below run on the region's part around its paper (f's inside pixels and
	// fitMarginPx around them, at fitPxPerMM): the same distances where they decide.
	box := image.Rectangle{Min: image.Pt(f.w, f.h)}
	for i, d := range f.sd {
		if d > 0 {
			x, y := i%f.w-1, i/f.w-1
			box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
			box.Max.X, box.Max.Y = max(box.Max.X, x+1), max(box.Max.Y, y+1)
		}
	}
	if box.Empty() {
		return FitResult{}
	}
	box = box.Inset(-fitMarginPx).Intersect(image.Rect(0, 0, f.w-2, f.h-2))
	fine := image.Rect(box.Min.X*k, box.Min.Y*k, box.Max.X*k, box.Max.Y*k).Intersect(image.Rect(0, 0, region.Cols(), region.Rows()))
	sub := region.Region(fine)
	defer sub.Close()
	cf := f
	if openedMM > 0 {
		cf = newFitter(sub, pxPerMM, rt, ox+box.Min.X, oy+box.Min.Y)
	}
	if _, ok := cf.search(-NearFitMM/2 - misfitWindowMM); !ok {
		return FitResult{}
	}
	ff := newFitterAt(sub, pxPerMM, rt, (ox+box.Min.X)*k, (oy+box.Min.Y)*k, pxPerMM)
	if _, ok := ff.search(-misfitFineMM); !ok {
		return FitResult{}
	}
	return near
}

// misfitWindowMM and misfitFineMM are settleMisfit's allowances, per side (mm): a misfit on the
// fitPxPerMM grid by more than NearFitMM/2 + misfitWindowMM is certain (that grid understates
// a margin by at most 0.86 mm: the true margin is at least 0.39 mm short), and otherwise one on
// the region's own grid by more than misfitFineMM (which understates it by at most 0.42 mm
// within 0.8 mm of a tight fit, 0.58 on deeper misfits).
const (
	misfitWindowMM = 0.75
	misfitFineMM   = 0.6
)

// roundedTemplate is t with each corner rounded by a circle of radius r mm (the arc drawn
// with vertices on it, so the polygon lies inside the rounded shape): what an opening with a
// disc of radius r leaves of a convex template. ok is false when t is not convex or a side is
// too short for its corners' arcs. r <= 0 returns t.
func roundedTemplate(t template.Template, r float64) (template.Template, bool) {
	if r <= 0 {
		return t, true
	}
	p := t.PolygonMM
	n := len(p)
	area := 0.0
	for i := range p {
		q := p[(i+1)%n]
		area += p[i][0]*q[1] - q[0]*p[i][1]
	}
	sgn := 1.0
	if area < 0 {
		sgn = -1
	}
	tan := make([]float64, n) // the arc's reach along each side from vertex i
	for i := range p {
		a, b, c := pt{p[(i+n-1)%n][0], p[(i+n-1)%n][1]}, pt{p[i][0], p[i][1]}, pt{p[(i+1)%n][0], p[(i+1)%n][1]}
		u, v := b.sub(a), c.sub(b)
		if sgn*u.cross(v) <= 0 {
			return t, false // not convex (or a straight angle)
		}
		ang := math.Pi - math.Acos(max(-1, min(1, u.dot(v)/(u.norm()*v.norm())))) // interior angle
		tan[i] = r / math.Tan(ang/2)
	}
	var out [][2]float64
	for i := range p {
		a, b, c := pt{p[(i+n-1)%n][0], p[(i+n-1)%n][1]}, pt{p[i][0], p[i][1]}, pt{p[(i+1)%n][0], p[(i+1)%n][1]}
		if tan[i]+tan[(i+1)%n] >= dist(b, c) {
			return t, false
		}
		ua, uc := a.sub(b).mul(1/dist(a, b)), c.sub(b).mul(1/dist(b, c))
		p1, p2 := b.add(ua.mul(tan[i])), b.add(uc.mul(tan[i]))
		bis := ua.add(uc)
		ctr := b.add(bis.mul(math.Hypot(tan[i], r) / bis.norm()))
		a1, a2 := math.Atan2(p1.Y-ctr.Y, p1.X-ctr.X), math.Atan2(p2.Y-ctr.Y, p2.X-ctr.X)
		d := math.Remainder(a2-a1, 2*math.Pi)
		const steps = 8
		for s := 0; s <= steps; s++ {
			th := a1 + d*float64(s)/steps
			out = append(out, [2]float64{ctr.X + r*math.Cos(th), ctr.Y + r*math.Sin(th)})
		}
	}
	rt := template.Template{Name: t.Name + " rounded", PolygonMM: out}
	if rt.Validate() != nil {
		return t, false
	}
	return rt, true
}

// fitMarginPx: fitTemplateWithin keeps this many pixels (at fitPxPerMM) around the region's
// box; positions that far outside lie more than 1 px outside the region, which no search accepts.
const fitMarginPx = 8

// refineNear settles a near fit found on the fitPxPerMM grid (coarse) with f, the search on
// the region's own grid (4 px/mm on a sheet image), when f shows the answer clear of the band
// by more than its own error: the template grown by NearFitMM plus 2*refineFitSlackMM in width
// and height fits (a certain fit), or shrunk by NearFitMM plus 2*refineMissSlackMM does not (a
// certain misfit). Otherwise coarse stands, near.
//
// The largest margin per side each search finds against the exact one, on 480 rectangles
// (38.1+d) x (25.4+d) mm (d from -1 to 1.5 mm, turned every 4.5 degrees, placed off the pixel
// grid; the rasterised region's own half pixel included): -0.75 to +0.25 mm on the 2 px/mm
// grid, -0.42 to +0.13 mm on 4 px/mm. So the coarse grid called fits near that were up to
// about 1.25 mm per side from changing (the project set's case-004 bo-2, measured 0.575 mm per
// side on the fine grid, and seed 11's case-020 noor-2: valid tears ruled undecided on
// "template fit within 1 mm"). A fit settled here has at least 0.5+0.05-0.13 = 0.42 mm per
// side to spare (the coarse test settles fits down to 0.25), a misfit at least 0.5+0.5-0.42 =
// 0.58 mm. The fine search costs about four times the coarse one: it runs on near fits only.
func (f *fitter) refineNear(coarse FitResult) FitResult {
	if pl, ok := f.search(NearFitMM/2 + refineFitSlackMM); ok {
		return FitResult{Fits: true, Placement: pl}
	}
	if _, ok := f.search(-NearFitMM/2 - refineMissSlackMM); !ok {
		return FitResult{}
	}
	return coarse
}

// refineFitSlackMM and refineMissSlackMM are refineNear's allowances for the fine search's
// error, per side (mm).
const (
	refineFitSlackMM  = 0.05
	refineMissSlackMM = 0.5
)

// detail runs the search and the near-fit test.
func (f *fitter) detail() FitResult {
	res := FitResult{}
	res.Placement, res.Fits = f.search(0)
	if res.Fits {
		_, grown := f.search(NearFitMM / 2)
		res.Near = !grown
	} else {
		_, shrunk := f.search(-NearFitMM / 2)
		res.Near = shrunk
	}
	return res
}

type fitter struct {
	res     float64 // the search grid, px/mm: fitPxPerMM, or the region's own for refineNear
	w, h    int
	ox, oy  int       // where the fitter's image starts in the region, px at res
	sd      []float32 // signed distance, px at res: >0 inside
	maxIn   float32
	argMax  int
	t       template.Template
	c       pt      // template pole (mm, template coords)
	rIn     float64 // template inscribed radius around c, mm
	rOut    float64 // farthest template vertex from c, mm
	outline []pt    // outline + interior samples, mm, relative to c
	flips   []bool
	angles  int // number of rotation steps over 360°
}

// newFitter prepares the search on region (px at ppm), which starts at (ox, oy) px at
// fitPxPerMM in the region placements refer to.
func newFitter(region gocv.Mat, ppm float64, t template.Template, ox, oy int) *fitter {
	return newFitterAt(region, ppm, t, ox, oy, fitPxPerMM)
}

// newFitterAt is newFitter on a grid of res px/mm (at most ppm), (ox, oy) in px at res.
func newFitterAt(region gocv.Mat, ppm float64, t template.Template, ox, oy int, res float64) *fitter {
	f := &fitter{t: t, ox: ox, oy: oy, res: res}
	// Resample to res, with a 1-px border of "outside" so the frame edge counts.
	s := res / ppm
	w := int(math.Round(float64(region.Cols()) * s))
	h := int(math.Round(float64(region.Rows()) * s))
	small := gocv.NewMat()
	defer small.Close()
	if w == region.Cols() && h == region.Rows() {
		region.CopyTo(&small)
	} else {
		gocv.Resize(region, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	}
	gocv.Threshold(small, &small, 127, 255, gocv.ThresholdBinary)
	padded := gocv.NewMat()
	defer padded.Close()
	gocv.CopyMakeBorder(small, &padded, 1, 1, 1, 1, gocv.BorderConstant, colorBlack)
	f.w, f.h = w+2, h+2
	pb := padded.ToBytes()
	inside := chamferDist(pb, f.w, f.h)
	for i, v := range pb {
		pb[i] = ^v
	}
	outside := chamferDist(pb, f.w, f.h)
	f.sd = make([]float32, len(inside))
	for i := range inside {
		if inside[i] > 0 {
			f.sd[i] = inside[i] - 0.5
			if f.sd[i] > f.maxIn {
				f.maxIn, f.argMax = f.sd[i], i
			}
		} else {
			f.sd[i] = -outside[i] + 0.5
		}
	}
	f.prepTemplate()
	return f
}

var colorBlack = colorRGBA(0, 0, 0)

// templateShape is what the search needs of a template, which depends on nothing else: its
// pole and radii, the outline and interior samples, the rotations and flips to try.
type templateShape struct {
	c         pt
	rIn, rOut float64
	outline   []pt // shared, never written
	flips     []bool
	angles    int
}

// shapeCache keeps the templateShape of the templates seen (a session uses one or two), keyed
// by polygon: Measure fits the same template to every piece and to the paper of every tear,
// and the pole search on its 0.25 mm grid costs about 3 ms each time.
var shapeCache struct {
	sync.Mutex
	m map[string]*templateShape
}

func (f *fitter) prepTemplate() {
	key := fmt.Sprint(f.res, f.t.PolygonMM) // %v of float64 is exact (shortest round-trip form)
	shapeCache.Lock()
	ts := shapeCache.m[key]
	shapeCache.Unlock()
	if ts == nil {
		f.computeShape()
		ts = &templateShape{c: f.c, rIn: f.rIn, rOut: f.rOut, outline: f.outline, flips: f.flips, angles: f.angles}
		shapeCache.Lock()
		if shapeCache.m == nil || len(shapeCache.m) >= 16 {
			shapeCache.m = make(map[string]*templateShape)
		}
		shapeCache.m[key] = ts
		shapeCache.Unlock()
		return
	}
	f.c, f.rIn, f.rOut, f.outline, f.flips, f.angles = ts.c, ts.rIn, ts.rOut, ts.outline, ts.flips, ts.angles
}

// computeShape finds the template's pole of inaccessibility and its outline samples.
func (f *fitter) computeShape() {
	poly := make([]pt, len(f.t.PolygonMM))
	for i, q := range f.t.PolygonMM {
		poly[i] = pt{q[0], q[1]}
	}
	minX, minY, maxX, maxY := f.t.Bounds()
	// Pole of inaccessibility on a 0.25 mm grid (templates are small).
	const g = 0.25
	best := -1.0
	var interior []pt
	for y := minY + g/2; y < maxY; y += g {
		for x := minX + g/2; x < maxX; x += g {
			p := pt{x, y}
			if !pointInPoly(p, poly) {
				continue
			}
			d := math.Inf(1)
			for i := range poly {
				d = math.Min(d, segDist(p, poly[i], poly[(i+1)%len(poly)]))
			}
			if d > best {
				best, f.c = d, p
			}
			if math.Mod(x-minX-g/2, 2) < g/2 && math.Mod(y-minY-g/2, 2) < g/2 {
				interior = append(interior, p)
			}
		}
	}
	f.rIn = best
	for _, p := range poly {
		f.rOut = math.Max(f.rOut, dist(p, f.c))
	}
	step := 0.5 / f.res
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		n := int(math.Ceil(dist(a, b)/step)) + 1
		for k := 0; k < n; k++ {
			f.outline = append(f.outline, lerp(a, b, float64(k)/float64(n)).sub(f.c))
		}
	}
	for _, p := range interior {
		f.outline = append(f.outline, p.sub(f.c))
	}
	f.angles = int(math.Round(360 / fitStepDeg))
	f.flips = []bool{false, true}
	if isRect(poly) || halfTurnMirror(poly) {
		f.angles /= 2 // a rectangle is symmetric under a half turn and a flip
		f.flips = []bool{false}
	}
}

// halfTurnMirror reports whether the polygon p is its own image under a half turn about its
// vertices' centroid and under a reflection in some line through it (a rectangle with rounded
// corners: roundedTemplate): then a flip is a turn, and half the turns give the others.
func halfTurnMirror(p []pt) bool {
	if len(p) < 4 {
		return false
	}
	var c pt
	for _, q := range p {
		c = c.add(q)
	}
	c = c.mul(1 / float64(len(p)))
	scale := 0.0
	for _, q := range p {
		scale = math.Max(scale, dist(q, c))
	}
	eps := 1e-7 * (scale + 1)
	has := func(q pt) bool {
		for _, v := range p {
			if dist(q, v) < eps {
				return true
			}
		}
		return false
	}
	for _, q := range p {
		if !has(c.mul(2).sub(q)) {
			return false
		}
	}
	var axes []pt
	for i, q := range p {
		axes = append(axes, q.sub(c), lerp(q, p[(i+1)%len(p)], 0.5).sub(c))
	}
	for _, a := range axes {
		if a.norm() < eps {
			continue
		}
		u := a.mul(1 / a.norm())
		ok := true
		for _, q := range p {
			d := q.sub(c)
			if !has(c.add(u.mul(2 * d.dot(u))).sub(d)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func isRect(p []pt) bool {
	if len(p) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		a, b, c := p[i], p[(i+1)%4], p[(i+2)%4]
		u, v := b.sub(a), c.sub(b)
		if math.Abs(u.dot(v)) > 1e-6*u.norm()*v.norm() {
			return false
		}
	}
	return true
}

// search looks for a placement with every template point at signed distance >= tau mm.
func (f *fitter) search(tau float64) (template.Placement, bool) {
	k := float32(f.res)
	need := float32((f.rIn+tau)*f.res) - 0.75
	if f.maxIn < need {
		return template.Placement{}, false
	}
	if float64(f.maxIn) >= (f.rOut+tau)*f.res+0.75 {
		// The deepest point's inscribed circle holds the whole template at any angle.
		return f.placement(f.argMax, 0, false), true
	}
	type cand struct {
		i int
		d float32
	}
	var cands []cand
	for i, d := range f.sd {
		if d >= need {
			cands = append(cands, cand{i, d})
		}
	}
	// Deepest first, ties by position: a total order, so the result is reproducible.
	slices.SortFunc(cands, func(a, b cand) int {
		if a.d != b.d {
			return cmp.Compare(b.d, a.d)
		}
		return cmp.Compare(a.i, b.i)
	})
	thr := float32(tau * f.res)
	offs := make([]image.Point, len(f.outline))
	for _, flip := range f.flips {
		for a := 0; a < f.angles; a++ {
			ang := float64(a) * fitStepDeg * math.Pi / 180
			sn, cs := math.Sincos(ang)
			for j, o := range f.outline {
				x := o.X
				if flip { // F(v) - F(c) for the flip x -> -x
					x = -o.X
				}
				rx := cs*x - sn*o.Y
				ry := sn*x + cs*o.Y
				offs[j] = image.Pt(int(math.Round(rx*float64(k))), int(math.Round(ry*float64(k))))
			}
			for _, c := range cands {
				cx, cy := c.i%f.w, c.i/f.w
				ok := true
				for _, o := range offs {
					x, y := cx+o.X, cy+o.Y
					if x < 0 || y < 0 || x >= f.w || y >= f.h || f.sd[y*f.w+x] < thr {
						ok = false
						break
					}
				}
				if ok {
					return f.placement(c.i, float64(a)*fitStepDeg, flip), true
				}
			}
		}
	}
	return template.Placement{}, false
}

// placement converts a candidate pixel (padded, at f.res) and orientation to a Placement in
// the region's millimetres.
func (f *fitter) placement(i int, angleDeg float64, flip bool) template.Placement {
	px, py := float64(i%f.w-1+f.ox), float64(i/f.w-1+f.oy)
	pmm := pt{(px + 0.5) / f.res, (py + 0.5) / f.res}
	c := f.c
	if flip {
		c.X = -c.X
	}
	sn, cs := math.Sincos(angleDeg * math.Pi / 180)
	rc := pt{cs*c.X - sn*c.Y, sn*c.X + cs*c.Y}
	return template.Placement{AngleDeg: angleDeg, Flipped: flip, TxMM: pmm.X - rc.X, TyMM: pmm.Y - rc.Y}
}
