package vision

import (
	"errors"
	"fmt"
	"math"

	"gocv.io/x/gocv"
)

// Remnants.
//
// A remnant of the sheet that keeps one word, or a few letters, gives the feature matching
// too little to fix a homography: a handful of consistent matches (fewer than minInliers),
// or many in one word, whose homography is fixed only near them (its inliers cover too
// little of the sheet, or the largest consensus folds the sheet far from them). What such a
// remnant does keep is its untorn outline: the stretches of the sheet's sides, and the
// corners between them, that no tear reached.
//
// registerRemnant, tried only once every other alignment was refused, starts from an
// affine map fitted to the consistent matches (three points fix one; over a remnant the
// perspective is small, and an affine map cannot fold the sheet), gathers the dense ink
// patches around it, and then fits the homography to the ink patches and the untorn edges
// together (outlineFit): the edges fix the homography where there is no ink. The alignment
// is accepted only through outlineFit's checks (every patch within outlineInkMM, each side
// left out in turn agreeing with the fit of the rest, every check of finishRegister on the
// new mask), never on the ink alone.

const (
	// minRemnantInliers is the least number of feature matches consistent with one affine
	// map that registerRemnant starts from.
	minRemnantInliers = 6
	// remnantTriples bounds the triples of matches the affine RANSAC tries.
	remnantTriples = 20000
	// remnantMaxAniso bounds the affine map's anisotropy (ratio of its singular values):
	// a sheet seen within the perspective checkHomography allows.
	remnantMaxAniso = 2.5
	// minRemnantPatches is the least number of ink patches a remnant is aligned on (with
	// fewer than 8, refineH fits no homography: fewPatches), and remnantPatchMM how far
	// from one affine map they may lie.
	minRemnantPatches = 5
	remnantPatchMM    = 0.5
	// remnantFitRounds bounds the rounds of the joint ink and outline fit (each finds the
	// untorn edges again under the last fit: the first estimate can be millimetres off
	// far from the ink, beyond edgeReachMM).
	remnantFitRounds = 3
)

// affine2 is a 2-D affine map: x' = a x + b y + c, y' = d x + e y + f.
type affine2 [6]float64

func (a affine2) apply(p pt) pt {
	return pt{a[0]*p.X + a[1]*p.Y + a[2], a[3]*p.X + a[4]*p.Y + a[5]}
}

func (a affine2) homog() homog { return homog{a[0], a[1], a[2], a[3], a[4], a[5], 0, 0, 1} }

// plausible reports whether a keeps the sheet's orientation (no mirror) and its shape within
// remnantMaxAniso.
func (a affine2) plausible() bool {
	det := a[0]*a[4] - a[1]*a[3]
	if det <= 0 {
		return false
	}
	// singular values of [[a b] [d e]]
	s := a[0]*a[0] + a[1]*a[1] + a[3]*a[3] + a[4]*a[4]
	r := math.Sqrt(math.Max(s*s-4*det*det, 0))
	s1, s2 := math.Sqrt((s+r)/2), math.Sqrt(math.Max((s-r)/2, 0))
	return s2 > 0 && s1/s2 <= remnantMaxAniso
}

// fitAffine is the least-squares affine map src -> dst (at least 3 points, not collinear).
func fitAffine(src, dst []pt) (affine2, bool) {
	// Normal equations for each output coordinate: [x y 1] . (a b c) = x'.
	var m [3][3]float64
	var bx, by [3]float64
	for i, p := range src {
		v := [3]float64{p.X, p.Y, 1}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				m[r][c] += v[r] * v[c]
			}
			bx[r] += v[r] * dst[i].X
			by[r] += v[r] * dst[i].Y
		}
	}
	x, ok1 := solve3(m, bx)
	y, ok2 := solve3(m, by)
	if !ok1 || !ok2 {
		return affine2{}, false
	}
	return affine2{x[0], x[1], x[2], y[0], y[1], y[2]}, true
}

// solve3 solves m x = b by Cramer's rule.
func solve3(m [3][3]float64, b [3]float64) ([3]float64, bool) {
	det3 := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det3(m)
	if math.Abs(d) < 1e-12 {
		return [3]float64{}, false
	}
	var x [3]float64
	for c := 0; c < 3; c++ {
		mc := m
		for r := 0; r < 3; r++ {
			mc[r][c] = b[r]
		}
		x[c] = det3(mc) / d
	}
	return x, true
}

