package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Remnants registered by their outline against the previous photo.
//
// A remnant with little or no ink holds no evidence the feature matching or the ink patches
// can confirm an alignment with, even from the true homography. What it keeps is its
// outline: stretches of the sheet's straight sides, and stretches of the edges earlier tears
// left, which the previous photo of the sheet (already registered; the referee's fallback
// registers to it) shows in the sheet frame. The new tear's edge lies inside that paper.
//
// registerOutline, tried only when the photo is registered to such a previous sheet and every
// alignment on the ink was refused (Register), finds the pose that puts the remnant's outline
// on the previous paper's boundary:
//   - the outline is traced at the photo's resolution (photoOutline); each straight run of it
//     (only an untorn side is straight) is put on each of the sheet's four sides in turn, the
//     paper on the sheet's side of it, and the scale and the position along the side are
//     searched on a 1 mm grid of the previous paper, scored in millimetres of outline on its
//     boundary less outlineOffWeight times those off its paper (a fraction would favour a
//     small pose: any tiny shape lies along a side);
//   - the outlineCandidates best distinct poses are refined to a homography (outlineRefine:
//     Gauss-Newton on the outline points' distances to the boundary at the frame's
//     resolution; a torn edge of the previous mask may lie up to a millimetre beyond the
//     paper, beta, so a torn edge's residual is its signed distance less beta) and scored
//     again;
//   - the sheet's writing decides between them: a pose that puts the photo's ink on paper
//     the sheet has blank, or the sheet's writing on the remnant where the photo shows none,
//     more than outlineMaxInkMM2 either way, is impossible (poseInkDisagree);
//   - of the poses left, the best must hold outlineMinOn of its outline on the boundary and
//     at most outlineMaxOff off the paper, and be unambiguous: a distinct pose (more than
//     outlinePoseApartMM apart on the remnant) scoring outlineAmbiguity of it or more is a
//     refusal (a blank strip of untorn sides fits wherever its sides do: TestRegisterOutline);
//   - the pose then passes, as any alignment does, the paper mask at the frame's resolution
//     and every check of finishRegister with no ink patches (the untorn edges within
//     maxUnrefinedMM on every sample), markUnknown's check of the writing, and two checks on
//     the photo the outline fit never saw: the frame's colour classification of the photo
//     puts at most outlineMaxSpillMM2 of paper off the previous paper, and the ink check
//     again on the final mask (inkDisagreeMM2).
//
// On the project set and seeds 10-13 it registers 2 of the 6 remnants the ink refused (seed
// 10 case-020 mateo-6, true error 0.76 mm; seed 12 case-020 ann-6, 0.51 mm) and refuses the
// other 4 (two ambiguous, one with too little of its outline on the boundary, one whose
// every pose contradicts the writing); before the writing decided and outlineMinOn was 0.5,
// a thin strip (seed 12 case-009 bo-5) was accepted 306 mm off.

const (
	// outlineLong is the photo's long side (px) its paper's outline is traced at.
	outlineLong = 1024
	// outlinePoints is how many points the outline is resampled to (about 1-2 mm apart on a
	// remnant); outlineCoarseEvery of them score the coarse search.
	outlinePoints      = 480
	outlineCoarseEvery = 3
	// outlineCoarseMM: an outline point within this of the previous paper's boundary is on it
	// in the coarse search (1 px/mm), and one farther off its paper is off it.
	outlineCoarseMM = 1.5
	// outlineOnMM: the same at the frame's resolution after the refinement; outlineOffMM how
	// far outside the previous paper a point may lie before it is off it.
	outlineOnMM  = 0.6
	outlineOffMM = 1.0
	// outlineOffWeight: one outline point off the previous paper costs this many on it.
	outlineOffWeight = 4
	// outlineMinOn is the least fraction of the outline on the previous paper's boundary, and
	// outlineMaxOff the largest off its paper, for the best pose.
	outlineMinOn  = 0.5
	outlineMaxOff = 0.02
	// outlineAmbiguity: a distinct pose scoring at least this fraction of the best makes the
	// pose ambiguous; outlinePoseApartMM is how far apart (on the remnant) poses are distinct.
	outlineAmbiguity   = 0.5
	outlinePoseApartMM = 2.0
	// outlineCandidates: distinct coarse poses refined.
	outlineCandidates = 16
	// outlineMinRunFrac: a straight run is at least this fraction of the outline's length.
	outlineMinRunFrac = 0.04
	// outlineMaxSpillMM2: the photo's paper (frame colour classification) off the previous
	// sheet's paper grown by outlineSpillMM, at most.
	outlineMaxSpillMM2 = 25.0
	outlineSpillMM     = 1.0
	// outlineMaxInkMM2: the photo's ink on paper the sheet has blank, or the sheet's writing
	// the photo does not show, at most (inkDisagreeMM2).
	outlineMaxInkMM2 = 5.0
	// outlineBetaMax bounds how far (mm) the previous mask's torn edges may lie beyond the
	// paper's (distMap.at); outlineCoarseBeta is the coarse search's assumption.
	outlineBetaMax = 1.5
	// outlinePrevMaxResidMM: the previous photo's residual (mm) above which its paper is
	// no reference for an outline.
	outlinePrevMaxResidMM = 0.3
	outlineCoarseBeta     = 0.5
)

