package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Remnants posed by their untorn corners.
//
// registerRemnant starts from the affine map of a remnant's feature matches. Over a few
// letters that map is right at them and wrong far from them (synthetic remnants of a sheet's
// corner holding 3 letters: 6-17 mm off 40 mm away), so the joint ink and untorn edge fit
// from it looks for the untorn edges in the wrong place and is refused. Many remnants keep
// one of the sheet's corners: two straight untorn sides meeting at about a right angle (in
// perspective). That corner is one of the fresh sheet's four, which fixes the pose but for
// the scale along each side; each feature match then gives those two scales, and the
// matches that agree with them count for the pose. So registerCorner, tried only once every
// other alignment was refused, enumerates the few candidate poses (every outline corner as
// every sheet corner, each seeded by one match), keeps the best supported, and checks each
// (cornerFit): the ink patches found around it, an affine map fitted to them and to the
// corner and its sides together, and from there the joint ink and untorn edge fit with
// every check of a remnant (remnantJointFitFrom: each patch within outlineInkMM, each side
// left out agreeing with the fit of the rest, the alignment's standard error on the
// remnant's paper, every check of finishRegister on the new mask, the writing the paper
// must show). Two poses that both pass and disagree on the remnant's paper by more than a
// millimetre are refused.

const (
	// cornerMinRunPx is the shortest straight untorn run of the outline (work px, about
	// 1.1-1.6 mm each on a sheet filling a photo) that counts as a side at a corner, and
	// cornerRunTolPx how far its outline points may lie from its line.
	cornerMinRunPx = 14
	cornerRunTolPx = 1.3
	// cornerMinDeg and cornerMaxDeg bound the angle between the two sides at a corner (a
	// right angle seen in the perspective checkShape allows).
	cornerMinDeg = 55
	cornerMaxDeg = 125
	// cornerMaxAniso bounds the ratio of the scales along the two sides of a corner pose.
	cornerMaxAniso = 1.6
	// cornerSeedMM: a feature match seeds a pose only this far along each side from the
	// corner (nearer, its scale along that side is ill-determined); cornerMatchMM is how far
	// (sheet mm) from the pose a match may lie to count for it.
	cornerSeedMM  = 8.0
	cornerMatchMM = 2.5
	// cornerMinSupport is the least number of feature matches a corner pose rests on (its
	// seed included), and maxCornerPoses how many distinct poses are checked.
	cornerMinSupport = 3
	maxCornerPoses   = 4
)

// outlineCorner is a corner of the paper's outline where two straight runs meet: at (work
// px, or photo px once photoCorners has mapped it), and unit directions along each side away from the corner: prev runs back along the
// outline (against its order), next along it. The outline is ordered with positive signed
// area, as the sheet's corners TL, TR, BR, BL are.
type outlineCorner struct {
	at, prev, next   pt
	lenPrev, lenNext float64 // the straight runs' lengths (px)
}