// ransacAffine finds the plausible affine map src (mm) -> dst (px) that the most matches
// agree with within thr px: every triple of matches when there are few, else remnantTriples
// triples drawn by a fixed generator (deterministic). Triples spanning under minTriMM2 are
// skipped. It returns the map re-fitted to its inliers and their indices.
func ransacAffine(src, dst []pt, thr float64) (affine2, []int, bool) {
	n := len(src)
	if n < 3 {
		return affine2{}, nil, false
	}
	const minTriMM2 = 4.0
	count := func(a affine2) int {
		k := 0
		for i := range src {
			if dist(a.apply(src[i]), dst[i]) <= thr {
				k++
			}
		}
		return k
	}
	var best affine2
	bestN := 0
	try := func(i, j, k int) {
		if polyArea([]pt{src[i], src[j], src[k]}) < minTriMM2 {
			return
		}
		a, ok := fitAffine([]pt{src[i], src[j], src[k]}, []pt{dst[i], dst[j], dst[k]})
		if !ok || !a.plausible() {
			return
		}
		if c := count(a); c > bestN {
			best, bestN = a, c
		}
	}
	if n*(n-1)*(n-2)/6 <= remnantTriples {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				for k := j + 1; k < n; k++ {
					try(i, j, k)
				}
			}
		}
	} else {
		state := uint64(0x9e3779b97f4a7c15)
		next := func() int {
			state ^= state << 13
			state ^= state >> 7
			state ^= state << 17
			return int(state % uint64(n))
		}
		for t := 0; t < remnantTriples; t++ {
			i, j, k := next(), next(), next()
			if i != j && j != k && i != k {
				try(i, j, k)
			}
		}
	}
	if bestN < 3 {
		return affine2{}, nil, false
	}
	inliers := func(a affine2) []int {
		var inl []int
		for i := range src {
			if dist(a.apply(src[i]), dst[i]) <= thr {
				inl = append(inl, i)
			}
		}
		return inl
	}
	inl := inliers(best)
	for round := 0; round < 2; round++ {
		var s, d []pt
		for _, i := range inl {
			s, d = append(s, src[i]), append(d, dst[i])
		}
		a, ok := fitAffine(s, d)
		if !ok || !a.plausible() {
			break
		}
		in2 := inliers(a)
		if len(in2) < len(inl) {
			break
		}
		best, inl = a, in2
	}
	return best, inl, true
}

// registerRemnant aligns a remnant (see above) from its feature matches src (fresh mm) ->
// dst (photo px; fs feature px per photo px); pg is the photo in grey.
func registerRemnant(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, src, dst []pt, fs float64) (*SheetImage, error) {
	a, inl, ok := ransacAffine(src, dst, 3/fs)
	if remnantHook != nil && (!ok || len(inl) < minRemnantInliers) {
		remnantHook(fmt.Sprintf("affine FAILED %d/%d", len(inl), len(src)), a.homog(), nil, nil)
	}
	if !ok || len(inl) < minRemnantInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: only %d feature matches consistent with one affine map", len(inl))}
	}
	var is []pt
	for _, i := range inl {
		is = append(is, src[i])
	}
	h := a.homog()
	if remnantHook != nil {
		remnantHook(fmt.Sprintf("affine %d/%d", len(inl), len(src)), h, is, nil)
	}
	return remnantFrom(fresh, bgr, pg, loc, h, is, len(src))
}