// outlinePose maps photo px to sheet mm: the homography g applied to the photo point
// normalised by c and sc ((p - c) / sc).
type outlinePose struct {
	g     homog
	beta  float64 // the previous mask's torn edges beyond the paper's (mm; distMap.at)
	score float64
	on    float64 // fraction of the outline on the previous paper's boundary
	off   float64 // fraction off its paper
}

func (p outlinePose) apply(q, c pt, sc float64) pt {
	return p.g.apply(pt{(q.X - c.X) / sc, (q.Y - c.Y) / sc})
}

// distMap is a distance map over a frame at ppm px/mm of the paper mask m: to its boundary
// on the frame's edge (the sheet's sides, side) and elsewhere (torn edges, torn), in px. A
// boundary pixel is a paper pixel with a 4-neighbour (or the frame's edge) not paper.
type distMap struct {
	w, h       int
	ppm        float64
	side, torn []float32
	m          []byte
}

func newDistMap(m []byte, w, h int, ppm float64) *distMap {
	bs, bt := make([]byte, w*h), make([]byte, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			bs[i], bt[i] = 255, 255
			if m[i] == 0 {
				continue
			}
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				bs[i] = 0
			} else if m[i-1] == 0 || m[i+1] == 0 || m[i-w] == 0 || m[i+w] == 0 {
				bt[i] = 0
			}
		}
	}
	return &distMap{w: w, h: h, ppm: ppm, side: chamferDist(bs, w, h), torn: chamferDist(bt, w, h), m: m}
}

// at is, for the sheet point q (mm), its residual from the boundary: the distance to a side
// when one is nearest, else the signed distance to a torn edge (positive on the paper) less
// beta (a torn edge of the mask can lie a millimetre beyond the paper's); whether q is on the
// paper (nearest pixel); and its distance to the nearest boundary of either kind (mm).
func (dm *distMap) at(q pt, beta float64) (r float64, in bool, d float64) {
	x, y := q.X*dm.ppm-0.5, q.Y*dm.ppm-0.5
	cx, cy := clampf(x, 0, float64(dm.w-1)), clampf(y, 0, float64(dm.h-1))
	out := math.Hypot(x-cx, y-cy)
	x0, y0 := int(cx), int(cy)
	x1, y1 := min(x0+1, dm.w-1), min(y0+1, dm.h-1)
	fx, fy := cx-float64(x0), cy-float64(y0)
	bil := func(d []float32) float64 {
		return (1-fy)*((1-fx)*float64(d[y0*dm.w+x0])+fx*float64(d[y0*dm.w+x1])) +
			fy*((1-fx)*float64(d[y1*dm.w+x0])+fx*float64(d[y1*dm.w+x1]))
	}
	ds, dt := (bil(dm.side)+out)/dm.ppm, (bil(dm.torn)+out)/dm.ppm
	in = out == 0 && dm.m[int(math.Round(cy))*dm.w+int(math.Round(cx))] != 0
	if ds <= dt {
		return ds, in, ds
	}
	if !in {
		dt = -dt
	}
	return dt - beta, in, math.Abs(dt)
}

// score counts the points (sheet mm) on the boundary (residual within tol) and off the paper
// (farther than off from it, outside it); it stops counting once off exceeds maxOff.
func (dm *distMap) score(qs []pt, beta, tol, off float64, maxOff int) (nOn, nOff int) {
	for _, q := range qs {
		r, in, d := dm.at(q, beta)
		switch {
		case math.Abs(r) <= tol:
			nOn++
		case !in && d > off:
			nOff++
			if nOff > maxOff {
				return nOn, nOff
			}
		}
	}
	return nOn, nOff
}

// outlineRun is a straight run of the outline: from a to b (photo px), in the outline's order.
type outlineRun struct{ a, b pt }

