package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// workLong is the long side, in pixels, of the downscaled image the sheet is located on. The
// outline is then fitted with sub-pixel straight lines, so 640 px puts corners within about
// 0.1% of the diagonal while the colour loop stays at a few milliseconds.
const workLong = 640

// regLong is the working size for later photos: there the segmentation only masks the
// features and seeds the colour models; the paper mask itself is classified again at the
// sheet frame's full resolution.
const regLong = 320

// paperRL widens the paper colour model along lightness by this many bins (8 levels each).
const paperRL = 4

// region is one connected blob of paper-coloured pixels, in work pixels.
type region struct {
	contour  []pt
	area     float64 // contour area (holes such as ink included)
	quad     [4]pt   // fitted quadrilateral, corners in contour order
	quadOK   bool
	quadness float64 // area / quad area: 1 for a sheet, less for a torn one
	sideFit  float64 // fraction of outline points within tolerance of the quad's sides
	touches  float64 // fraction of outline points on the image border (0 if under 3 points)
	fill     float64 // fraction of the quad's area that is paper
	support  float64 // fraction of the quad's outline that is a paper/table edge in the mask
}

// sheetLike: the fitted quadrilateral is filled with paper and most of its outline is an
// edge between paper and table. Something stuck to the sheet (a reflection on the table, a
// pen) neither empties the quad nor hides its sides, so it does not stop the sheet being found.
func (r *region) sheetLike() bool {
	return r.quadOK && r.fill > 0.93 && r.support > 0.7
}

// located is the result of the colour segmentation of one photo at work resolution.
type located struct {
	scale   float64 // work px per photo px
	w, h    int
	lab     []byte // blurred Lab, 3 bytes per pixel
	mask    []byte // 255 = paper
	regions []region
	fg, bg  *colorHist
}

// toPhoto maps a work-pixel position to photo pixels (pixel centres on both sides).
func (l *located) toPhoto(p pt) pt {
	return pt{(p.X+0.5)/l.scale - 0.5, (p.Y+0.5)/l.scale - 0.5}
}

func (l *located) toWork(p pt) pt {
	return pt{(p.X+0.5)*l.scale - 0.5, (p.Y+0.5)*l.scale - 0.5}
}

// checkPhoto rejects Mats the package cannot work on and converts grey or BGRA to BGR. A
// continuous 8-bit BGR photo is returned as it is (nothing in this package writes into it);
// anything else is converted into a new Mat. The caller calls done when finished with the
// result, which closes that new Mat (never the photo).
func checkPhoto(photo gocv.Mat) (bgr gocv.Mat, done func(), err error) {
	if photo.Ptr() == nil || photo.Empty() {
		return gocv.Mat{}, nil, fmt.Errorf("%w: empty image", ErrBadInput)
	}
	if photo.Cols() < 32 || photo.Rows() < 32 {
		return gocv.Mat{}, nil, fmt.Errorf("%w: image is only %dx%d px", ErrBadInput, photo.Cols(), photo.Rows())
	}
	if photo.Type() == gocv.MatTypeCV8UC3 && photo.IsContinuous() {
		return photo, func() {}, nil
	}
	out := gocv.NewMat()
	switch photo.Channels() {
	case 3:
		photo.CopyTo(&out)
	case 1:
		gocv.CvtColor(photo, &out, gocv.ColorGrayToBGR)
	case 4:
		gocv.CvtColor(photo, &out, gocv.ColorBGRAToBGR)
	default:
		out.Close()
		return gocv.Mat{}, nil, fmt.Errorf("%w: image has %d channels", ErrBadInput, photo.Channels())
	}
	if out.Type() != gocv.MatTypeCV8UC3 {
		out.ConvertTo(&out, gocv.MatTypeCV8UC3)
	}
	return out, func() { out.Close() }, nil
}