// outlineCorners finds the corners of a closed outline (work px, w x h image) where two
// straight runs of at least cornerMinRunPx meet at an angle within cornerMinDeg-cornerMaxDeg,
// turning as a convex corner turns; runs along the image's border (the photo's edge, not the
// sheet's) do not count.
func outlineCorners(contour []pt, w, h int) []outlineCorner {
	n := len(contour)
	if n < 4*cornerMinRunPx {
		return nil
	}
	c := contour
	if signedArea(c) < 0 {
		c = make([]pt, n)
		for i := range contour {
			c[i] = contour[n-1-i]
		}
	}
	ips := make([]image.Point, n)
	idx := make(map[image.Point]int, n)
	for i, p := range c {
		ips[i] = p.img()
		if _, ok := idx[ips[i]]; !ok {
			idx[ips[i]] = i
		}
	}
	pv := gocv.NewPointVectorFromPoints(ips)
	defer pv.Close()
	ap := gocv.ApproxPolyDP(pv, cornerRunTolPx, true)
	defer ap.Close()
	var vs []int
	for _, p := range ap.ToPoints() {
		if i, ok := idx[p]; ok {
			vs = append(vs, i)
		}
	}
	sort.Ints(vs)
	m := len(vs)
	if m < 3 {
		return nil
	}
	onBorder := func(p pt) bool {
		return p.X <= 3 || p.Y <= 3 || p.X >= float64(w-4) || p.Y >= float64(h-4)
	}
	// run is the outline from vertex k to vertex k+1, if straight and long enough: its line,
	// fitted to the points away from its ends (the corners are rounded by the mask).
	type run struct {
		ok  bool
		ln  line
		dir pt // along the outline's order
		len float64
	}
	runs := make([]run, m)
	for k := 0; k < m; k++ {
		a, b := vs[k], vs[(k+1)%m]
		if b <= a {
			b += n
		}
		if dist(c[a%n], c[b%n]) < cornerMinRunPx {
			continue
		}
		var ps []pt
		border, bad := 0, 0
		for i := a; i <= b; i++ {
			p := c[i%n]
			if onBorder(p) {
				border++
			}
			if segDist(p, c[a%n], c[b%n]) > cornerRunTolPx+0.5 {
				bad++
			}
			if i-a >= 2 && b-i >= 2 {
				ps = append(ps, p)
			}
		}
		if border > 0 || bad > 0 || len(ps) < cornerMinRunPx/2 {
			continue
		}
		ln := trimmedLine(ps)
		d := c[b%n].sub(c[a%n])
		d = d.mul(1 / d.norm())
		runs[k] = run{ok: true, ln: ln, dir: d, len: dist(c[a%n], c[b%n])}
	}
	var out []outlineCorner
	for k := 0; k < m; k++ {
		r1 := runs[k]
		if !r1.ok {
			continue
		}
		// The next run, or the one after a short vertex-to-vertex step (a rounded corner).
		for skip := 1; skip <= 2; skip++ {
			k2 := (k + skip) % m
			r2 := runs[k2]
			if skip == 2 {
				a, b := vs[(k+1)%m], vs[(k+2)%m]
				if runs[(k+1)%m].ok || dist(c[a], c[b]) > 4 {
					break
				}
			}
			if !r2.ok {
				continue
			}
			turn := r1.dir.cross(r2.dir)
			ang := math.Acos(clampf(-r1.dir.dot(r2.dir), -1, 1)) * 180 / math.Pi
			if turn <= 0 || ang < cornerMinDeg || ang > cornerMaxDeg {
				break
			}
			p, ok := intersect(r1.ln, r2.ln)
			if !ok || onBorder(p) {
				break
			}
			out = append(out, outlineCorner{at: p, prev: r1.dir.mul(-1), next: r2.dir, lenPrev: r1.len, lenNext: r2.len})
			break
		}
	}
	return out
}

// refineCorner moves the corner c (photo px, found at work resolution: wpx photo px per
// work px) onto the photo's brightness steps: each side's line is fitted again to the
// strongest step across it (gb, the photo in grey, w x h), within 2.5 work px, at every 3 px
// along its straight run (its ends left out), and the corner put where the two lines meet.
// c is left as it was when a side has too few steps or the lines do not meet.
func refineCorner(c *outlineCorner, gb []byte, w, h int, wpx float64) {
	at := func(x, y float64) (float64, bool) {
		x0, y0 := math.Floor(x), math.Floor(y)
		if x0 < 0 || y0 < 0 || x0+1 >= float64(w) || y0+1 >= float64(h) {
			return 0, false
		}
		fx, fy := x-x0, y-y0
		i := int(y0)*w + int(x0)
		v := (1-fx)*(1-fy)*float64(gb[i]) + fx*(1-fy)*float64(gb[i+1]) + (1-fx)*fy*float64(gb[i+w]) + fx*fy*float64(gb[i+w+1])
		return v, true
	}
	reach := int(math.Ceil(2.5 * wpx))
	side := func(d pt, length float64) (line, bool) {
		nrm := pt{-d.Y, d.X}
		var ps []pt
		prof := make([]float64, 2*reach+1)
		for t := 3 * wpx; t < length-3*wpx; t += 3 {
			o := c.at.add(d.mul(t))
			ok := true
			for j := -reach; j <= reach && ok; j++ {
				sum := 0.0
				for a := -2; a <= 2; a++ {
					v, in := at(o.X+nrm.X*float64(j)+d.X*float64(a), o.Y+nrm.Y*float64(j)+d.Y*float64(a))
					ok = ok && in
					sum += v
				}
				prof[j+reach] = sum / 5
			}
			if !ok {
				continue
			}
			best, bk := 0.0, 0
			for k := 2; k < len(prof)-1; k++ {
				if g := math.Abs(prof[k] + prof[k-1] - prof[k-2] - prof[k+1]); g > best {
					best, bk = g, k
				}
			}
			if best < 8 {
				continue
			}
			off := float64(bk-reach) - 0.5
			ps = append(ps, o.add(nrm.mul(off)))
		}
		if len(ps) < 6 {
			return line{}, false
		}
		return trimmedLine(ps), true
	}
	lp, ok1 := side(c.prev, c.lenPrev)
	ln, ok2 := side(c.next, c.lenNext)
	if !ok1 || !ok2 {
		return
	}
	p, ok := intersect(lp, ln)
	if !ok || dist(p, c.at) > 3*wpx {
		return
	}
	dir := func(l line, old pt) pt {
		d := pt{l.n.Y, -l.n.X}
		if d.dot(old) < 0 {
			d = d.mul(-1)
		}
		return d
	}
	c.at, c.prev, c.next = p, dir(lp, c.prev), dir(ln, c.next)
}