// registerOutline registers the photo bgr (its paper located at loc) to prev, a registered
// sheet (the previous photo), by the outline of its paper (see above). It returns the
// registered sheet or a *RegistrationError saying why the outline gave no trustworthy pose.
func registerOutline(prev *SheetImage, bgr gocv.Mat, loc *located) (*SheetImage, error) {
	refuse := func(format string, a ...any) (*SheetImage, error) {
		return nil, &RegistrationError{Reason: "by the outline: " + fmt.Sprintf(format, a...)}
	}
	if !prev.registered || prev.unknown != nil || prev.Mask.Empty() {
		return refuse("the previous photo is no whole registered sheet")
	}
	if prev.ResidualMM > outlinePrevMaxResidMM {
		// Its own alignment error adds to this one, unseen (seed 5 case-009: lena-4,
		// accepted 1.16 mm off, must not register lena-5).
		return refuse("the previous photo's own alignment is off by up to %.2f mm", prev.ResidualMM)
	}
	W, H := prev.Paper.WidthMM, prev.Paper.HeightMM
	lo, err := locate(bgr, nil, outlineLong, false)
	if err != nil {
		return refuse("%v", err)
	}
	if len(lo.regions) == 0 {
		return refuse("no paper")
	}
	total := 0.0
	for _, r := range lo.regions {
		total += r.area
	}
	r0 := lo.regions[0]
	if r0.area < 0.95*total || r0.touches > 0 {
		return refuse("the paper is not one remnant wholly in view")
	}
	contour := r0.contour
	if signedArea(contour) < 0 {
		contour = make([]pt, len(r0.contour))
		for i := range r0.contour {
			contour[i] = r0.contour[len(r0.contour)-1-i]
		}
	}
	full, ok := photoOutline(bgr, lo, contour)
	if !ok {
		return refuse("the remnant's outline could not be traced in the photo")
	}
	fine := resampleClosed(full, outlinePoints)
	runs := straightRuns(contour, lo)
	if len(runs) == 0 {
		return refuse("no straight untorn side")
	}
	// Normalisation of photo points.
	var c pt
	for _, p := range fine {
		c = c.add(p)
	}
	c = c.mul(1 / float64(len(fine)))
	sc := 0.0
	for _, p := range fine {
		sc = math.Max(sc, dist(p, c))
	}
	perim := 0.0 // the outline's length, photo px
	for i := range fine {
		perim += dist(fine[i], fine[(i+1)%len(fine)])
	}
	var coarse []pt
	for i := 0; i < len(fine); i += outlineCoarseEvery {
		coarse = append(coarse, fine[i])
	}

	sz := prev.SizePx()
	pm := prev.Mask.ToBytes()
	prevArea := 0
	for _, v := range pm {
		if v != 0 {
			prevArea++
		}
	}
	prevMM2 := float64(prevArea) / (prev.PxPerMM * prev.PxPerMM)
	fineMap := newDistMap(pm, sz.X, sz.Y, prev.PxPerMM)
	// 1 px/mm for the coarse search.
	cw, ch := int(math.Ceil(W)), int(math.Ceil(H))
	cm := gocv.NewMat()
	defer cm.Close()
	gocv.Resize(prev.Mask, &cm, image.Pt(cw, ch), 0, 0, gocv.InterpolationArea)
	cb := cm.ToBytes()
	for i, v := range cb {
		if v >= 128 {
			cb[i] = 255
		} else {
			cb[i] = 0
		}
	}
	coarseMap := newDistMap(cb, cw, ch, float64(cw)/W)

	// The scale (mm per photo px): the remnant no larger than the previous paper, and at
	// least 3% of it.
	curPx := r0.area / (lo.scale * lo.scale)
	sHi := math.Sqrt(1.1 * prevMM2 / curPx)
	sLo := sHi * math.Sqrt(0.03/1.1)
	sides := [4]struct{ at, dir pt }{{pt{0, 0}, pt{1, 0}}, {pt{W, 0}, pt{0, 1}}, {pt{W, H}, pt{-1, 0}}, {pt{0, H}, pt{0, -1}}}
	sideLen := [4]float64{W, H, W, H}
	type cand struct {
		score     float64
		s, th, u  float64
		run, side int
	}
	var cands []cand
	bestC := 0.0 // candidates under half the best so far are not kept
	maxOff := len(coarse) / 10
	for ri, r := range runs {
		rd := r.b.sub(r.a)
		rl := rd.norm()
		for k, sd := range sides {
			th := math.Atan2(sd.dir.Y, sd.dir.X) - math.Atan2(rd.Y, rd.X)
			cs, sn := math.Cos(th), math.Sin(th)
			rel := make([]pt, len(coarse))
			for s := sLo; s <= sHi; s *= 1.02 {
				if s*rl > sideLen[k]+1 {
					break
				}
				for i, p := range coarse {
					v := p.sub(r.a)
					rel[i] = pt{s * (cs*v.X - sn*v.Y), s * (sn*v.X + cs*v.Y)}
				}
				qs := make([]pt, len(rel))
				for u := 0.0; u+s*rl <= sideLen[k]+1; u += 1 {
					o := sd.at.add(sd.dir.mul(u))
					for i, v := range rel {
						qs[i] = o.add(v)
					}
					nOn, nOff := coarseMap.score(qs, outlineCoarseBeta, outlineCoarseMM, outlineCoarseMM, maxOff)
					if nOff > maxOff {
						continue
					}
					// In mm of outline on the boundary: a smaller pose would always fit.
					v := float64(nOn-outlineOffWeight*nOff) * s * perim / float64(len(qs))
					if v > 0 && v >= bestC/2 {
						cands = append(cands, cand{v, s, th, u, ri, k})
						bestC = math.Max(bestC, v)
					}
				}
			}
		}
	}
	if len(cands) == 0 {
		return refuse("no pose puts the outline on the previous paper")
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	// The similarity of a candidate as a pose on normalised photo points.
	poseOf := func(cd cand) outlinePose {
		r := runs[cd.run]
		sd := sides[cd.side]
		o := sd.at.add(sd.dir.mul(cd.u))
		cs, sn := math.Cos(cd.th)*cd.s, math.Sin(cd.th)*cd.s
		// q = S (c + sc v - a) + o
		t := c.sub(r.a)
		t = pt{cs*t.X - sn*t.Y + o.X, sn*t.X + cs*t.Y + o.Y}
		return outlinePose{g: homog{cs * sc, -sn * sc, t.X, sn * sc, cs * sc, t.Y, 0, 0, 1}}
	}
	var probe []pt // points of the outline poses are compared at
	for i := 0; i < len(fine); i += len(fine) / 24 {
		probe = append(probe, fine[i])
	}
	apart := func(a, b outlinePose) float64 {
		m := 0.0
		for _, p := range probe {
			m = math.Max(m, dist(a.apply(p, c, sc), b.apply(p, c, sc)))
		}
		return m
	}
	var kept []outlinePose
	for _, cd := range cands {
		p := poseOf(cd)
		far := true
		for _, k := range kept {
			if apart(p, k) < 2*outlinePoseApartMM {
				far = false
				break
			}
		}
		if far {
			p.score = cd.score
			kept = append(kept, p)
			if len(kept) == outlineCandidates {
				break
			}
		}
	}
	norm := make([]pt, len(fine))
	for i, p := range fine {
		norm[i] = pt{(p.X - c.X) / sc, (p.Y - c.Y) / sc}
	}
	N := homog{1 / sc, 0, -c.X / sc, 0, 1 / sc, -c.Y / sc, 0, 0, 1}
	var refined []outlinePose
	for _, p := range kept {
		g0 := p.g
		p.g, p.beta = outlineRefine(fineMap, p.g, outlineCoarseBeta, norm)
		if r := poseScale(p.g) / poseScale(g0); r < 0.95 || r > 1.05 {
			p.g = g0 // the refinement shrank or grew the remnant: not a fit of its outline
		}
		q := make([]pt, len(norm))
		for i, v := range norm {
			q[i] = p.g.apply(v)
		}
		nOn, nOff := fineMap.score(q, p.beta, outlineOnMM, outlineOffMM, len(q))
		p.on, p.off = float64(nOn)/float64(len(q)), float64(nOff)/float64(len(q))
		p.score = (p.on - outlineOffWeight*p.off) * poseScale(p.g) * perim / sc
		refined = append(refined, p)
	}
	sort.SliceStable(refined, func(i, j int) bool { return refined[i].score > refined[j].score })
	if outlineHook != nil {
		var hs []homog
		var ss []float64
		for _, p := range refined {
			hs = append(hs, p.g.mul(N).inv())
			ss = append(ss, p.score)
		}
		outlineHook(hs, ss)
	}
	// The writing decides between poses its absence does not contradict: a pose that puts
	// the remnant's blank paper on the sheet's writing (or its ink on blank paper) is
	// impossible, whatever its outline. Checked on the poses the outline leaves in contention.
	var consistent []outlinePose
	for _, p := range refined {
		if len(consistent) > 0 && p.score < outlineAmbiguity*consistent[0].score {
			break
		}
		a, b := poseInkDisagree(prev, bgr, p.g.mul(N), fine)
		if inkHook != nil {
			inkHook(a, b)
		}
		if a <= outlineMaxInkMM2 && b <= outlineMaxInkMM2 {
			consistent = append(consistent, p)
		}
	}
	if len(consistent) == 0 {
		return refuse("every pose the outline allows contradicts the sheet's writing")
	}
	refined = consistent
	best := refined[0]
	if best.on < outlineMinOn || best.off > outlineMaxOff {
		return refuse("the best pose holds %.0f%% of the outline on the previous paper's edge, %.0f%% off its paper", 100*best.on, 100*best.off)
	}
	for _, p := range refined[1:] {
		if p.score >= outlineAmbiguity*best.score && apart(p, best) > outlinePoseApartMM {
			return refuse("two poses %.1f mm apart fit the previous paper alike (%.0f%% and %.0f%% of the outline on its edge)", apart(p, best), 100*best.on, 100*p.on)
		}
	}
	hpf := best.g.mul(N)
	h := hpf.inv() // sheet mm -> photo px
	for i := range h {
		h[i] /= h[8]
	}
	if err := checkShape(h, prev); err != nil {
		return nil, err
	}
	// Points on the remnant's paper (sheet mm): the blob the paper mask keeps.
	var inl []pt
	step := max(2, int(math.Sqrt(r0.area/400)))
	for y := 0; y < lo.h; y += step {
		for x := 0; x < lo.w; x += step {
			if lo.mask[y*lo.w+x] != 0 && pointInPoly(pt{float64(x), float64(y)}, contour) {
				inl = append(inl, hpf.apply(lo.toPhoto(pt{float64(x), float64(y)})))
			}
		}
	}
	mask, img, outlineMM, edgeMM, edgeAllMM, _, foreign, unknown, err := paperMaskInFrame(bgr, loc, h, prev, inl, nil)
	if err != nil {
		return refuse("%v", err)
	}
	if unknown != nil {
		mask.Close()
		img.Close()
		return refuse("the photo cuts the sheet off")
	}
	// The residual the outline leaves: RMS of its points on the boundary.
	var se float64
	n := 0
	for _, v := range norm {
		if r, _, _ := fineMap.at(best.g.apply(v), best.beta); math.Abs(r) <= outlineOnMM {
			se += r * r
			n++
		}
	}
	rms := math.Sqrt(se / float64(max(n, 1)))
	next := "no other pose the sheet's writing allows"
	if ns := nextScore(refined, best, apart); ns > 0 {
		next = fmt.Sprintf("the next pose the writing allows %.0f%% as good", 100*ns/best.score)
	}
	notes := []string{fmt.Sprintf("registered by its outline on the previous photo's paper (%.0f%% of the outline on its edge, %.2f mm RMS; %s)", 100*best.on, rms, next)}
	out, rerr := finishRegister(prev, h, mask, img, foreign, notes, rms, outlineMM, edgeMM, edgeAllMM, 0)
	if rerr != nil {
		out.Close()
		return nil, rerr
	}
	if sp := photoSpillMM2(bgr, loc, h, prev, out); sp > outlineMaxSpillMM2 {
		out.Close()
		return refuse("the photo shows %.0f mm² of paper off the previous photo's paper at that pose", sp)
	}
	if a, b := inkDisagreeMM2(prev, out); a > outlineMaxInkMM2 || b > outlineMaxInkMM2 {
		out.Close()
		return refuse("at that pose the photo's ink and the sheet's writing disagree (%.1f mm² of ink on blank paper, %.1f mm² of writing not shown)", a, b)
	}
	return markUnknown(prev, out, nil)
}

// poseInkDisagree is inkDisagreeMM2 for the pose hpf (photo px -> sheet mm) of the remnant
// whose outline is fine (photo px): the photo warped into the frame, its paper the outline's
// inside on the previous sheet's paper.
func poseInkDisagree(prev *SheetImage, bgr gocv.Mat, hpf homog, fine []pt) (float64, float64) {
	sz := prev.SizePx()
	img := warpToFrame(bgr, hpf.inv(), prev.Paper, prev.PxPerMM, 0)
	defer img.Close()
	poly := make([]image.Point, len(fine))
	for i, p := range fine {
		poly[i] = mmToPx(hpf.apply(p), prev.PxPerMM).img()
	}
	m := gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV8UC1)
	defer m.Close()
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{poly})
	defer pv.Close()
	gocv.FillPoly(&m, pv, colorRGBA(255, 255, 255))
	gocv.BitwiseAnd(m, prev.Mask, &m)
	return inkDisagreeMM2(prev, &SheetImage{Image: img, Mask: m, PxPerMM: prev.PxPerMM, Paper: prev.Paper})
}