// locate segments paper from table in photo (BGR), downscaled to long pixels on its long
// side. paper, when not nil, is the colour model of
// the sheet's paper from an earlier photo; otherwise it is bootstrapped from bright,
// unsaturated pixels. quads fits each blob's quadrilateral and its evidence (Fresh looks for
// the sheet among them); without, the regions carry their outline and area only (all
// Register needs).
func locate(photo gocv.Mat, paper *colorHist, long int, quads bool) (*located, error) {
	scale := float64(long) / float64(max(photo.Cols(), photo.Rows()))
	if scale > 1 {
		scale = 1
	}
	w := int(math.Round(float64(photo.Cols()) * scale))
	h := int(math.Round(float64(photo.Rows()) * scale))
	scale = float64(w) / float64(photo.Cols())
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(photo, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	if blank(small) {
		return nil, ErrBlankFrame
	}
	gocv.GaussianBlur(small, &small, image.Pt(5, 5), 0, 0, gocv.BorderReflect101)

	l := &located{scale: scale, w: w, h: h, lab: labBytes(small)}
	n := w * h
	band := max(3, min(w, h)/40)
	border := make([]bool, n) // within band of the image's edge
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			border[y*w+x] = x < band || y < band || x >= w-band || y >= h-band
		}
	}
	inBand := func(i int) bool { return border[i] }
	l.bg = histFrom(l.lab, 1, inBand)
	if paper != nil {
		l.fg = paper
	} else {
		pn := paperness(l.lab)
		thr := otsu(pn, -255, 255)
		// Paper is among the brightest, least saturated things in view: keep only the upper
		// part of the bright class, so a light table does not seed the paper model.
		var hist [512]int
		cnt := 0
		for i, v := range pn {
			if v > thr && !inBand(i) {
				hist[int(clampf(v+256, 0, 511))]++
				cnt++
			}
		}
		if cnt < n/200 {
			return nil, ErrNoSheet
		}
		thr2, acc := thr, 0
		for k, c := range hist { // 30th percentile of the bright class
			acc += c
			if acc >= cnt*3/10 {
				thr2 = float64(k) - 256
				break
			}
		}
		l.fg = histFrom(l.lab, paperRL, func(i int) bool { return pn[i] >= thr2 && !inBand(i) })
	}

	mask := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC1)
	defer mask.Close()
	for iter := 0; iter < 3; iter++ {
		prob := paperProb(l.lab, l.fg, l.bg, 0.5)
		for i := range prob {
			if prob[i] > 127 {
				prob[i] = 255
			} else {
				prob[i] = 0
			}
		}
		m := newMask(w, h, prob)
		m.CopyTo(&mask)
		m.Close()
		morph(&mask, 5, 7)
		if iter == 2 {
			break
		}
		// Re-estimate both models from the segmentation, away from its boundary.
		er, di := gocv.NewMat(), gocv.NewMat()
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(7, 7))
		gocv.Erode(mask, &er, k)
		gocv.Dilate(mask, &di, k)
		k.Close()
		eb, db := er.ToBytes(), di.ToBytes()
		er.Close()
		di.Close()
		cnt := 0
		for _, v := range eb {
			if v != 0 {
				cnt++
			}
		}
		if cnt < n/200 {
			break
		}
		if paper == nil {
			l.fg = histFrom(l.lab, paperRL, func(i int) bool { return eb[i] != 0 })
		}
		l.bg = histFrom(l.lab, 1, func(i int) bool { return db[i] == 0 || inBand(i) })
	}
	l.mask = mask.ToBytes()
	l.regions = findRegions(mask, l.mask, w, h, quads)
	return l, nil
}

// blank reports a nearly uniform frame (lens cap, black, white wall).
func blank(bgr gocv.Mat) bool {
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(bgr, &gray, gocv.ColorBGRToGray)
	mean, std := gocv.NewMat(), gocv.NewMat()
	defer mean.Close()
	defer std.Close()
	gocv.MeanStdDev(gray, &mean, &std)
	return std.GetDoubleAt(0, 0) < 4
}

// findRegions returns the outer contours of the mask's blobs larger than 1% of the image,
// largest first, each with its fitted quadrilateral when quads is set.
func findRegions(mask gocv.Mat, mb []byte, w, h int, quads bool) []region {
	cs := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer cs.Close()
	minArea := 0.01 * float64(w*h)
	var out []region
	for i := 0; i < cs.Size(); i++ {
		c := cs.At(i)
		a := gocv.ContourArea(c)
		if a < minArea {
			continue
		}
		ps := c.ToPoints()
		r := region{area: a, contour: make([]pt, len(ps))}
		onBorder := 0
		for j, p := range ps {
			r.contour[j] = ptI(p)
			if p.X <= 3 || p.Y <= 3 || p.X >= w-4 || p.Y >= h-4 {
				onBorder++
			}
		}
		if onBorder >= 3 {
			r.touches = float64(onBorder) / float64(len(ps))
		}
		if !quads {
			out = append(out, r)
			continue
		}
		r.fitQuad(mb, w, h)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].area > out[j].area })
	return out
}