// sheetCorner is a corner of the sheet in its frame (mm) with the unit directions along its
// sides away from it: prev back along the sheet's outline TL, TR, BR, BL, next along it.
type sheetCorner struct{ at, prev, next pt }

func sheetCorners(W, H float64) [4]sheetCorner {
	return [4]sheetCorner{
		{pt{0, 0}, pt{0, 1}, pt{1, 0}},
		{pt{W, 0}, pt{-1, 0}, pt{0, 1}},
		{pt{W, H}, pt{0, -1}, pt{-1, 0}},
		{pt{0, H}, pt{1, 0}, pt{0, -1}},
	}
}

// cornerPose is an affine pose (sheet mm -> photo px) that puts a sheet corner on an outline
// corner, and the feature matches that agree with it.
type cornerPose struct {
	a       affine2
	support []int
	corner  pt // the sheet corner (mm)
	oc      outlineCorner
	sc      sheetCorner
}

// cornerAffine is the affine map that puts sheet corner sc on the photo corner at (px) with
// sc's sides along dirs prev and next (photo unit vectors), scaled sp and sn px/mm along them.
func cornerAffine(sc sheetCorner, at, prev, next pt, sp, sn float64) affine2 {
	// x' = at + sn ((x - c)·next_s) next + sp ((x - c)·prev_s) prev
	var a affine2
	a[0] = sn*sc.next.X*next.X + sp*sc.prev.X*prev.X
	a[1] = sn*sc.next.Y*next.X + sp*sc.prev.Y*prev.X
	a[3] = sn*sc.next.X*next.Y + sp*sc.prev.X*prev.Y
	a[4] = sn*sc.next.Y*next.Y + sp*sc.prev.Y*prev.Y
	a[2] = at.X - (a[0]*sc.at.X + a[1]*sc.at.Y)
	a[5] = at.Y - (a[3]*sc.at.X + a[4]*sc.at.Y)
	return a
}

// cornerPoses enumerates the poses that put one of the sheet's corners on one of the outline
// corners cs (photo px), seeded by each feature match src (mm) -> dst (photo px) far enough
// from the corner along both sides, with the scale within sMin-sMax px/mm; a pose must rest
// on cornerMinSupport matches.
// The best supported first, at most maxCornerPoses, each at least 5 mm from the others at the
// sheet's corners.
func cornerPoses(cs []outlineCorner, src, dst []pt, W, H, sMin, sMax float64) []cornerPose {
	var poses []cornerPose
	for _, oc := range cs {
		// the photo basis (next, prev) and its inverse
		det := oc.next.X*oc.prev.Y - oc.next.Y*oc.prev.X
		if math.Abs(det) < 0.3 {
			continue
		}
		for _, sc := range sheetCorners(W, H) {
			for i := range src {
				d := dst[i].sub(oc.at)
				// d = alpha next + beta prev
				alpha := (d.X*oc.prev.Y - d.Y*oc.prev.X) / det
				beta := (oc.next.X*d.Y - oc.next.Y*d.X) / det
				u := src[i].sub(sc.at)
				un, up := u.dot(sc.next), u.dot(sc.prev)
				if un < cornerSeedMM || up < cornerSeedMM {
					continue
				}
				sn, sp := alpha/un, beta/up
				if sn < sMin || sp < sMin || sn > sMax || sp > sMax || sn/sp > cornerMaxAniso || sp/sn > cornerMaxAniso {
					continue
				}
				a := cornerAffine(sc, oc.at, oc.prev, oc.next, sp, sn)
				thr := cornerMatchMM * math.Sqrt(sn*sp)
				var sup []int
				for j := range src {
					if dist(a.apply(src[j]), dst[j]) <= thr {
						sup = append(sup, j)
					}
				}
				if len(sup) < cornerMinSupport {
					continue
				}
				// Re-fit the two scales to the supporting matches (least squares along each
				// side), and keep the pose only if the remnant lies within the sheet.
				var nn, nd, pn, pd float64
				for _, j := range sup {
					d := dst[j].sub(oc.at)
					u := src[j].sub(sc.at)
					al := (d.X*oc.prev.Y - d.Y*oc.prev.X) / det
					be := (oc.next.X*d.Y - oc.next.Y*d.X) / det
					x, y := u.dot(sc.next), u.dot(sc.prev)
					nn, nd = nn+al*x, nd+x*x
					pn, pd = pn+be*y, pd+y*y
				}
				if nd > 0 && pd > 0 {
					sn2, sp2 := nn/nd, pn/pd
					if sn2 > 0 && sp2 > 0 && sn2/sp2 <= cornerMaxAniso && sp2/sn2 <= cornerMaxAniso {
						a = cornerAffine(sc, oc.at, oc.prev, oc.next, sp2, sn2)
					}
				}
				poses = append(poses, cornerPose{a: a, support: sup, corner: sc.at, oc: oc, sc: sc})
			}
		}
	}
	sort.SliceStable(poses, func(i, j int) bool { return len(poses[i].support) > len(poses[j].support) })
	var out []cornerPose
	for _, p := range poses {
		distinct := true
		for _, q := range out {
			if affineApart(p.a, q.a, W, H) < 5 {
				distinct = false
				break
			}
		}
		if distinct {
			out = append(out, p)
			if len(out) == maxCornerPoses {
				break
			}
		}
	}
	return out
}