// inkDisagreeMM2 compares, on out's paper away from its edge (3 mm: a torn edge's shade is no ink), the photo's ink
// (paperInk) with the fresh sheet's writing (prev's inkGray, the same adaptive threshold):
// the area (mm²) of the photo's ink farther than a millimetre from the writing, and of the
// writing farther than a millimetre from the photo's ink.
func inkDisagreeMM2(prev, out *SheetImage) (extra, missing float64) {
	sz := out.SizePx()
	ppm := out.PxPerMM
	fg := prev.inkGray
	if len(fg) != sz.X*sz.Y {
		return math.Inf(1), math.Inf(1)
	}
	photoInk := paperInk(out, 20)
	gm := newMask(sz.X, sz.Y, fg)
	defer gm.Close()
	th := gocv.NewMat()
	defer th.Close()
	gocv.AdaptiveThreshold(gm, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*ppm)|1, 20)
	freshInkB := th.ToBytes()
	grow := func(b []byte, mm float64, erode bool) []byte {
		m := newMask(sz.X, sz.Y, b)
		defer m.Close()
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(int(2*mm*ppm)|1, int(2*mm*ppm)|1))
		defer k.Close()
		if erode {
			gocv.Erode(m, &m, k)
		} else {
			gocv.Dilate(m, &m, k)
		}
		return m.ToBytes()
	}
	inner := grow(out.Mask.ToBytes(), 3, true)
	// Nor within 3 mm of the frame's edge (the fresh sheet's own edge reads as ink there).
	e := int(3 * ppm)
	for y := 0; y < sz.Y; y++ {
		for x := 0; x < sz.X; x++ {
			if x < e || y < e || x >= sz.X-e || y >= sz.Y-e {
				inner[y*sz.X+x] = 0
			}
		}
	}
	nearFresh, nearPhoto := grow(freshInkB, 1, false), grow(photoInk, 1, false)
	var a, b int
	for i, v := range inner {
		if v == 0 {
			continue
		}
		if photoInk[i] != 0 && nearFresh[i] == 0 {
			a++
		}
		if freshInkB[i] != 0 && nearPhoto[i] == 0 {
			b++
		}
	}
	return float64(a) / (ppm * ppm), float64(b) / (ppm * ppm)
}