// remnantFrom is registerRemnant from a first estimate h (fresh mm -> photo px) resting on
// the feature matches is (fresh mm), nsrc feature matches in all: the dense ink patches
// around h, the joint ink and outline fit (remnantJointFit), and, when that is refused and
// the ink is enough, the checks of any photo (checkAligned).
func remnantFrom(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, h homog, is []pt, nsrc int) (*SheetImage, error) {
	paperOK := func(pt) bool { return true }
	// Dense ink patches around the matches, then once more from the better estimate: patches
	// farther from the matched features come within the search window.
	h, resid, npatch, pairs := refineH(fresh, pg, h, paperOK, true, true)
	if npatch >= 8 {
		if h2, r2, n2, p2 := refineH(fresh, pg, h, paperOK, true, true); n2 > npatch {
			h, resid, npatch, pairs = h2, r2, n2, p2
		}
	}
	if remnantHook != nil {
		remnantHook(fmt.Sprintf("patches %d", npatch), h, nil, pairs)
	}
	out, err := remnantJointFit(fresh, bgr, pg, loc, h, npatch, pairs, is, nsrc)
	if err == nil || !errors.Is(err, ErrRegistration) || npatch < 8 {
		return out, err
	}
	// Ink enough to align it as any photo is: the affine map only brought the patches within
	// reach where the features' homography folded or missed them, and the joint fit above
	// failed on the untorn edges the mask gives (seed 3 case-019 fatima-2: the features'
	// homography folds; 32 patches from the affine map, 0.45 mm off at the sheet's corners;
	// the joint fit pulled 2-4 mm off by the mask's edges on a pale table). The same mask,
	// checks and rescue as registerOn, from the patches' alignment; the patches count as
	// evidence of the sheet covered (checkHomography). Refused, the joint fit's refusal stands.
	ev := append([]pt(nil), is...)
	for _, p := range pairs {
		ev = append(ev, p.u)
	}
	notes := []string{fmt.Sprintf("remnant: registered on %d of %d feature matches (affine), %d ink patches", len(is), nsrc, len(pairs))}
	out2, err2 := checkAligned(fresh, bgr, loc, h, resid, npatch, pairs, ev, notes)
	if remnantHook != nil {
		remnantHook(fmt.Sprintf("as any photo: %v", err2), h, nil, nil)
	}
	if err2 == nil {
		if out != nil {
			out.Close()
		}
		return out2, nil
	}
	if out2 != nil {
		out2.Close()
	}
	return out, err
}

// remnantJointFit is registerRemnant's joint ink and outline fit (outlineFit, up to
// remnantFitRounds rounds) from the alignment h (fresh mm -> photo px) and its npatch ink
// patches (pairs), the nsrc feature matches of which is are consistent.
func remnantJointFit(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, h homog, npatch int, pairs []pair, is []pt, nsrc int) (*SheetImage, error) {
	return remnantJointFitFrom(fresh, bgr, pg, loc, h, npatch, pairs, is, nsrc, false)
}

// remnantJointFitFrom is remnantJointFit; keep: h already rests on the pairs and more (the
// untorn corner, registerCorner), and is not replaced by the affine map of the patches alone.
func remnantJointFitFrom(fresh *SheetImage, bgr, pg gocv.Mat, loc *located, h homog, npatch int, pairs []pair, is []pt, nsrc int, keep bool) (*SheetImage, error) {
	paperOK := func(pt) bool { return true }
	if npatch < 8 && !keep {
		// One short word: too few patches for refineH's homography. The patches an affine
		// map agrees with (within remnantPatchMM), if there are minRemnantPatches; the joint
		// fit below then rests on the untorn edges as much as on them.
		h2, p2, ok := fewPatches(fresh, pg, h)
		if remnantHook != nil {
			remnantHook(fmt.Sprintf("few patches %d", len(p2)), h2, nil, p2)
		}
		if !ok {
			return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: only %d ink patches match (%d of %d feature matches consistent)", len(p2), len(is), nsrc)}
		}
		h, npatch, pairs = h2, len(p2), p2
	}
	how := "affine"
	if keep {
		how = "corner pose"
	}
	notes := []string{fmt.Sprintf("remnant: registered on %d of %d feature matches (%s), %d ink patches, and its untorn edges", len(is), nsrc, how, len(pairs))}
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	for round := 0; round < remnantFitRounds; round++ {
		if err := checkShape(h, fresh); err != nil {
			return nil, err
		}
		mask, img, _, _, _, untorn, _, _, err := paperMaskInFrame(bgr, loc, h, fresh, is, pairs)
		if err != nil {
			return nil, err
		}
		mask.Close()
		img.Close()
		if len(untorn) < outlineMinSamples {
			return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: only %d mm of untorn edge found", len(untorn))}
		}
		// The alignment standard error (outlineFit) confirms it, not finishRegister's untorn
		// edges on every sample, torn stretches included (which a remnant has beside its ink).
		out, hn, fitted, err := outlineFit(fresh, bgr, loc, h, pairs, untorn, is, notes, max(npatch, minConfirmPatches))
		if remnantHook != nil {
			var ev []pt
			hni := hn.inv()
			for _, e := range untorn {
				ev = append(ev, hni.apply(e.v))
			}
			remnantHook(fmt.Sprintf("outline round %d: %d edge samples, fitted %v %v", round, len(untorn), fitted, err), hn, ev, pairs)
		}
		if fitted {
			return out, err
		}
		if moved(h, hn, W, H) < 0.25 {
			break
		}
		// The ink patches again from the joint fit: found from the first estimate, some
		// could lock onto the wrong stroke or line.
		h = hn
		if _, _, n2, p2 := refineH(fresh, pg, h, paperOK, true, true); n2 >= 8 {
			npatch, pairs = n2, p2
		} else if npatch < 8 {
			if _, p2, ok := fewPatches(fresh, pg, h); ok {
				npatch, pairs = len(p2), p2
			}
		}
	}
	return nil, &RegistrationError{Reason: fmt.Sprintf("remnant: ink patches and untorn edges disagree (%d ink patches)", npatch)}
}