// affineApart is how far apart (mm, in a's frame) two poses put the sheet's corners.
func affineApart(a, b affine2, W, H float64) float64 {
	ai := a.homog().inv()
	d := 0.0
	for _, c := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		d = math.Max(d, dist(ai.apply(b.apply(c)), c))
	}
	return d
}

// photoCorners is the outline corners of the largest paper region loc found (outlineCorners),
// in photo px, each refined on the photo in grey pg (refineCorner).
func photoCorners(loc *located, pg gocv.Mat) []outlineCorner {
	if len(loc.regions) == 0 {
		return nil
	}
	cs := outlineCorners(loc.regions[0].contour, loc.w, loc.h)
	gb := u8view(pg)
	if len(gb) != pg.Cols()*pg.Rows() {
		gb = pg.ToBytes()
	}
	for i := range cs {
		c := &cs[i]
		c.at, c.lenPrev, c.lenNext = loc.toPhoto(c.at), c.lenPrev/loc.scale, c.lenNext/loc.scale
		refineCorner(c, gb, pg.Cols(), pg.Rows(), 1/loc.scale)
	}
	return cs
}

// registerCorner aligns a remnant by its untorn corners (see above) from its feature
// matches src (fresh mm) -> dst (photo px); pg is the photo in grey.
func registerCorner(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, src, dst []pt) (*SheetImage, error) {
	if len(loc.regions) == 0 {
		return nil, &RegistrationError{Reason: "remnant: no paper to find corners on"}
	}
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	cs := photoCorners(loc, pg)
	// The scale: the sheet between a sixth of the photo's size and four times it (the
	// paper's region is no bound: on a pale desk it can take in the desk).
	long := float64(max(bgr.Cols(), bgr.Rows())) / math.Max(W, H)
	sMin, sMax := long/6, 4*long
	poses := cornerPoses(cs, src, dst, W, H, sMin, sMax)
	if cornerSrcHook != nil {
		cornerSrcHook(cs, src, dst)
	}
	if cornerHook != nil {
		cornerHook(cs, poses)
	}
	if len(poses) == 0 {
		return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: no untorn corner pose agrees with %d feature matches (%d corners)", cornerMinSupport, len(cs))}
	}
	var got *SheetImage
	var gotH homog
	var first error
	for _, p := range poses {
		is := []pt{p.corner}
		for _, j := range p.support {
			is = append(is, src[j])
		}
		out, err := cornerFit(fresh, bgr, pg, loc, p, is, len(src))
		if err != nil {
			if out != nil {
				out.Close()
			}
			if first == nil {
				first = err
			}
			continue
		}
		h := homog(out.H)
		if got == nil {
			got, gotH = out, h
			got.Notes = append(got.Notes, fmt.Sprintf("remnant posed by its untorn corner at (%.0f, %.0f) mm and %d feature matches", p.corner.X, p.corner.Y, len(p.support)))
			continue
		}
		// Compared on the remnant's paper (each is pinned down only there).
		apart, hi := 0.0, h.inv()
		for _, q := range maskGrid(got.Mask, got.PxPerMM, 10) {
			apart = math.Max(apart, dist(hi.apply(gotH.apply(q)), q))
		}
		out.Close()
		if apart > 1 {
			got.Close()
			return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: two corner poses %.1f mm apart both pass", apart)}
		}
	}
	if got == nil {
		return nil, first
	}
	return got, nil
}