// poseScale is the linear scale of the pose g at the normalised origin (sheet mm per unit).
func poseScale(g homog) float64 {
	return math.Sqrt(math.Abs(g[0]*g[4]-g[1]*g[3])) / g[8]
}

// nextScore is the best score among the poses (refined, best first) apart from best.
func nextScore(refined []outlinePose, best outlinePose, apart func(a, b outlinePose) float64) float64 {
	for _, p := range refined[1:] {
		if apart(p, best) > outlinePoseApartMM {
			return math.Max(p.score, 0)
		}
	}
	return 0
}

// outlineHook (tests only) receives the refined outline poses (sheet mm -> photo px), best
// first, and their scores.
var outlineHook func(hs []homog, scores []float64)

// outlineRefine refines the pose g (normalised photo points -> sheet mm) and beta (distMap.at)
// so that the points norm near the previous paper's boundary (dm) lie on it: Gauss-Newton
// on their residuals with Tukey's weights, the points taken within 2, 1.5, 1, then
// outlineOnMM of the boundary, the perspective terms held near zero (over a remnant they are
// weakly determined), beta kept within outlineBetaMax of zero.
func outlineRefine(dm *distMap, g homog, beta float64, norm []pt) (homog, float64) {
	const hstep = 0.25 // mm, the residual's gradient by central differences
	for _, tol := range []float64{2, 1.5, 1.0, outlineOnMM} {
		for it := 0; it < 8; it++ {
			var A [9][9]float64
			var b [9]float64
			n := 0
			for _, v := range norm {
				q := g.apply(v)
				r, _, _ := dm.at(q, beta)
				if math.Abs(r) > tol {
					continue
				}
				rxp, _, _ := dm.at(pt{q.X + hstep, q.Y}, beta)
				rxm, _, _ := dm.at(pt{q.X - hstep, q.Y}, beta)
				ryp, _, _ := dm.at(pt{q.X, q.Y + hstep}, beta)
				rym, _, _ := dm.at(pt{q.X, q.Y - hstep}, beta)
				gx, gy := (rxp-rxm)/(2*hstep), (ryp-rym)/(2*hstep)
				w := g[6]*v.X + g[7]*v.Y + 1
				J := [9]float64{gx * v.X / w, gx * v.Y / w, gx / w, gy * v.X / w, gy * v.Y / w, gy / w,
					-(gx*q.X + gy*q.Y) * v.X / w, -(gx*q.X + gy*q.Y) * v.Y / w, 0}
				if rr, _, _ := dm.at(q, beta+1); rr != r {
					J[8] = -1 // a torn edge's residual moves with beta; a side's does not
				}
				u := r / tol
				wt := (1 - u*u) * (1 - u*u) // Tukey's biweight
				for a := 0; a < 9; a++ {
					for c := 0; c < 9; c++ {
						A[a][c] += wt * J[a] * J[c]
					}
					b[a] -= wt * J[a] * r
				}
				n++
			}
			if n < 20 {
				return g, beta
			}
			// The perspective terms: a weak prior at zero.
			for _, k := range []int{6, 7} {
				A[k][k] += outlinePerspPrior
				b[k] -= outlinePerspPrior * g[k]
			}
			A[8][8] += 1 // beta: a weak prior at its value
			for a := 0; a < 9; a++ {
				A[a][a] *= 1.001
			}
			x, ok := solveGauss(rowsOf(A[:], func(r *[9]float64) []float64 { return r[:] }), b[:])
			if !ok {
				return g, beta
			}
			for k := 0; k < 8; k++ {
				g[k] += x[k]
			}
			beta = clampf(beta+x[8], -outlineBetaMax/2, outlineBetaMax)
		}
	}
	return g, beta
}