// fewPatches matches the fresh sheet's dense ink patches around h (mm -> photo px) in the
// photo pg, within refineH's first search window, and fits an affine map to them
// (ransacAffine, within remnantPatchMM): the map and its patches, if at least
// minRemnantPatches agree.
func fewPatches(fresh *SheetImage, pg gocv.Mat, h homog) (homog, []pair, bool) {
	ff, err := freshFeatures(fresh)
	if err != nil {
		return h, nil, false
	}
	if ff.refineDense == nil {
		ff.refineDense = refinePoints(fresh, fresh.grayMat(), refineDensePatches, 40)
	}
	ppm := fresh.PxPerMM
	mm := func(p pt) pt { return pt{(p.X + 0.5) / ppm, (p.Y + 0.5) / ppm} }
	all := func(pt) bool { return true }
	src, dst := matchPatches(fresh.grayMat(), pg, h, ppm, frameSize(fresh.Paper, ppm), ff.refineDense, all, refineSearch)
	var sm, dp []pt
	for i := range src {
		sm = append(sm, mm(src[i]))
		dp = append(dp, h.apply(mm(dst[i])))
	}
	// The photo's scale at the patches (px per mm).
	var c pt
	for _, p := range sm {
		c = c.add(p)
	}
	c = c.mul(1 / math.Max(1, float64(len(sm))))
	s := dist(h.apply(c.add(pt{1, 0})), h.apply(c))
	a, inl, ok := ransacAffine(sm, dp, remnantPatchMM*s)
	if !ok || len(inl) < minRemnantPatches {
		return h, nil, false
	}
	pairs := make([]pair, len(inl))
	for k, i := range inl {
		pairs[k] = pair{u: sm[i], v: dp[i]}
	}
	return a.homog(), pairs, true
}

// remnantHook (tests only) receives registerRemnant's estimate after each stage, with the
// points (mm) it rests on and the ink patches.
var remnantHook func(stage string, h homog, at []pt, pairs []pair)

// Remnant alignment uncertainty.
//
// The joint fit can agree with all its evidence and still be free to move where the
// evidence does not reach: with ink at one end of a remnant and one corner, the scale along
// a side is extrapolated to its far end (synthetic seed 2 case-020 emil-4.jpg: patches within
// 0.06 mm, untorn edges within 0.5 mm, 1.06 mm off at the remnant's far tip). So the
// alignment's standard error is propagated from its evidence (the normal equations of the
// fit) to the remnant's own paper, and an alignment that evidence does not pin down there
// is refused.

const (
	// remnantPatchSigmaMM and remnantEdgeSigmaMM are the least standard errors assumed for
	// an ink patch's position (sub-pixel correlation at 4 px/mm) and an untorn edge sample's
	// (the mask's boundary, to the pixel).
	remnantPatchSigmaMM = 0.05
	remnantEdgeSigmaMM  = 0.25
	// remnantEdgeRunMM: edge samples this far apart count as one independent observation
	// (the paper mask errs in runs: its lighting cells are 2 mm, its morphology 1-2 mm).
	remnantEdgeRunMM = 5
	// maxRemnantSigmaMM bounds the standard error of the alignment on the remnant's paper:
	// three of them stay within MaxResidualMM.
	maxRemnantSigmaMM = MaxResidualMM / 3
)