// cornerFit checks the corner pose p (registerCorner): the ink patches found around it
// (refineH's dense patches, or fewPatches' when under 8), an affine map fitted to them and to
// the untorn corner (the corner on its photo corner, the sheet's sides on the corner's sides
// in the photo), and from there the joint ink and untorn edge fit (remnantJointFitFrom) with
// every check of a remnant.
func cornerFit(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, p cornerPose, is []pt, nsrc int) (*SheetImage, error) {
	h := p.a.homog()
	paperOK := func(pt) bool { return true }
	_, _, npatch, pairs := refineH(fresh, pg, h, paperOK, true, true)
	if npatch < 8 {
		var ok bool
		if _, pairs, ok = fewPatches(fresh, pg, h); !ok {
			return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: only %d ink patches match at the corner pose", len(pairs))}
		}
		npatch = len(pairs)
	}
	a, ok := cornerAffineFit(p, pairs)
	if !ok {
		return nil, &RegistrationError{Reason: "remnant: the corner pose and its ink patches fit no affine map"}
	}
	if remnantHook != nil {
		remnantHook(fmt.Sprintf("corner fit, %d patches", npatch), a.homog(), is, pairs)
	}
	return remnantJointFitFrom(fresh, bgr, pg, loc, a.homog(), npatch, pairs, is, nsrc, true)
}

// cornerAffineFit is the weighted least-squares affine map (sheet mm -> photo px) that puts
// the ink patches (pairs) where the photo has them, p's sheet corner on its photo corner, and
// the sheet's two sides at that corner on the corner's sides in the photo (points every 5
// mm along each, as far as the photo's straight run, each held across the side only). The
// corner weighs as cornerWeight patches.
func cornerAffineFit(p cornerPose, pairs []pair) (affine2, bool) {
	const cornerWeight = 4
	var A [6][6]float64
	var b [6]float64
	add := func(r [6]float64, v, w float64) {
		for i := 0; i < 6; i++ {
			for j := 0; j < 6; j++ {
				A[i][j] += w * r[i] * r[j]
			}
			b[i] += w * r[i] * v
		}
	}
	point := func(u, v pt, w float64) {
		add([6]float64{u.X, u.Y, 1, 0, 0, 0}, v.X, w)
		add([6]float64{0, 0, 0, u.X, u.Y, 1}, v.Y, w)
	}
	for _, q := range pairs {
		point(q.u, q.v, 1)
	}
	oc, sc := p.oc, p.sc
	point(sc.at, oc.at, cornerWeight)
	s := math.Sqrt(math.Abs(p.a[0]*p.a[4] - p.a[1]*p.a[3])) // px per mm
	for _, side := range []struct {
		sd, pd pt
		l      float64
	}{{sc.next, oc.next, oc.lenNext}, {sc.prev, oc.prev, oc.lenPrev}} {
		n := pt{-side.pd.Y, side.pd.X}
		for t := 5.0; t*s < side.l; t += 5 {
			q := sc.at.add(side.sd.mul(t))
			add([6]float64{n.X * q.X, n.X * q.Y, n.X, n.Y * q.X, n.Y * q.Y, n.Y}, n.dot(oc.at), 1)
		}
	}
	x, ok := solve6(A, b)
	if !ok {
		return affine2{}, false
	}
	a := affine2(x)
	return a, a.plausible()
}

// solve6 solves A x = b by Gaussian elimination with partial pivoting.
func solve6(A [6][6]float64, b [6]float64) ([6]float64, bool) {
	var x [6]float64
	for c := 0; c < 6; c++ {
		piv := c
		for r := c + 1; r < 6; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[piv][c]) {
				piv = r
			}
		}
		if math.Abs(A[piv][c]) < 1e-12 {
			return x, false
		}
		A[c], A[piv] = A[piv], A[c]
		b[c], b[piv] = b[piv], b[c]
		for r := c + 1; r < 6; r++ {
			f := A[r][c] / A[c][c]
			for k := c; k < 6; k++ {
				A[r][k] -= f * A[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	for r := 5; r >= 0; r-- {
		v := b[r]
		for k := r + 1; k < 6; k++ {
			v -= A[r][k] * x[k]
		}
		x[r] = v / A[r][r]
	}
	return x, true
}

// cornerHook (tests only) receives registerCorner's outline corners (photo px) and poses.
var cornerHook func(cs []outlineCorner, poses []cornerPose)

// cornerSrcHook (tests only) receives registerCorner's outline corners (photo px) and the
// feature matches (fresh mm -> photo px) it poses them with.
var cornerSrcHook func(cs []outlineCorner, src, dst []pt)