// photoSpillMM2 is the area (mm²) the photo's colour classification (loc's models, at the
// frame's resolution under h) calls paper within 5 mm of out's paper mask but off the
// previous sheet's paper grown by outlineSpillMM (beyond the sheet's edge included).
func photoSpillMM2(bgr gocv.Mat, loc *located, h homog, prev, out *SheetImage) float64 {
	ppm := prev.PxPerMM
	warped := warpToFrame(bgr, h, prev.Paper, ppm, marginMM)
	defer warped.Close()
	fw, fh := warped.Cols(), warped.Rows()
	valid := warpValid(bgr.Cols(), bgr.Rows(), h, fw, fh, ppm, marginMM)
	prob := paperProbBGR(u8view(warped), loc.fg, loc.bg, 0.5)
	sz := prev.SizePx()
	off := int(math.Round(marginMM * ppm))
	pad := func(m gocv.Mat, grow float64) []byte {
		big := gocv.NewMat()
		defer big.Close()
		gocv.CopyMakeBorder(m, &big, off, fh-sz.Y-off, off, fw-sz.X-off, gocv.BorderConstant, colorRGBA(0, 0, 0))
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(int(2*grow*ppm)|1, int(2*grow*ppm)|1))
		defer k.Close()
		gocv.Dilate(big, &big, k)
		return big.ToBytes()
	}
	near := pad(out.Mask, 5)
	ref := pad(prev.Mask, outlineSpillMM)
	n := 0
	for i, p := range prob {
		if p > 127 && valid[i] == 255 && near[i] != 0 && ref[i] == 0 {
			n++
		}
	}
	return float64(n) / (ppm * ppm)
}