// fitQuad fits r's quadrilateral to its contour and measures its evidence in the paper
// mask mb (w x h): fill, support, quadness and sideFit.
func (r *region) fitQuad(mb []byte, w, h int) {
	r.quad, r.quadOK = fitQuad(r.contour)
	if r.quadOK {
		r.fill, r.support = quadEvidence(mb, w, h, r.quad)
	}
	if !r.sheetLike() {
		// Something stuck to the sheet can pull the hull's corners: try the straight runs.
		if q2, ok := fitQuadLines(r.contour); ok {
			f2, s2 := quadEvidence(mb, w, h, q2)
			if !r.quadOK || f2+s2 > r.fill+r.support {
				r.quad, r.quadOK, r.fill, r.support = q2, true, f2, s2
			}
		}
	}
	if r.quadOK {
		r.quadness = r.area / polyArea(r.quad[:])
		r.sideFit = sideFit(r.contour, r.quad)
	}
}

// fitQuad fits a quadrilateral to a closed outline: the convex hull is reduced to its four
// most important vertices (dropping, one at a time, the vertex whose removal loses least
// area), then each side is re-fitted by total least squares to the outline points along its
// middle 80%, and the corners are the intersections of adjacent sides. Fitting sides rather
// than picking corner pixels keeps the corners right when the paper's corners are rounded,
// dog-eared, blurred or shadowed.
func fitQuad(contour []pt) ([4]pt, bool) {
	var q [4]pt
	hull := convexHull(contour)
	if len(hull) < 4 {
		return q, false
	}
	for len(hull) > 4 {
		best, bestLoss := -1, math.Inf(1)
		for i := range hull {
			a, b, c := hull[(i+len(hull)-1)%len(hull)], hull[i], hull[(i+1)%len(hull)]
			loss := math.Abs(b.sub(a).cross(c.sub(a)))
			if loss < bestLoss {
				best, bestLoss = i, loss
			}
		}
		hull = append(hull[:best], hull[best+1:]...)
	}
	copy(q[:], hull)
	// Refine: assign every outline point to its nearest side (ignoring the ends of each side,
	// where corners are rounded or torn), fit each side by trimmed total least squares, and
	// intersect; a few rounds recover from a hull vertex on a spike of the outline.
	for round := 0; round < 4; round++ {
		var groups [4][]pt
		for _, p := range contour {
			best, bestD := -1, math.Inf(1)
			for s := 0; s < 4; s++ {
				if d := segDist(p, q[s], q[(s+1)%4]); d < bestD {
					best, bestD = s, d
				}
			}
			a, b := q[best], q[(best+1)%4]
			L := dist(a, b)
			if L < 4 {
				return q, false
			}
			if t := p.sub(a).dot(b.sub(a)) / (L * L); t >= 0.08 && t <= 0.92 {
				groups[best] = append(groups[best], p)
			}
		}
		var lines [4]line
		for s := 0; s < 4; s++ {
			if len(groups[s]) < 5 {
				lines[s], _ = fitLineTLS([]pt{q[s], q[(s+1)%4]})
				continue
			}
			lines[s] = trimmedLine(groups[s])
		}
		var out [4]pt
		ok := true
		for s := 0; s < 4 && ok; s++ {
			p, good := intersect(lines[(s+3)%4], lines[s])
			ok = good && dist(p, q[s]) < 0.2*dist(q[s], q[(s+2)%4])
			out[s] = p
		}
		if !ok || !convexQuad(out) {
			break
		}
		q = out
	}
	return q, true
}

// trimmedLine fits a line by total least squares, then twice more on the points within
// max(1.5 px, 2.5 x the median residual) of the previous fit.
func trimmedLine(p []pt) line {
	ln, _ := fitLineTLS(p)
	for round := 0; round < 3; round++ {
		res := make([]float64, len(p))
		for i, q := range p {
			res[i] = math.Abs(ln.dist(q))
		}
		med := percentile(res, 0.5)
		tol := math.Max(1.5, 2.5*med)
		var keep []pt
		for i, q := range p {
			if res[i] <= tol {
				keep = append(keep, q)
			}
		}
		if len(keep) < 5 || len(keep) == len(p) {
			break
		}
		ln, _ = fitLineTLS(keep)
		p = keep
	}
	return ln
}

func convexQuad(q [4]pt) bool {
	sign := 0.0
	for i := 0; i < 4; i++ {
		a, b, c := q[i], q[(i+1)%4], q[(i+2)%4]
		cr := b.sub(a).cross(c.sub(b))
		if cr == 0 || (sign != 0 && (cr > 0) != (sign > 0)) {
			return false
		}
		sign = cr
	}
	return true
}