// alignSigmaMM is the largest standard error (mm) of the alignment h (mm -> photo px) at the
// points at (mm), given the evidence it was fitted to: ink patches (pairs) and untorn edge
// samples (untorn). It returns +Inf when the evidence does not determine a homography.
func alignSigmaMM(h homog, pairs []pair, untorn []edgeSample, at []pt, W, H float64, pw, ph int) float64 {
	ps := float64(max(pw, ph)) / 2
	N := homog{1 / ps, 0, -float64(pw) / 2 / ps, 0, 1 / ps, -float64(ph) / 2 / ps, 0, 0, 1}
	ms := math.Max(W, H) / 2
	M := homog{1 / ms, 0, -W / 2 / ms, 0, 1 / ms, -H / 2 / ms, 0, 0, 1}
	G := M.mul(h.inv()).mul(N.inv()) // normalised photo -> normalised mm
	for i := range G {
		G[i] /= G[8]
	}
	// grad is the derivative (2 x 8) of G applied to the normalised photo point v, in mm.
	grad := func(v pt) [2][8]float64 {
		var J [2][8]float64
		q := G.apply(v)
		for k := 0; k < 8; k++ {
			g := G
			const eps = 1e-7
			g[k] += eps
			r := g.apply(v)
			J[0][k] = (r.X - q.X) / eps * ms
			J[1][k] = (r.Y - q.Y) / eps * ms
		}
		return J
	}
	var A [8][8]float64
	add := func(row [8]float64, w float64) {
		for a := 0; a < 8; a++ {
			for b := 0; b < 8; b++ {
				A[a][b] += w * row[a] * row[b]
			}
		}
	}
	wp := 1 / (remnantPatchSigmaMM * remnantPatchSigmaMM)
	for _, p := range pairs {
		J := grad(N.apply(p.v))
		add(J[0], wp)
		add(J[1], wp)
	}
	we := 1 / (remnantEdgeSigmaMM * remnantEdgeSigmaMM * remnantEdgeRunMM)
	for _, e := range untorn {
		J := grad(N.apply(e.v))
		add(J[e.side%2^1], we) // across the side: y on the top and bottom, x on the others
	}
	C, ok := invSPD8(A)
	if !ok {
		return math.Inf(1)
	}
	worst := 0.0
	for _, p := range at {
		J := grad(N.apply(h.apply(p)))
		v := 0.0
		for d := 0; d < 2; d++ {
			for a := 0; a < 8; a++ {
				for b := 0; b < 8; b++ {
					v += J[d][a] * C[a][b] * J[d][b]
				}
			}
		}
		worst = math.Max(worst, math.Sqrt(math.Max(v, 0)))
	}
	return worst
}

// maskGrid is the centres of the paper's cells of step mm in a frame mask (ppm px per mm).
func maskGrid(mask gocv.Mat, ppm, step float64) []pt {
	return gridOf(mask.ToBytes(), mask.Cols(), mask.Rows(), ppm, step)
}

// gridOf is maskGrid on a mask's bytes (w x h).
func gridOf(b []byte, w, h int, ppm, step float64) []pt {
	var out []pt
	for y := step / 2; y*ppm < float64(h); y += step {
		for x := step / 2; x*ppm < float64(w); x += step {
			if b[int(y*ppm)*w+int(x*ppm)] != 0 {
				out = append(out, pt{x, y})
			}
		}
	}
	return out
}

// invSPD8 inverts a symmetric positive definite 8x8 matrix by Cholesky factorisation; not ok
// when a pivot falls under 1e-10 of the largest diagonal entry (the evidence leaves some
// combination of the parameters free).
func invSPD8(A [8][8]float64) ([8][8]float64, bool) {
	var L, inv [8][8]float64
	dmax := 0.0
	for i := 0; i < 8; i++ {
		dmax = math.Max(dmax, A[i][i])
	}
	for i := 0; i < 8; i++ {
		for j := 0; j <= i; j++ {
			s := A[i][j]
			for k := 0; k < j; k++ {
				s -= L[i][k] * L[j][k]
			}
			if i == j {
				if s <= 1e-10*dmax {
					return inv, false
				}
				L[i][i] = math.Sqrt(s)
			} else {
				L[i][j] = s / L[j][j]
			}
		}
	}
	// inv = L^-T L^-1, column by column.
	for c := 0; c < 8; c++ {
		var y, x [8]float64
		for i := 0; i < 8; i++ { // L y = e_c
			s := 0.0
			if i == c {
				s = 1
			}
			for k := 0; k < i; k++ {
				s -= L[i][k] * y[k]
			}
			y[i] = s / L[i][i]
		}
		for i := 7; i >= 0; i-- { // L^T x = y
			s := y[i]
			for k := i + 1; k < 8; k++ {
				s -= L[k][i] * x[k]
			}
			x[i] = s / L[i][i]
		}
		for r := 0; r < 8; r++ {
			inv[r][c] = x[r]
		}
	}
	return inv, true
}