// photoOutline traces the remnant's outline at the photo's resolution: lo's colour models
// (without its blur) over the photo around contour (work px, positive area), the blob that
// holds most of the contour's inside, as photo px with positive area.
func photoOutline(bgr gocv.Mat, lo *located, contour []pt) ([]pt, bool) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range contour {
		q := lo.toPhoto(p)
		x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
	}
	m := 6 / lo.scale
	r := image.Rect(int(math.Max(0, x0-m)), int(math.Max(0, y0-m)), int(math.Min(float64(bgr.Cols()), x1+m)), int(math.Min(float64(bgr.Rows()), y1+m)))
	if r.Dx() < 8 || r.Dy() < 8 {
		return nil, false
	}
	roi := bgr.Region(r)
	sub := roi.Clone()
	roi.Close()
	defer sub.Close()
	prob := paperProbBGR(sub.ToBytes(), lo.fg, lo.bg, 0.5)
	for i, v := range prob {
		if v > 127 {
			prob[i] = 255
		} else {
			prob[i] = 0
		}
	}
	pm := newMask(r.Dx(), r.Dy(), prob)
	defer pm.Close()
	morph(&pm, 3, 5)
	cs := gocv.FindContours(pm, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer cs.Close()
	best, bestA := -1, 0.0
	for i := 0; i < cs.Size(); i++ {
		if a := gocv.ContourArea(cs.At(i)); a > bestA {
			best, bestA = i, a
		}
	}
	if best < 0 {
		return nil, false
	}
	// The same remnant: about the area located.
	want := polyArea(contour) / (lo.scale * lo.scale)
	if bestA < 0.7*want || bestA > 1.4*want {
		return nil, false
	}
	ps := cs.At(best).ToPoints()
	out := make([]pt, len(ps))
	for i, p := range ps {
		out[i] = pt{float64(p.X + r.Min.X), float64(p.Y + r.Min.Y)}
	}
	if signedArea(out) < 0 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, true
}