// sideFit is the fraction of outline points within tolerance of the quad's sides.
func sideFit(contour []pt, q [4]pt) float64 {
	diag := math.Max(dist(q[0], q[2]), dist(q[1], q[3]))
	tol := math.Max(2, 0.012*diag)
	n := 0
	for _, p := range contour {
		for s := 0; s < 4; s++ {
			if segDist(p, q[s], q[(s+1)%4]) <= tol {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(contour))
}

// quadEvidence measures how well the mask supports a quadrilateral: the fraction of the
// quad's area that is paper (sampled on a grid), and the fraction of its outline where the
// mask is paper just inside and not paper just outside.
func quadEvidence(mb []byte, w, h int, q [4]pt) (fill, support float64) {
	at := func(p pt) (bool, bool) { // paper?, inside the image?
		x, y := int(math.Round(p.X)), int(math.Round(p.Y))
		if x < 0 || y < 0 || x >= w || y >= h {
			return false, false
		}
		return mb[y*w+x] != 0, true
	}
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	for _, c := range q {
		x0, y0, x1, y1 = math.Min(x0, c.X), math.Min(y0, c.Y), math.Max(x1, c.X), math.Max(y1, c.Y)
	}
	in, tot := 0, 0
	for y := math.Ceil(y0); y <= y1; y += 2 {
		for x := math.Ceil(x0); x <= x1; x += 2 {
			if p := (pt{x, y}); pointInPoly(p, q[:]) {
				tot++
				if v, _ := at(p); v {
					in++
				}
			}
		}
	}
	if tot > 0 {
		fill = float64(in) / float64(tot)
	}
	c := q[0].add(q[1]).add(q[2]).add(q[3]).mul(0.25)
	sup, n := 0, 0
	for s := 0; s < 4; s++ {
		a, b := q[s], q[(s+1)%4]
		L := dist(a, b)
		if L < 1 {
			continue
		}
		dir := b.sub(a).mul(1 / L)
		nrm := pt{-dir.Y, dir.X}
		if nrm.dot(lerp(a, b, 0.5).sub(c)) < 0 {
			nrm = nrm.mul(-1)
		}
		for t := 0.0; t <= L; t++ {
			p := a.add(dir.mul(t))
			n++
			inside, _ := at(p.sub(nrm.mul(2.5)))
			outside, ok := at(p.add(nrm.mul(2.5)))
			if inside && (!outside || !ok) {
				sup++
			}
		}
	}
	if n > 0 {
		support = float64(sup) / float64(n)
	}
	return fill, support
}

// fitQuadLines finds the sheet's four sides as the four longest straight runs of the outline
// (deterministic RANSAC: candidate lines are chords between outline points a fixed step
// apart, scored by their inliers within 1.5 px), each refitted by trimmed least squares, put
// in order around the centre and intersected. Unlike the hull, it ignores blobs stuck to the
// sheet, since a blob's outline has no long straight run.
func fitQuadLines(contour []pt) ([4]pt, bool) {
	var q [4]pt
	n := len(contour)
	if n < 40 {
		return q, false
	}
	used := make([]bool, n)
	type side struct {
		ln  line
		mid pt
	}
	var sides []side
	k := max(4, n/25)
	step := max(1, n/300)
	for len(sides) < 4 {
		bestCnt, bestI := 0, -1
		var bestLn line
		for i := 0; i < n; i += step {
			a, b := contour[i], contour[(i+k)%n]
			if used[i] || used[(i+k)%n] || dist(a, b) < float64(k)/2 {
				continue
			}
			ln, _ := fitLineTLS([]pt{a, b})
			cnt := 0
			for j, p := range contour {
				if !used[j] && math.Abs(ln.dist(p)) < 1.5 {
					cnt++
				}
			}
			if cnt > bestCnt {
				bestCnt, bestI, bestLn = cnt, i, ln
			}
		}
		if bestI < 0 || bestCnt < n/20 {
			return q, false
		}
		var in []pt
		for j, p := range contour {
			if !used[j] && math.Abs(bestLn.dist(p)) < 2 {
				in = append(in, p)
			}
		}
		ln := trimmedLine(in)
		var mid pt
		cnt := 0
		for j, p := range contour {
			if math.Abs(ln.dist(p)) < 3 {
				used[j] = true
				mid = mid.add(p)
				cnt++
			}
		}
		sides = append(sides, side{ln, mid.mul(1 / float64(max(cnt, 1)))})
	}
	var c pt
	for _, p := range contour {
		c = c.add(p)
	}
	c = c.mul(1 / float64(n))
	sort.Slice(sides, func(i, j int) bool {
		ai := math.Atan2(sides[i].mid.Y-c.Y, sides[i].mid.X-c.X)
		aj := math.Atan2(sides[j].mid.Y-c.Y, sides[j].mid.X-c.X)
		return ai < aj
	})
	for s := 0; s < 4; s++ {
		p, ok := intersect(sides[(s+3)%4].ln, sides[s].ln)
		if !ok {
			return q, false
		}
		q[s] = p
	}
	if !convexQuad(q) {
		return q, false
	}
	return q, true
}