// resampleClosed resamples a closed polyline to n points equally spaced along it.
func resampleClosed(c []pt, n int) []pt {
	m := len(c)
	cum := make([]float64, m+1)
	for i := 0; i < m; i++ {
		cum[i+1] = cum[i] + dist(c[i], c[(i+1)%m])
	}
	L := cum[m]
	out := make([]pt, 0, n)
	j := 0
	for k := 0; k < n; k++ {
		s := L * float64(k) / float64(n)
		for j < m-1 && cum[j+1] < s {
			j++
		}
		seg := cum[j+1] - cum[j]
		t := 0.0
		if seg > 0 {
			t = (s - cum[j]) / seg
		}
		out = append(out, lerp(c[j], c[(j+1)%m], t))
	}
	return out
}

// straightRuns finds the straight runs of a closed outline (work px, positive area; lo maps
// to photo px): approxPolyDP's segments at least outlineMinRunFrac of the outline long whose
// points all lie within 1.5 px of their line, not along the image's border; as photo px.
func straightRuns(contour []pt, lo *located) []outlineRun {
	n := len(contour)
	ips := make([]image.Point, n)
	idx := make(map[image.Point]int, n)
	L := 0.0
	for i, p := range contour {
		ips[i] = p.img()
		if _, ok := idx[ips[i]]; !ok {
			idx[ips[i]] = i
		}
		L += dist(p, contour[(i+1)%n])
	}
	pv := gocv.NewPointVectorFromPoints(ips)
	defer pv.Close()
	ap := gocv.ApproxPolyDP(pv, 1.0, true)
	defer ap.Close()
	var vs []int
	for _, p := range ap.ToPoints() {
		if i, ok := idx[p]; ok {
			vs = append(vs, i)
		}
	}
	sort.Ints(vs)
	onBorder := func(p pt) bool {
		return p.X <= 3 || p.Y <= 3 || p.X >= float64(lo.w-4) || p.Y >= float64(lo.h-4)
	}
	var out []outlineRun
	for k := range vs {
		a, b := vs[k], vs[(k+1)%len(vs)]
		if b <= a {
			b += n
		}
		if dist(contour[a%n], contour[b%n]) < outlineMinRunFrac*L {
			continue
		}
		var pts []pt
		border := false
		for i := a; i <= b; i++ {
			pts = append(pts, contour[i%n])
			border = border || onBorder(contour[i%n])
		}
		if border {
			continue
		}
		ln, ok := fitLineTLS(pts)
		if !ok {
			continue
		}
		straight := true
		for _, p := range pts {
			if math.Abs(ln.dist(p)) > 1.5 {
				straight = false
				break
			}
		}
		if !straight {
			continue
		}
		pa, pb := contour[a%n], contour[b%n]
		pa = pa.sub(ln.n.mul(ln.dist(pa)))
		pb = pb.sub(ln.n.mul(ln.dist(pb)))
		out = append(out, outlineRun{lo.toPhoto(pa), lo.toPhoto(pb)})
	}
	return out
}

// outlineRefusedHook (tests only) receives registerOutline's refusal.
var outlineRefusedHook func(err error)

// outlinePerspPrior weighs the prior holding outlineRefine's perspective terms at zero
// (as 20 outline points held by 1e-2 of perspective across the remnant a millimetre off).
const outlinePerspPrior = 2e3

// inkHook (tests only) receives poseInkDisagree's areas for each pose checked.
var inkHook func(a, b float64)
