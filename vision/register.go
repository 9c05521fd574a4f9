package vision

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"sort"
	"strings"

	"gocv.io/x/gocv"
)

// Registration.
//
// A later photo is aligned with the fresh sheet by the sheet's own ink: ORB features (fast,
// rotation invariant, so a sheet turned or upside down matches as well as an upright one) on
// images scaled to about featPxPerMM, brute-force Hamming matching with Lowe's ratio test, and
// a RANSAC homography from sheet millimetres to photo pixels, re-fitted by least squares on
// its inliers. Every step is deterministic: ORB and the matcher have no random state, and
// OpenCV's RANSAC seeds its generator with a fixed value on every call.
//
// The alignment is refused (RegistrationError) rather than returned when it is not
// trustworthy: too few inliers, inliers bunched in one corner of the sheet, a mirrored or
// degenerate homography, a residual over MaxResidualMM, or paper in the photo that the
// homography puts well outside the sheet (the untorn outline must land on the frame's edge).

// useOutlineGN turns on the joint ink + outline Gauss-Newton refinement (outline.go). It
// is off: on the synthetic set the outline evidence, with only 10-20 ink patches beside it,
// pulled sheets with few untorn sides off by millimetres while reporting small residuals.
// The untorn edges serve as a check instead (edgeMM in the residual).
const useOutlineGN = false

const (
	featPxPerMM      = 3.0 // fresh feature image resolution: handwriting strokes stay 1-2 px wide
	photoFeatPxPerMM = 2.6 // later photos, about (the torn sheet's area underestimates the scale)
	// MaxResidualMM is the registration residual above which Register refuses.
	MaxResidualMM = 0.9
	// DoubtResidualMM is the residual above which Measure adds a doubt.
	DoubtResidualMM = 0.8
	minInliers      = 15
	// maxUnrefinedMM is the residual allowed when few ink patches matched (see
	// minConfirmPatches): feature matches alone are trusted only when the untorn edges agree
	// this well.
	maxUnrefinedMM = 0.5
	// minConfirmPatches: with fewer ink patches matched than this, the alignment also needs
	// the untorn edges to agree within maxUnrefinedMM.
	minConfirmPatches = 12
	marginMM          = 8.0 // frame margin examined around the sheet for outline agreement
)

type features struct {
	pts         []pt     // keypoints, sheet-frame mm
	desc        []uint64 // their ORB descriptors, descWords words each
	refine      []pt     // refinement patch centres, frame px
	refineDense []pt     // the denser set (refineH's dense)
	// remnant: the denser feature set registerRemnant matches (remnantFeatureCount), made
	// on its first use
	remnant *features
}

func (f *features) close() {}

// orb makes the ORB detector: n features, 8 pyramid levels of 1.2, Harris-ranked.
func orb(n int) gocv.ORB {
	return gocv.NewORBWithParams(n, 1.2, 8, 15, 0, 2, gocv.ORBScoreTypeHarris, 31, 12)
}

const (
	freshFeatureCount = 1500 // on the fresh sheet, once per session
	// remnantFeatureCount: on the fresh sheet for registerRemnant, once per session when
	// a photo needs it
	remnantFeatureCount = 6000
	photoFeatureCount   = 1000 // on each later photo
)

// freshFeatures computes (once) the fresh sheet's ORB features.
func freshFeatures(s *SheetImage) (*features, error) {
	if s.feat != nil {
		return s.feat, nil
	}
	s.feat = orbFeatures(s, freshFeatureCount)
	return s.feat, nil
}

// remnantFeatures is the denser feature set of the sheet s for registerRemnant (computed
// once, kept beside its features ff).
func remnantFeatures(s *SheetImage, ff *features) *features {
	if ff.remnant == nil {
		ff.remnant = orbFeatures(s, remnantFeatureCount)
	}
	return ff.remnant
}

// orbFeatures is the n strongest ORB features of the sheet s at featPxPerMM.
func orbFeatures(s *SheetImage, n int) *features {
	sz := frameSize(s.Paper, featPxPerMM)
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(s.Image, &gray, gocv.ColorBGRToGray)
	gocv.Resize(gray, &gray, sz, 0, 0, gocv.InterpolationArea)
	o := orb(n)
	defer o.Close()
	none := gocv.NewMat()
	defer none.Close()
	kps, desc := o.DetectAndCompute(gray, none)
	defer desc.Close()
	f := &features{desc: descBits(desc)}
	sx := float64(sz.X) / s.Paper.WidthMM
	sy := float64(sz.Y) / s.Paper.HeightMM
	for _, k := range kps {
		f.pts = append(f.pts, pt{(k.X + 0.5) / sx, (k.Y + 0.5) / sy})
	}
	return f
}

// Register maps a later photo of the same sheet (moved, turned, upside down, seen in
// perspective, torn) into fresh's sheet frame. It returns the registered SheetImage (Image is
// the photo warped into the frame, Mask the paper left, ResidualMM the alignment residual),
// or an error: ErrBlankFrame, ErrNoSheet, ErrSeveralSheets, ErrBadInput, or a
// *RegistrationError (wrapping ErrRegistration) when the alignment cannot be trusted. The
// caller closes the result.
func Register(fresh *SheetImage, photo gocv.Mat) (*SheetImage, error) {
	if fresh == nil || fresh.Image.Ptr() == nil || fresh.Image.Empty() {
		return nil, fmt.Errorf("%w: no fresh sheet", ErrBadInput)
	}
	bgr, done, err := checkPhoto(photo)
	if err != nil {
		return nil, err
	}
	defer done()
	tr := tracer()
	loc, err := locate(bgr, nil, regLong, false)
	tr("locate")
	if err != nil {
		return nil, err
	}
	if len(loc.regions) == 0 {
		return nil, ErrNoSheet
	}
	// Two sheets, as Fresh refuses them: the player's cannot be told from another.
	if err := severalSheetsIn(loc); err != nil {
		return nil, err
	}
	ff, err := freshFeatures(fresh)
	if err != nil {
		return nil, err
	}
	if len(ff.pts) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("fresh sheet has only %d features (too little ink)", len(ff.pts))}
	}
	out, err := registerOn(fresh, bgr, loc, ff, regMode{})
	if err == nil || !errors.Is(err, ErrRegistration) || (fresh.registered && !retryRegistered) {
		// Not against a registered sheet (the referee's fallback to the previous photo):
		// its own alignment error adds to this one, unseen (seed 5 case-009 lena-5.jpg, to
		// lena-4 accepted 1.16 mm off: the whole photo's features gave 1.36 mm).
		if err != nil && fresh.registered && errors.Is(err, ErrRegistration) && !errors.Is(err, ErrPaperMask) {
			// A remnant with too little ink for any alignment on it: its outline against
			// the previous photo's paper (regoutline.go).
			if o2, err2 := registerOutline(fresh, bgr, loc); err2 == nil {
				if out != nil {
					out.Close()
				}
				o2.Notes = append(o2.Notes, fmt.Sprintf("on the ink: %v", err))
				return o2, nil
			} else {
				if outlineRefusedHook != nil {
					outlineRefusedHook(err2)
				}
				// The refusal says why the outline gave no pose either (the ink's reason
				// alone hides it: held-out remnants refused as "only 3-9 features match").
				var re, ro *RegistrationError
				if errors.As(err, &re) && errors.As(err2, &ro) {
					why := ro.Reason
					if !strings.HasPrefix(why, "by the outline") {
						why = "by the outline: " + why
					}
					err = &RegistrationError{Reason: re.Reason + "; " + why, ResidualMM: re.ResidualMM}
				}
			}
		}
		return out, err
	}
	// The photo's features are looked for on what the colour models call paper. On a pale
	// table they can lose most of the sheet (seed 5 case-003 jun-3.jpg: the lower half, with
	// two of its three words, was "table", 6 features matched): once refused, the features
	// of the whole photo are tried, and that alignment passes every check or is refused.
	out2, err2 := registerOn(fresh, bgr, loc, ff, regMode{whole: true})
	if err2 != nil {
		if out2 != nil {
			out2.Close()
		}
		if !errors.Is(err2, ErrPaperMask) {
			// Then with the ink patches that bend the fit left out (trimPatches), and as a
			// remnant with too little ink for the features alone (registerRemnant). Each
			// alignment passes every check or is refused; the refusal said is the first.
			for _, m := range []regMode{{trim: true}, {remnant: true}, {remnant: true, corner: true}} {
				fm := ff
				if m.remnant {
					// A remnant shows a small part of the sheet, where few of the fresh
					// sheet's strongest features lie: its denser set (seed 6 case-013
					// dana-3: 42 matches, 25 consistent with a wrong affine map, 6 mm
					// off; 134 and 125 with the denser set, true error 0.42 mm).
					fm = remnantFeatures(fresh, ff)
				}
				out3, err3 := registerOn(fresh, bgr, loc, fm, m)
				if err3 == nil {
					if out != nil {
						out.Close()
					}
					out3.Notes = append(out3.Notes, fmt.Sprintf("%s (at first: %v)", m, err))
					return out3, nil
				}
				if out3 != nil {
					out3.Close()
				}
			}
			return out, err
		}
		// Aligned, but the paper mask contradicts the alignment: the photo's fault, said as
		// such (the referee does not register it to the previous photo instead).
		if out != nil {
			out.Close()
		}
		return nil, err2
	}
	if out != nil {
		out.Close()
	}
	out2.Notes = append(out2.Notes, fmt.Sprintf("features of the whole photo (on the paper only: %v)", err))
	return out2, nil
}

// regMode is how registerOn aligns: with the photo's features on its paper (the zero value)
// or on the whole photo (whole); with every ink patch RANSAC keeps, or without those that
// bend the fit (trim, trimPatches); from the features alone or as a remnant (remnant,
// registerRemnant, which trims; by its untorn corners, corner, registerCorner).
type regMode struct{ whole, trim, remnant, corner bool }

func (m regMode) String() string {
	switch {
	case m.corner:
		return "registered as a remnant by its untorn corner"
	case m.remnant:
		return "registered as a remnant"
	case m.trim:
		return "ink patches that bent the fit left out"
	case m.whole:
		return "features of the whole photo"
	}
	return "features on the paper"
}

// registerOn is Register after the photo's paper is located (loc) and the fresh sheet's
// features are known (ff): the features of the photo, matched to ff, then refined, masked
// and checked, as m says.
func registerOn(fresh *SheetImage, bgr gocv.Mat, loc *located, ff *features, m regMode) (*SheetImage, error) {
	tr := tracer()
	// Photo features at about featPxPerMM, masked to paper-coloured pixels.
	paperPx := 0.0
	for _, r := range loc.regions {
		paperPx += r.area
	}
	workPPM := math.Sqrt(paperPx / fresh.Paper.AreaMM2()) // work px per mm, underestimated when torn
	fs := featPxPerMM * 1.25 / workPPM * loc.scale        // feature px per photo px
	if fs > 1 {
		fs = 1
	}
	fw := int(math.Round(float64(bgr.Cols()) * fs))
	fh := int(math.Round(float64(bgr.Rows()) * fs))
	fs = float64(fw) / float64(bgr.Cols())
	pg := gocv.NewMat() // the photo in grey: features here, ink patches in refineH
	defer pg.Close()
	gocv.CvtColor(bgr, &pg, gocv.ColorBGRToGray)
	gray := pg // at full size (what resizing to the same size gives)
	if fw != pg.Cols() || fh != pg.Rows() {
		gray = gocv.NewMat()
		defer gray.Close()
		gocv.Resize(pg, &gray, image.Pt(fw, fh), 0, 0, gocv.InterpolationArea)
	}
	wm := newMask(loc.w, loc.h, loc.mask)
	defer wm.Close()
	fm := gocv.NewMat()
	defer fm.Close()
	gocv.Resize(wm, &fm, image.Pt(fw, fh), 0, 0, gocv.InterpolationNearestNeighbor)
	if m.whole {
		fm.SetTo(gocv.NewScalar(255, 0, 0, 0))
	} else {
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(15, 15))
		gocv.Dilate(fm, &fm, k)
		k.Close()
	}
	o := orb(photoFeatureCount)
	defer o.Close()
	tr("prep")
	kps, desc := o.DetectAndCompute(gray, fm)
	defer desc.Close()
	tr("orb")
	if len(kps) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("only %d features on the paper in the photo", len(kps))}
	}

	matches := knn2Hamming(descBits(desc), ff.desc)
	tr("match")
	var src, dst []pt // fresh mm, photo px
	for qi, m := range matches {
		if m.second < 0 || float64(m.d1) >= 0.8*float64(m.d2) {
			continue
		}
		src = append(src, ff.pts[m.first])
		kp := kps[qi]
		dst = append(dst, pt{(kp.X+0.5)/fs - 0.5, (kp.Y+0.5)/fs - 0.5})
	}
	if featMatchHook != nil {
		featMatchHook(m, src, dst)
	}
	if m.corner {
		return registerCorner(fresh, bgr, pg, loc, src, dst)
	}
	if m.remnant {
		return registerRemnant(fresh, bgr, pg, loc, src, dst, fs)
	}
	if len(src) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("only %d features match the fresh sheet", len(src))}
	}
	h, inl, ok := ransacHomography(src, dst, 3/fs)
	if !ok || len(inl) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("only %d consistent feature matches", len(inl))}
	}
	var is, id []pt
	for _, i := range inl {
		is, id = append(is, src[i]), append(id, dst[i])
	}
	if h2, ok := lsqHomography(is, id); ok {
		h = h2
	}
	tr("ransac")
	if err := checkHomography(h, fresh, bgr, is); err != nil {
		return nil, withMatches(err, len(is), len(src))
	}
	hi := h.inv()
	var se float64
	for i := range is {
		d := dist(hi.apply(id[i]), is[i])
		se += d * d
	}
	resid := math.Sqrt(se / float64(len(is)))
	// Refine on ink patches. No paper test: the work-resolution colour mask calls dark or
	// coloured ink, and paper on a pale table, "not paper", which left whole skills out;
	// a patch on paper torn away finds no match (normalised correlation under 0.7) or an
	// inconsistent one (RANSAC).
	paperOK := func(pt) bool { return true }
	h2, r2, npatch, pairs := refineH(fresh, pg, h, paperOK, false, m.trim)
	if npatch < minConfirmPatches {
		// Few patches: a small remnant. Try the denser point set from the better estimate.
		h0 := h
		if npatch >= 8 {
			h0 = h2
		}
		if h3, r3, n3, p3 := refineH(fresh, pg, h0, paperOK, true, m.trim); n3 > npatch {
			h2, r2, npatch, pairs = h3, r3, n3, p3
		}
	}
	if regDump != nil {
		regDump("orb", h, nil)
		regDump("refined", h2, pairs)
	}
	if npatch >= 8 {
		h, resid = h2, r2
	}
	tr("refine")
	notes := []string{fmt.Sprintf("registered on %d of %d feature matches, %d ink patches", len(is), len(src), len(pairs))}
	return checkAligned(fresh, bgr, loc, h, resid, npatch, pairs, is, notes)
}

// checkAligned is the rest of registerOn once the alignment h (fresh mm -> photo px) rests
// on the feature matches is (fresh mm) and the npatch ink patches (pairs; resid their RMS
// residual, mm): the paper mask, the lone-patch test, the checks of finishRegister, and the
// rescue by the joint ink and outline fit (outlineFit).
func checkAligned(fresh *SheetImage, bgr gocv.Mat, loc *located, h homog, resid float64, npatch int, pairs []pair, is []pt, notes []string) (*SheetImage, error) {
	tr := tracer()
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	mask, img, outlineMM, edgeMM, edgeAllMM, untorn, foreign, unknown, err := paperMaskInFrame(bgr, loc, h, fresh, is, pairs)
	tr("mask")
	if err != nil {
		return nil, err
	}
	// One ink patch far from the others that their fit misses: a wrong match the alignment
	// bent to, or the only patch holding it there (leverage.go). The untorn edges decide;
	// when they confirm neither alignment tightly, it is refused.
	var ambiguous error
	if alt, ok := leveragedAlternative(pairs); npatch >= 8 && ok {
		tight := func(e float64) bool { return !math.IsNaN(e) && e <= leverEdgeMM }
		ha, ok := pairsHomography(alt, -1)
		var aMask, aImg gocv.Mat
		var aOutline, aEdge, aEdgeAll float64
		var aUntorn []edgeSample
		var aForeign, aUnknown []byte
		aErr := errors.New("no alternative")
		if ok {
			aMask, aImg, aOutline, aEdge, aEdgeAll, aUntorn, aForeign, aUnknown, aErr = paperMaskInFrame(bgr, loc, ha, fresh, is, alt)
		}
		switch {
		case aErr == nil && tight(aEdge) && !tight(edgeMM):
			mask.Close()
			img.Close()
			h, resid, pairs, npatch = ha, pairsRMS(alt, ha), alt, len(alt)
			mask, img, outlineMM, edgeMM, edgeAllMM, untorn, foreign, unknown = aMask, aImg, aOutline, aEdge, aEdgeAll, aUntorn, aForeign, aUnknown
			notes = append(notes, "a lone ink patch the others do not confirm left out (the untorn edges agree)")
		case tight(edgeMM):
			if aErr == nil {
				aMask.Close()
				aImg.Close()
			}
		default:
			if aErr == nil {
				aMask.Close()
				aImg.Close()
			}
			ambiguous = &RegistrationError{Reason: fmt.Sprintf("the alignment far from the ink rests on one ink patch the others do not confirm, and the untorn edges confirm it neither with nor without it (off by %.2f and %.2f mm)", edgeMM, aEdge)}
		}
	}
	var edges []edgeSample
	if useOutlineGN && len(pairs)+len(edges) >= 12 {
		hn, rr, drop := gnRefine(h, pairs, edges, W, H, bgr.Cols(), bgr.Rows())
		if math.IsNaN(rr) {
			// keep the patch estimate
		} else {
			if drop > 0.35 {
				mask.Close()
				img.Close()
				return nil, &RegistrationError{Reason: fmt.Sprintf("ink and outline disagree (%.0f%% of the evidence off)", 100*drop), ResidualMM: rr}
			}
			if moved(h, hn, W, H) > 0.1 {
				mask.Close()
				img.Close()
				mask, img, outlineMM, edgeMM, edgeAllMM, _, foreign, unknown, err = paperMaskInFrame(bgr, loc, hn, fresh, is, pairs)
				if err != nil {
					return nil, err
				}
				tr("mask2")
			}
			h, resid = hn, rr
			notes = append(notes, fmt.Sprintf("outline refinement: %.0f%% of the evidence trimmed", 100*drop))
		}
	}
	if err := checkHomography(h, fresh, bgr, is); err != nil {
		mask.Close()
		img.Close()
		return nil, err
	}

	// Patches bunched in one word or along one line fix the homography only near them: they
	// count as no patches for the confirmation by the untorn edges.
	support := npatch
	if patchSpreadMM(pairs) < minPatchSpreadMM {
		support = 0
	}
	out, rerr := finishRegister(fresh, h, mask, img, foreign, notes, resid, outlineMM, edgeMM, edgeAllMM, support)
	if ambiguous != nil {
		return refused(out, ambiguous)
	}
	if rerr == nil || !errors.Is(rerr, ErrRegistration) || len(pairs) < 8 || len(untorn) < outlineMinSamples {
		if rerr != nil {
			return refused(out, rerr)
		}
		if err := inkOffPaper(out, pairs); err != nil {
			return nil, err
		}
		return markUnknown(fresh, out, unknown)
	}
	// Rescue: the ink patches fit but lie in a small or thin part of the sheet, and the
	// homography they fix is wrong far from them (the untorn edges say so).
	out2, _, fitted, err2 := outlineFit(fresh, bgr, loc, h, pairs, untorn, is, notes, npatch)
	if !fitted {
		return refused(out, rerr)
	}
	out.Close()
	return out2, err2
}

// outlineFit re-fits h to the ink patches (pairs) and the untorn edge samples together
// (Gauss-Newton, outline.go); the result must keep the patches within outlineInkMM, pass
// the side-by-side cross-check (outlineCrossChecks) and every check of finishRegister on a
// new mask. It returns the fitted homography and, when the fit passed (fitted), the
// registered sheet with its unknown region marked, or the photo's refusal (inkOffPaper,
// markUnknown: no sheet then); when it did not, why.
func outlineFit(fresh *SheetImage, bgr gocv.Mat, loc *located, h homog, pairs []pair, untorn []edgeSample, is []pt, notes []string, npatch int) (out *SheetImage, hn homog, fitted bool, err error) {
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	hn, rr, drop := gnRefine(h, pairs, untorn, W, H, bgr.Cols(), bgr.Rows())
	inkOK := !math.IsNaN(rr) && drop <= 0.2
	hni := hn.inv()
	var pse float64
	for _, p := range pairs {
		d := dist(hni.apply(p.v), p.u)
		pse += d * d
		if d > outlineInkMM {
			inkOK = false
		}
	}
	pairRMS := math.Sqrt(pse / float64(len(pairs)))
	// The evidence is the features and the untorn edges: together they must cover enough
	// of the sheet.
	ev := append([]pt(nil), is...)
	for _, e := range untorn {
		ev = append(ev, hni.apply(e.v))
	}
	if !inkOK {
		return nil, hn, false, &RegistrationError{Reason: fmt.Sprintf("ink patches and untorn edges disagree (%.0f%% of the evidence off, patches %.2f mm RMS)", 100*drop, pairRMS)}
	}
	if err := checkHomography(hn, fresh, bgr, ev); err != nil {
		return nil, hn, false, err
	}
	if !outlineCrossChecks(h, pairs, untorn, W, H, bgr.Cols(), bgr.Rows()) {
		return nil, hn, false, &RegistrationError{Reason: "a side left out disagrees with the fit of the rest"}
	}
	mask2, img2, outline2, edge2, edgeAll2, _, foreign2, unknown2, err := paperMaskInFrame(bgr, loc, hn, fresh, is, pairs)
	if err != nil {
		return nil, hn, false, err
	}
	notes2 := append(append([]string(nil), notes...), fmt.Sprintf("ink patches and untorn edges fitted together (%.0f%% of the evidence trimmed)", 100*drop))
	out2, rerr2 := finishRegister(fresh, hn, mask2, img2, foreign2, notes2, pairRMS, outline2, edge2, edgeAll2, npatch)
	if rerr2 != nil {
		out2.Close()
		return nil, hn, false, rerr2
	}
	if err := inkOffPaper(out2, pairs); err != nil {
		return nil, hn, true, err
	}
	if out2, err = markUnknown(fresh, out2, unknown2); err != nil {
		return out2, hn, true, err
	}
	// Pinned down on its own paper (every 2 mm)? Ink and untorn edges in one part of the
	// sheet can leave the alignment free far from them with every residual small (held-out
	// seed 10 case-020 mateo-5: a remnant's long strip reaching away from its one word and
	// its two untorn sides, registered 4.6 mm off at the strip's tip, the ink within 0.04 mm
	// and the edges within 0.00 mm). The remnant retry checked this; the rescue of a sheet
	// whose ink lies in a small part of it did not.
	sg := alignSigmaMM(hn, pairs, untorn, maskGrid(out2.Mask, out2.PxPerMM, 2), W, H, bgr.Cols(), bgr.Rows())
	if remnantHook != nil {
		remnantHook(fmt.Sprintf("sigma %.3f mm", sg), hn, nil, nil)
	}
	if sg > maxRemnantSigmaMM {
		out2.Close()
		return nil, hn, true, &RegistrationError{Reason: fmt.Sprintf("its ink and untorn edges leave the alignment free by %.2f mm (standard error) on its paper", sg)}
	}
	out2.Notes = append(out2.Notes, fmt.Sprintf("alignment standard error %.2f mm", sg))
	return out2, hn, true, nil
}

// refOffSide reports, per side, whether the fresh photo's own outline (ref: edgeSamples keys
// -> mm) departs from the side by more than edgeRefMM along most of it: the quadrilateral
// fitted to the fresh photo missed that side (seed 2 case-019 bo-0: its top side 1.27 mm
// inside the paper), and a later edge on the side is then off by as much, not consistent.
func refOffSide(ref map[int]float64, ppm float64) [4]bool {
	var n, off [4]int
	for k, r := range ref {
		n[k>>20]++
		if math.Abs(r+0.5/ppm) > edgeRefMM {
			off[k>>20]++
		}
	}
	var out [4]bool
	for s := range out {
		out[s] = n[s] >= minSideSamples && 2*off[s] > n[s]
	}
	return out
}

// withMatches adds the feature matches an alignment rested on to its refusal's reason.
func withMatches(err error, consistent, matched int) error {
	var re *RegistrationError
	if errors.As(err, &re) {
		re.Reason += fmt.Sprintf(" (%d of %d feature matches consistent)", consistent, matched)
	}
	return err
}

// outlineCrossChecks validates the joint ink and outline fit side by side: each side with
// at least outlineSideSamples untorn samples is left out, the rest fitted, and the side's
// own samples must then lie within outlineCheckMM of it (median) under that fit. A side whose
// mask is wrong (a band of paper lost to the table's colour) would otherwise pull the fit
// to itself and confirm it; left out, it disagrees with the ink and the other sides.
func outlineCrossChecks(h homog, pairs []pair, untorn []edgeSample, W, H float64, pw, ph int) bool {
	var n [4]int
	for _, e := range untorn {
		n[e.side]++
	}
	checked := 0
	for s := 0; s < 4; s++ {
		if n[s] < outlineSideSamples {
			continue
		}
		var rest, own []edgeSample
		for _, e := range untorn {
			if e.side == s {
				own = append(own, e)
			} else {
				rest = append(rest, e)
			}
		}
		g, rr, _ := gnRefine(h, pairs, rest, W, H, pw, ph)
		if math.IsNaN(rr) {
			return false
		}
		gi := g.inv()
		d := make([]float64, len(own))
		for i, e := range own {
			q := gi.apply(e.v)
			switch s {
			case 0:
				d[i] = math.Abs(q.Y)
			case 1:
				d[i] = math.Abs(q.X - W)
			case 2:
				d[i] = math.Abs(q.Y - H)
			case 3:
				d[i] = math.Abs(q.X)
			}
		}
		sort.Float64s(d)
		if d[len(d)/2] > outlineCheckMM {
			return false
		}
		checked++
	}
	return checked >= 2
}

// outlineSideSamples: a side needs this many untorn samples (mm) to be cross-checked;
// outlineCheckMM is the median distance its samples may keep from it when left out.
const (
	outlineSideSamples = 10
	outlineCheckMM     = 0.5
)

// patchSpreadMM is the smaller principal standard deviation (mm) of the ink patches' positions
// on the sheet: small when they lie in one word or along one line.
func patchSpreadMM(pairs []pair) float64 {
	if len(pairs) < 3 {
		return 0
	}
	var mx, my float64
	for _, p := range pairs {
		mx += p.u.X
		my += p.u.Y
	}
	n := float64(len(pairs))
	mx, my = mx/n, my/n
	var sxx, syy, sxy float64
	for _, p := range pairs {
		dx, dy := p.u.X-mx, p.u.Y-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	sxx, syy, sxy = sxx/n, syy/n, sxy/n
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	l := tr/2 - math.Sqrt(math.Max(tr*tr/4-det, 0))
	return math.Sqrt(math.Max(l, 0))
}

// minPatchSpreadMM: ink patches spread less than this (patchSpreadMM) need the untorn edges'
// confirmation as if there were none.
const minPatchSpreadMM = 15.0

// outlineMinSamples is the number of untorn edge samples (1 mm apart) the joint ink and
// outline fit needs; outlineInkMM how far it may move any ink patch from its match.
const (
	outlineMinSamples = 40
	outlineInkMM      = 0.15
)

// finishRegister builds the registered sheet from homography h and the mask, and refuses it
// (returning it with the error) when the residuals are too large (see Register).
func finishRegister(fresh *SheetImage, h homog, mask, img gocv.Mat, foreign []byte, notes []string, resid, outlineMM, edgeMM, edgeAllMM float64, npatch int) (*SheetImage, error) {
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	out := &SheetImage{PxPerMM: fresh.PxPerMM, Paper: fresh.Paper, H: [9]float64(h), paperLab: fresh.paperLab, Notes: notes, inkGray: freshGray(fresh), zone: freshZone(fresh), registered: true}
	for i, c := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		out.Corners[i] = h.apply(c).f32()
	}
	out.Mask, out.Image, out.foreign = mask, img, foreign
	out.Notes = append(out.Notes, fmt.Sprintf("ink residual %.2f mm, paper beyond the sheet's edge %.2f mm, untorn edges off by %.2f mm", resid, outlineMM, edgeMM))
	resid = math.Max(resid, outlineMM)
	if !math.IsNaN(edgeMM) {
		resid = math.Max(resid, edgeMM)
	}
	out.ResidualMM = math.Round(resid*1000) / 1000
	// With few ink patches, the untorn edges must confirm the alignment on every sample,
	// torn stretches included: the torn-stretch exclusion is only trusted beside the ink.
	unref := math.Max(out.ResidualMM, edgeAllMM)
	if npatch < minConfirmPatches && (unref > maxUnrefinedMM || math.IsNaN(edgeAllMM)) {
		return out, &RegistrationError{Reason: "too little ink matched at full resolution to confirm the alignment", ResidualMM: out.ResidualMM}
	}
	if out.ResidualMM > MaxResidualMM {
		return out, &RegistrationError{Reason: "alignment error too large", ResidualMM: out.ResidualMM}
	}
	return out, nil
}

// keepRefused (tests only) makes Register return the refused alignment with its error, so
// the synthetic harness can measure the true error of what was refused.
var keepRefused bool

// retryRegistered (tests only) lets Register retry on the whole photo's features against a
// registered sheet too.
var retryRegistered bool

// regDump (tests only) receives the homography after each stage and the ink-patch pairs.
var regDump func(stage string, h homog, pairs []pair)

// edgeDump (tests only) receives the untorn-edge samples of each registration.
var edgeDump func(offs []float64, keys []int, ref map[int]float64, spill, edge int)

func refused(out *SheetImage, err error) (*SheetImage, error) {
	if keepRefused {
		return out, err
	}
	out.Close()
	return nil, err
}

// pointsMat packs points as an Nx1 CV_32FC2 Mat.
func pointsMat(p []pt) gocv.Mat {
	b := make([]byte, 8*len(p))
	for i, q := range p {
		binary.LittleEndian.PutUint32(b[8*i:], math.Float32bits(float32(q.X)))
		binary.LittleEndian.PutUint32(b[8*i+4:], math.Float32bits(float32(q.Y)))
	}
	m, err := gocv.NewMatFromBytes(len(p), 1, gocv.MatTypeCV32FC2, b)
	if err != nil {
		panic(err)
	}
	return m
}

// ransacHomography fits src -> dst with OpenCV's RANSAC (deterministic: fixed seed).
func ransacHomography(src, dst []pt, thr float64) (homog, []int, bool) {
	s, d := pointsMat(src), pointsMat(dst)
	defer s.Close()
	defer d.Close()
	mask := gocv.NewMat()
	defer mask.Close()
	hm := gocv.FindHomography(s, &d, gocv.HomograpyMethodRANSAC, thr, &mask, 5000, 0.999)
	defer hm.Close()
	h, ok := homogOf(hm)
	if !ok {
		return h, nil, false
	}
	mb := mask.ToBytes()
	var inl []int
	for i, v := range mb {
		if v != 0 {
			inl = append(inl, i)
		}
	}
	return h, inl, true
}

func lsqHomography(src, dst []pt) (homog, bool) {
	s, d := pointsMat(src), pointsMat(dst)
	defer s.Close()
	defer d.Close()
	mask := gocv.NewMat()
	defer mask.Close()
	hm := gocv.FindHomography(s, &d, gocv.HomograpyMethodAllPoints, 0, &mask, 0, 0)
	defer hm.Close()
	return homogOf(hm)
}

// checkHomography refuses degenerate, mirrored or poorly supported alignments.
func checkHomography(h homog, fresh *SheetImage, photo gocv.Mat, inl []pt) error {
	if err := checkShape(h, fresh); err != nil {
		return err
	}
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	hull := convexHull(inl)
	if polyArea(hull) < 0.005*W*H {
		return &RegistrationError{Reason: "matching features cover too little of the sheet"}
	}
	return nil
}

// checkShape refuses degenerate, mirrored or impossibly foreshortened alignments.
func checkShape(h homog, fresh *SheetImage) error {
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	var q [4]pt
	for i, c := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		q[i] = h.apply(c)
		if math.IsNaN(q[i].X) || math.IsNaN(q[i].Y) {
			return &RegistrationError{Reason: "degenerate alignment"}
		}
	}
	if !convexQuad(q) || signedArea(q[:]) <= 0 {
		return &RegistrationError{Reason: "alignment folds or mirrors the sheet"}
	}
	// Sides may not shrink or grow by more than 3x relative to each other (perspective limit).
	var sides [4]float64
	for i := range sides {
		sides[i] = dist(q[i], q[(i+1)%4])
	}
	if sides[0]/sides[2] > 3 || sides[2]/sides[0] > 3 || sides[1]/sides[3] > 3 || sides[3]/sides[1] > 3 {
		return &RegistrationError{Reason: "alignment implies an impossible perspective"}
	}
	return nil
}

// paperMaskInFrame classifies paper against table at frame resolution (the photo warped into
// the sheet frame with a margin), keeps the paper blobs carrying the registration's inliers,
// and measures how far paper spills over the frame edge: the untorn outline should land on
// the frame's edge, so spilled area / edge length is an alignment error in mm. pairs are the
// ink patches h was fitted to (checkEdges: whether a side torn along its length may be left
// out of the untorn-edge check).
func paperMaskInFrame(bgr gocv.Mat, loc *located, h homog, fresh *SheetImage, inl []pt, pairs []pair) (gocv.Mat, gocv.Mat, float64, float64, float64, []edgeSample, []byte, []byte, error) {
	ppm := fresh.PxPerMM
	tr := tracer()
	warped := warpToFrame(bgr, h, fresh.Paper, ppm, marginMM)
	tr("m.warp")
	defer warped.Close()
	sz := frameSize(fresh.Paper, ppm)
	off := int(math.Round(marginMM * ppm))
	crop := warped.Region(image.Rect(off, off, off+sz.X, off+sz.Y))
	img := crop.Clone()
	crop.Close()
	fw, fhh := warped.Cols(), warped.Rows()
	// Outside the photo the warp is black; it is not paper, and it trains nothing.
	var valid []byte
	both(func() { gocv.GaussianBlur(warped, &warped, image.Pt(3, 3), 0, 0, gocv.BorderReflect101) },
		func() { valid = warpValid(bgr.Cols(), bgr.Rows(), h, fw, fhh, ppm, marginMM) })
	tr("m.blur")
	wb := u8view(warped) // read only, and not beyond this function (warped is closed then)
	// The table's colour (for the change test below) on one core while the colour test
	// runs on the other: they read the same pixels and write nothing the other reads.
	// A greyscale photo of a colour sheet (or a colour photo of a sheet photographed in
	// grey): the change test compares brightness only.
	var wbC []byte
	var grey bool
	var tf *tableColours
	tableDone := make(chan struct{})
	go func() {
		defer close(tableDone)
		wbC, grey = wb, isGrey(bgr) || fresh.greyImage()
		if grey {
			wbC = toGrey(wb)
		}
		tf = tableField(wbC, valid, fw, fhh, off, sz, ppm)
	}()
	defer func() { <-tableDone }() // before warped is closed, whatever the way out
	// The colour test, thresholded (prob: 255 paper, 0 not, 0 outside the photo), and its
	// confident paper (fgC: probability above 200, eroded by 4 mm), which trains the change
	// test's lighting.
	var prob, fgC []byte
	confK := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(4*ppm)|1, int(4*ppm)|1))
	defer confK.Close()
	// One pass over the frame: the colour look-up (paperProbBGR's), the threshold and the
	// confident pixels at once; the erosion in place in fgC (the Mat shares its bytes).
	lp := paperProb(cellLab(), loc.fg, loc.bg, 0.5)
	prob, fgC = make([]byte, fw*fhh), make([]byte, fw*fhh)
	split2(len(prob), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if valid[i] != 255 {
				continue
			}
			if v := lp[int(wb[3*i]>>3)<<10|int(wb[3*i+1]>>3)<<5|int(wb[3*i+2]>>3)]; v > 127 {
				prob[i] = 255
				if v > 200 {
					fgC[i] = 255
				}
			}
		}
	})
	tr("m.prob")
	cm, err := gocv.NewMatFromBytes(fhh, fw, gocv.MatTypeCV8UC1, fgC)
	if err != nil {
		panic(fmt.Sprintf("vision: NewMatFromBytes %dx%d: %v", fw, fhh, err)) // programming error
	}
	gocv.Erode(cm, &cm, confK)
	cm.Close()
	tr("m.local")
	// Inside the sheet, where the lighting can be estimated, the change test against the
	// fresh sheet decides (it handles shading and ink); the colour test stays for the margin.
	// Within 2 mm of the sheet's edge the colour test stays too: the fresh sheet's own edge
	// pixels are pure paper while a new photo's are blurred with the table, so the change
	// test would pull the untorn outline inwards, and the outline refinement needs the
	// same boundary rule on both sides of the frame's edge.
	tr("m.local2")
	if debugDir != "" {
		dm := newMask(fw, fhh, prob)
		gocv.IMWrite(debugDir+"/colourframe.png", dm)
		dm.Close()
	}
	<-tableDone
	tr("m.table")
	// What the occlusion test learns of the table from the band outside the sheet
	// (foreignPrep) needs no mask: on the other core while the change test makes it.
	var foreignRest func(mask []byte) []byte
	foreignDone := make(chan struct{})
	if fresh.refPending {
		close(foreignDone)
	} else {
		ftf := tf
		if grey {
			ftf = nil // the change test's table is grey; the occlusion test's is in colour
		}
		go func() {
			defer close(foreignDone)
			foreignRest = foreignPrep(wb, valid, fw, off, sz, ppm, ftf)
		}()
	}
	defer func() { <-foreignDone }() // before warped is closed, whatever the way out
	rounds := changeRounds
	if frameCut(prob, valid, fw, off, sz, ppm) {
		// Part of the sheet frame lies outside the photo: the lighting estimate must spread
		// farther, into the paper vignetted along the photo's edge (cutoff.go).
		rounds = cutChangeRounds
	}
	if cp := changePaper(fresh, wbC, fw, off, sz, fgC, prob, grey, tf, rounds); cp != nil {
		tr("m.changetest")
		// The change test calls a pixel that mixes paper and table "changed", which moves
		// a tear line outwards by about a pixel; next to the change test's paper, the
		// colour test (unbiased at the 50% point) decides instead.
		fillInk(cp, freshInk(fresh), freshInkHalo(fresh), sz, ppm, int(2*ppm))
		tr("m.fillink")
		grown := newMask(sz.X, sz.Y, cp)
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
		gocv.Dilate(grown, &grown, k)
		k.Close()
		gb := grown.ToBytes()
		grown.Close()
		e := int(2 * ppm)
		split2(sz.Y, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				i0 := (y+off)*fw + off
				cr, gr := cp[y*sz.X:(y+1)*sz.X], gb[y*sz.X:(y+1)*sz.X]
				pr, vr := prob[i0:i0+sz.X], valid[i0:i0+sz.X]
				for x := range cr {
					if cr[x] == 0 && gr[x] != 0 && pr[x] > 127 {
						cr[x] = 255
					}
				}
				inner := y >= e && y < sz.Y-e
				for x, c := range cr {
					if vr[x] != 255 {
						continue
					}
					if inner && x >= e && x < sz.X-e {
						pr[x] = c
					} else if c != 0 {
						// Near the edge, paper by either test: on a pale table the colour
						// test loses shaded paper, and the change test errs inwards only.
						pr[x] = 255
					}
				}
			}
		})
	}
	tr("m.union")
	// Paper never grows: where the reference sheet (a registered, torn sheet when the
	// referee falls back to the previous photo) has no paper, grown by a millimetre for the
	// alignment, the later photo has none either. Its table there would otherwise match the
	// reference's table as well as paper matches paper.
	if rb := refPaper(fresh, sz, ppm); rb != nil {
		for y := 0; y < sz.Y; y++ {
			i0 := (y+off)*fw + off
			pr := prob[i0 : i0+sz.X]
			for x, v := range rb[y*sz.X : (y+1)*sz.X] {
				if v == 0 {
					pr[x] = 0
				}
			}
		}
	}
	tr("m.change")
	if debugDir != "" {
		dm := newMask(fw, fhh, prob)
		gocv.IMWrite(debugDir+"/maskframe.png", dm)
		dm.Close()
		gocv.IMWrite(debugDir+"/warpframe.png", warped)
	}
	m := newMask(fw, fhh, prob)
	defer m.Close()
	tr("m.valid")
	morph(&m, 5, 9) // specks and thin strokes opened (ink outlines matching a dark table), ink closed
	tr("m.morph")
	// Keep blobs (8-connected) that carry inliers: found as row runs (maskRuns), votes per
	// blob's first run.
	mr := newMaskRuns(u8view(m), fw, fhh, true)
	votes := make([]int, len(mr.runs))
	total := 0
	for _, p := range inl {
		q := mmToPx(p, ppm)
		x, y := int(math.Round(q.X))+off, int(math.Round(q.Y))+off
		if x >= 0 && y >= 0 && x < fw && y < fhh {
			if r := mr.runAt(x, y); r >= 0 {
				votes[mr.find(r)]++
				total++
			}
		}
	}
	mb := make([]byte, fw*fhh)
	for r, rn := range mr.runs {
		if v := votes[mr.find(r)]; v > 0 && v*10 >= total {
			row := mb[rn.y*fw+rn.x0 : rn.y*fw+rn.x1]
			for x := range row {
				row[x] = 255
			}
		}
	}
	tr("m.cc")
	// Paper running into the part of the frame that lies outside the photo: the sheet is cut
	// off by the photo's edge, and what is beyond it cannot be measured.
	cutPx := 0
	full := make([]bool, fhh) // rows wholly inside the photo
	for y := range full {
		full[y] = bytes.IndexByte(valid[y*fw:(y+1)*fw], 0) < 0
	}
	for y := 1; y < fhh-1; y++ {
		if full[y-1] && full[y] && full[y+1] {
			continue // no pixel of the row (x from 1 to fw-2) has a neighbour outside the photo
		}
		for x := 1; x < fw-1; x++ {
			i := y*fw + x
			if mb[i] != 0 && (valid[i-1] != 255 || valid[i+1] != 255 || valid[i-fw] != 255 || valid[i+fw] != 255) {
				cutPx++
			}
		}
	}
	cut := float64(cutPx) > 5*ppm
	var zone []byte // the photo's edge zone (margin layout) when the photo cuts the sheet off
	if cut && fresh.refPending {
		// The fresh sheet's scale comes from its four corners: it must be seen whole.
		img.Close()
		return gocv.Mat{}, gocv.Mat{}, 0, 0, 0, nil, nil, nil, ErrSheetCutOff
	}
	if cut {
		// A later photo that cuts the sheet off: the part of the frame outside the photo
		// (and a margin inside its edge) is unknown, not torn off (cutoff.go).
		zone = photoEdgeZone(valid, fw, fhh, ppm)
		for i, v := range zone {
			if v != 0 {
				mb[i] = 0
			}
		}
	}
	fillSmallHoles(mb, fw, fhh, int(20*ppm*ppm))
	tr("m.holes")
	// Spill: paper in the 2 mm band just outside the sheet.
	spill := 0
	s2 := int(2 * ppm)
	for y := max(0, off-s2); y < min(fhh, off+sz.Y+s2); y++ {
		for x := max(0, off-s2); x < min(fw, off+sz.X+s2); x++ {
			if x == off && y >= off && y < off+sz.Y {
				x = off + sz.X - 1 // the sheet itself is no spill
				continue
			}
			if mb[y*fw+x] != 0 && (x < off || y < off || x >= off+sz.X || y >= off+sz.Y) {
				spill++
			}
		}
	}
	// Crop to the frame.
	out := make([]byte, sz.X*sz.Y)
	for y := 0; y < sz.Y; y++ {
		copy(out[y*sz.X:(y+1)*sz.X], mb[(y+off)*fw+off:(y+off)*fw+off+sz.X])
	}
	// Edge length still paper (untorn edge) approximated by mask pixels on the frame border.
	edge := 0
	for x := 0; x < sz.X; x++ {
		edge += b2i(out[x] != 0) + b2i(out[(sz.Y-1)*sz.X+x] != 0)
	}
	for y := 0; y < sz.Y; y++ {
		edge += b2i(out[y*sz.X] != 0) + b2i(out[y*sz.X+sz.X-1] != 0)
	}
	if fresh.refPending {
		// Fresh is measuring the fresh photo itself: its outline is the reference.
		_, offs, keys := edgeSamples(mb, fw, fhh, off, sz.X, sz.Y, ppm, h)
		fresh.edgeRef = make(map[int]float64, len(offs))
		for i, k := range keys {
			fresh.edgeRef[k] = offs[i]
		}
		fresh.spillRef = spill
	}
	// Against the fresh photo's own outline where it was measured: a curled corner or a
	// bowed side departs from the fitted quadrilateral in every photo of the sheet, and is
	// no registration error. (The fresh outline is measured by the same test.)
	if fresh.edgeRef != nil {
		spill = max(0, spill-fresh.spillRef)
	}
	outline := 0.0
	if edge > 0 {
		outline = float64(spill) / float64(edge) / ppm
	}
	// Untorn edges: where paper meets table within reach of a side, how far from the side.
	// The median over the sides is robust to the few samples that are really tear lines.
	es, offs, keys := edgeSamples(mb, fw, fhh, off, sz.X, sz.Y, ppm, h)
	if cut {
		// The photo's edge is no edge of the sheet: samples near it are left out.
		es, offs, keys = awayFromPhotoEdge(es, offs, keys, zone, fw, off, sz, ppm)
	}
	if edgeDump != nil {
		edgeDump(offs, keys, fresh.edgeRef, spill, edge)
	}
	untorn, edgeMM, edgeAllMM := checkEdges(fresh, h, es, offs, keys, pairs, out, bgr.Cols(), bgr.Rows())
	if edgeMM > MaxResidualMM && !fresh.refPending {
		// On the way to a refusal: the mask's boundary can run past the paper (a pale or
		// coloured desk the colour test calls paper) or stop short of it (a shaded band the
		// change test calls changed) while the photo shows the paper's edge plainly. The
		// samples are measured again on the photo's own colour step (photoEdges).
		es2, offs2 := photoEdges(wb, valid, fw, fhh, off, sz, ppm, h, keys, offs)
		u2, e2, a2 := checkEdges(fresh, h, es2, offs2, keys, pairs, out, bgr.Cols(), bgr.Rows())
		if photoEdgeHook != nil {
			photoEdgeHook(offs, offs2, keys, edgeMM, e2)
		}
		if e2 <= MaxResidualMM {
			untorn, edgeMM, edgeAllMM = u2, e2, a2
		}
	}
	tr("m.edges")
	var foreign []byte
	if <-foreignDone; foreignRest != nil {
		foreign = foreignRest(out)
		tr("m.foreign")
	}
	var unknown []byte // frame layout
	if zone != nil {
		unknown = make([]byte, sz.X*sz.Y)
		for y := 0; y < sz.Y; y++ {
			copy(unknown[y*sz.X:(y+1)*sz.X], zone[(y+off)*fw+off:(y+off)*fw+off+sz.X])
		}
	}
	return newMask(sz.X, sz.Y, out), img, outline, edgeMM, edgeAllMM, untorn, foreign, unknown, nil
}

// checkEdges is the untorn-edge check of a registration h (mm -> photo px): the edge samples
// (es, their signed offsets offs in mm and keys, from edgeSamples) against the frame's sides
// or the fresh photo's own outline, torn stretches left out (untornSamples), and sides torn
// along their whole length left out when the ink patches (pairs) and the rest pin the
// alignment down on the paper (frame mask bytes) of a photo pw x ph. It returns the untorn
// samples, the error edgeMM (the 90th percentile of the untorn samples, or a side's median)
// and edgeAllMM (the 90th percentile of every sample), NaN without 20 samples.
func checkEdges(fresh *SheetImage, h homog, es []edgeSample, offs []float64, keys []int, pairs []pair, paper []byte, pw, ph int) (untorn []edgeSample, edgeMM, edgeAllMM float64) {
	ppm := fresh.PxPerMM
	edgeMM, edgeAllMM = math.NaN(), math.NaN() // no untorn edge to check against
	if len(offs) < 20 {
		return nil, edgeMM, edgeAllMM
	}
	sg := make([]float64, len(offs)) // signed, positive inward
	a := make([]float64, len(offs))
	offSide := refOffSide(fresh.edgeRef, ppm)
	for i, o := range offs {
		sg[i] = o + 0.5/ppm
		// Where the fresh outline itself departs from the side (curl, a bowed side),
		// lying on either the side or that outline is consistent; where it departs
		// along most of the side, the fresh photo's quadrilateral missed that side, and
		// only its outline is (refOffSide).
		if r, ok := fresh.edgeRef[keys[i]]; ok && math.Abs(r+0.5/ppm) > edgeRefMM && (offSide[keys[i]>>20] || math.Abs(o-r) < math.Abs(sg[i])) {
			sg[i] = o - r
		}
		a[i] = math.Abs(sg[i])
	}
	var tilt float64 // the turn of the sides, as the last untornEdges found it (sideTiltMM)
	// untornEdges is the check with the sides in skip left out.
	untornEdges := func(skip [4]bool) (untorn []edgeSample, edgeMM float64) {
		kept, sideMed, keep := untornSamples(sg, keys, int(ppm), skip)
		tilt = sideTiltMM(sg, keys, int(ppm), keep)
		for i, k := range keep {
			// Where the fresh outline departs from the side, the side is no target.
			if r, ok := fresh.edgeRef[keys[i]]; k && (!ok || math.Abs(r+0.5/ppm) <= edgeRefMM) {
				untorn = append(untorn, es[i])
			}
		}
		edgeMM = edgeAllMM // too little untorn edge left to judge on its own
		if len(kept) >= 20 {
			sort.Float64s(kept)
			edgeMM = math.Max(kept[len(kept)*edgeQuantile/100], sideMed)
		}
		return untorn, edgeMM
	}
	sort.Float64s(a)
	edgeAllMM = a[len(a)*edgeQuantile/100]
	untorn, edgeMM = untornEdges([4]bool{})
	tilt0 := tilt
	// A side whose every sample lies well inside it, on a line that wanders, is a tear
	// line running along the whole side (no untorn millimetre of it left), not the side
	// misaligned: it is left out when the rest of the evidence pins the alignment down
	// on the paper. Only on the way to a refusal.
	if edgeMM > MaxResidualMM && len(pairs) >= minConfirmPatches && !fresh.refPending {
		if skip := wanderingSides(sg, keys, int(ppm)); skip != [4]bool{} {
			u2, e2 := untornEdges(skip)
			sz := frameSize(fresh.Paper, ppm)
			sgm := alignSigmaMM(h, pairs, u2, gridOf(paper, sz.X, sz.Y, ppm, 2), fresh.Paper.WidthMM, fresh.Paper.HeightMM, pw, ph)
			if wholeSideHook != nil {
				wholeSideHook(skip, e2, sgm)
			}
			if sgm <= maxRemnantSigmaMM {
				untorn, edgeMM = u2, e2
			} else {
				tilt = tilt0
			}
		}
	}
	// A side turned by the alignment is off by its most at its ends and by nothing midway:
	// its median and the percentile over every side understate it. Where the untorn edges
	// alone confirm an alignment (few ink patches, or patches in one word: edgeAllMM), the
	// turn counts (held-out seed 13 case-018 hana-5: a remnant's right side off from +1.0 to
	// -1.0 mm along its 110 mm, the percentile 0.50 mm, accepted 1.06 mm off on its paper).
	edgeAllMM = math.Max(edgeAllMM, tilt)
	return untorn, edgeMM, edgeAllMM
}

// sideTiltMM is the largest offset (mm) at either end of a side's untorn samples (keep) of
// the straight line through them (Theil-Sen: the median of the pairwise slopes, then the
// median intercept, so the few samples on a tear line the test missed do not tilt it): how
// far the alignment turns a side. sg, keys and step are untornSamples'; a side needs
// minTiltSamples samples over at least minTiltSpanMM.
func sideTiltMM(sg []float64, keys []int, step int, keep []bool) float64 {
	var t, v [4][]float64
	for i, o := range sg {
		if !keep[i] {
			continue
		}
		s := keys[i] >> 20
		t[s] = append(t[s], float64(keys[i]&(1<<20-1))/float64(step))
		v[s] = append(v[s], o)
	}
	worst := 0.0
	for s := range t {
		n := len(t[s])
		if n < minTiltSamples {
			continue
		}
		lo, hi := t[s][0], t[s][0]
		for _, x := range t[s] {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		if hi-lo < minTiltSpanMM {
			continue
		}
		// At most about 64 samples a side (every k-th): the pairwise slopes are n².
		k := (n + 63) / 64
		var slopes []float64
		for i := 0; i < n; i += k {
			for j := i + k; j < n; j += k {
				if dt := t[s][j] - t[s][i]; dt != 0 {
					slopes = append(slopes, (v[s][j]-v[s][i])/dt)
				}
			}
		}
		if len(slopes) == 0 {
			continue
		}
		sort.Float64s(slopes)
		b := slopes[len(slopes)/2]
		r := make([]float64, n)
		for i := range r {
			r[i] = v[s][i] - b*t[s][i]
		}
		sort.Float64s(r)
		a := r[n/2]
		worst = math.Max(worst, math.Max(math.Abs(a+b*lo), math.Abs(a+b*hi)))
	}
	return worst
}

// minTiltSamples and minTiltSpanMM: a side's untorn samples (1 mm apart) that show its turn
// (sideTiltMM).
const (
	minTiltSamples = 20
	minTiltSpanMM  = 20.0
)

// tornStepMM: an untorn-edge sample whose boundary lies more than this inside the outermost
// level of its side (and inside the side itself) is on a torn stretch. A tear only moves the
// boundary inwards, locally; a misregistration moves a whole side (or, turned, one end
// outwards), so the samples it displaces are not all inward of the side's own level.
const tornStepMM = 1.0

// tornSlope: an inward edge sample (more than tornStepMM inside the side) where the boundary
// runs at more than this slope to the side (mm per mm, over 2 mm either way) is on a tear
// line crossing towards the side. An untorn edge stays parallel to its side within a few
// hundredths under any misregistration the ink patches allow.
const tornSlope = 0.2

// untornSamples returns |offset| of the edge samples that are not on torn stretches. sg are
// signed offsets in mm (positive: the boundary inside the frame), keys side<<20|position,
// positions step apart per millimetre.
// Per side, the level is the third outermost offset (the 25th percentile on a short side):
// a side mostly torn keeps its few untorn millimetres as the level;
// samples more than tornStepMM inside both that level and the side itself are left out, and
// so are samples more than tornStepMM inside the side where the boundary is steep
// (tornSlope): a short stretch of tear line running towards the side. The sides in skip
// are left out whole (wanderingSides).
func untornSamples(sg []float64, keys []int, step int, skip [4]bool) (kept []float64, sideMed float64, keep []bool) {
	pos := make(map[int]float64, len(sg)) // key -> offset
	for i, v := range sg {
		pos[keys[i]] = v
	}
	steep := func(i int) bool {
		a, okA := pos[keys[i]-2*step]
		b, okB := pos[keys[i]+2*step]
		switch {
		case okA && okB:
			return math.Abs(b-a)/4 > tornSlope
		case okA:
			return math.Abs(sg[i]-a)/2 > tornSlope
		case okB:
			return math.Abs(b-sg[i])/2 > tornSlope
		}
		return false
	}
	var bySide [4][]float64
	for i, v := range sg {
		s := keys[i] >> 20
		bySide[s] = append(bySide[s], v)
	}
	var lim [4]float64
	for s := range bySide {
		v := append([]float64(nil), bySide[s]...)
		sort.Float64s(v)
		lim[s] = math.Inf(1)
		if len(v) > 0 {
			lim[s] = math.Max(v[min(len(v)/4, 2)], 0) + tornStepMM
		}
	}
	var side [4][]float64
	keep = make([]bool, len(sg))
	for i, v := range sg {
		if skip[keys[i]>>20] || v > lim[keys[i]>>20] || (v > tornStepMM && steep(i)) {
			continue
		}
		keep[i] = true
		kept = append(kept, math.Abs(v))
		side[keys[i]>>20] = append(side[keys[i]>>20], math.Abs(v))
	}
	// A short untorn stretch is too few samples to move the percentile over all sides, so
	// each side's own median counts too (the rest of a sheet mostly torn away).
	sideMed = 0
	for _, v := range side {
		if len(v) >= minSideSamples {
			sort.Float64s(v)
			sideMed = math.Max(sideMed, v[len(v)/2])
		}
	}
	return kept, sideMed, keep
}

// tornWanderMM: a side whose edge samples depart from their own straight line by more than
// this (RMS) wanders: a tear line, not the sheet's cut edge, which any alignment the ink
// allows maps to a line within hundredths of a millimetre (the mask's boundary is found to
// the pixel, 0.25 mm).
const tornWanderMM = 0.25

// wanderingSides reports the sides that are a tear line along their whole length: at least
// outlineSideSamples samples, every one more than tornStepMM inside the side (a tear only
// moves the boundary inwards; a misalignment moves a whole side, or turns it, along a straight
// line), and not on a straight line (tornWanderMM). sg, keys and step are untornSamples'.
// Such a side says nothing of the alignment, but it is the only evidence of a misalignment
// when the rest does not pin the alignment down: the caller leaves it out only when the
// alignment's standard error on the paper from the rest (alignSigmaMM) is small.
func wanderingSides(sg []float64, keys []int, step int) [4]bool {
	var t, v [4][]float64
	for i, o := range sg {
		s := keys[i] >> 20
		t[s] = append(t[s], float64(keys[i]&(1<<20-1))/float64(step))
		v[s] = append(v[s], o)
	}
	var out [4]bool
	for s := range out {
		n := float64(len(v[s]))
		if len(v[s]) < outlineSideSamples || slices.Min(v[s]) <= tornStepMM {
			continue
		}
		// Least-squares line v = a + b t, and the RMS of the samples about it.
		var st, sv, stt, stv float64
		for i := range v[s] {
			st += t[s][i]
			sv += v[s][i]
			stt += t[s][i] * t[s][i]
			stv += t[s][i] * v[s][i]
		}
		d := n*stt - st*st
		if d <= 0 {
			continue
		}
		b := (n*stv - st*sv) / d
		a := (sv - b*st) / n
		var se float64
		for i := range v[s] {
			r := v[s][i] - a - b*t[s][i]
			se += r * r
		}
		out[s] = math.Sqrt(se/n) > tornWanderMM
	}
	return out
}

// wholeSideHook (tests only) receives, when wanderingSides finds sides, the untorn edges'
// error without them and the alignment's standard error on the paper from the rest.
var wholeSideHook func(skip [4]bool, edgeMM, sigmaMM float64)

// minSideSamples: a side with this many untorn samples (mm) has its own median checked.
const minSideSamples = 5

// moved is the largest displacement, in mm, between two homographies over the sheet.
func moved(a, b homog, W, H float64) float64 {
	bi := b.inv()
	m := 0.0
	for _, p := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}, {W / 2, H / 2}} {
		m = math.Max(m, dist(bi.apply(a.apply(p)), p))
	}
	return m
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// warpValid marks frame pixels (fw x fh, with margin) whose source lies inside the photo:
// the photo's rectangle mapped back into the frame, shrunk by a pixel, filled.
func warpValid(pw, ph int, h homog, fw, fh int, ppm, margin float64) []byte {
	hi := h.inv()
	var poly []image.Point
	for _, c := range []pt{{1, 1}, {float64(pw) - 2, 1}, {float64(pw) - 2, float64(ph) - 2}, {1, float64(ph) - 2}} {
		mm := hi.apply(c)
		q := pt{(mm.X+margin)*ppm - 0.5, (mm.Y+margin)*ppm - 0.5}
		if math.IsNaN(q.X) || math.IsInf(q.X, 0) || math.IsNaN(q.Y) || math.IsInf(q.Y, 0) {
			return make([]byte, fw*fh) // the photo's edge crosses the horizon: trust nothing
		}
		q.X, q.Y = clampf(q.X, -1e5, 1e5), clampf(q.Y, -1e5, 1e5)
		poly = append(poly, q.img())
	}
	m := gocv.NewMatWithSize(fh, fw, gocv.MatTypeCV8UC1)
	defer m.Close()
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{poly})
	defer pv.Close()
	gocv.FillPoly(&m, pv, colorRGBA(255, 255, 255))
	return m.ToBytes()
}

// fillSmallHoles fills holes (non-paper areas enclosed by paper, found with the contour
// hierarchy) smaller than maxPx pixels: ink blots and specks the classifier missed. Larger
// holes are real (a piece torn out of the middle) and stay.
func fillSmallHoles(mb []byte, w, h, maxPx int) {
	m := newMask(w, h, mb)
	defer m.Close()
	hier := gocv.NewMat()
	defer hier.Close()
	cs := gocv.FindContoursWithParams(m, &hier, gocv.RetrievalCComp, gocv.ChainApproxSimple)
	defer cs.Close()
	hv := int32s(hier) // per contour: next, previous, first child, parent
	var small [][]image.Point
	for i := 0; i < cs.Size(); i++ {
		if 4*i+3 >= len(hv) || hv[4*i+3] < 0 {
			continue // an outer boundary, not a hole
		}
		c := cs.At(i)
		if gocv.ContourArea(c) < float64(maxPx) {
			small = append(small, c.ToPoints())
		}
	}
	if len(small) == 0 {
		return
	}
	pv := gocv.NewPointsVectorFromPoints(small)
	defer pv.Close()
	gocv.FillPoly(&m, pv, colorRGBA(255, 255, 255))
	copy(mb, m.ToBytes())
}

// freshInk is the fresh sheet's ink at frame resolution (255 = ink): pixels clearly darker
// than the paper around them (adaptive threshold over a 6 mm window). Cached.
// freshGray is the fresh sheet's grey image (cached; shared, never written).
func freshGray(fresh *SheetImage) []byte {
	if fresh.inkGray != nil {
		return fresh.inkGray
	}
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(fresh.Image, &gray, gocv.ColorBGRToGray)
	fresh.inkGray = gray.ToBytes()
	return fresh.inkGray
}

func freshInk(fresh *SheetImage) []byte {
	if fresh.ink == nil {
		fresh.ink = paperInk(fresh, 20)
	}
	return fresh.ink
}

// paperInk is s's ink on its paper (frame layout, 255): pixels of its image darker than the
// mean of a 6 mm window by c grey levels (OpenCV's adaptive threshold), where its mask is
// paper. Only on the paper: a registered (torn) sheet serving as the reference shows the
// table where paper is gone, and a dark table beside a tear line is no ink.
func paperInk(s *SheetImage, c float32) []byte {
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(s.Image, &gray, gocv.ColorBGRToGray)
	th := gocv.NewMat()
	defer th.Close()
	gocv.AdaptiveThreshold(gray, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*s.PxPerMM)|1, c)
	ink := th.ToBytes()
	if !s.Mask.Empty() && s.Mask.Rows() == th.Rows() && s.Mask.Cols() == th.Cols() {
		mb := s.Mask.ToBytes()
		for j := range ink {
			if mb[j] == 0 {
				ink[j] = 0
			}
		}
	}
	return ink
}

// edgeQuantile is the percentile of untorn-edge offsets reported as the outline residual: high
// enough that one misaligned side shows, low enough that tear lines ending on a side do not.
const edgeQuantile = 90

// edgeRefMM: where the fresh photo's own outline lies farther than this from the frame's
// side, later photos' untorn edges are compared with that outline instead of the side.
const edgeRefMM = 0.5

// fillInk settles the fresh sheet's ink and the halo around it by their surroundings. Dark
// ink matches a dark table about as well as it matches itself, and next to a stroke the
// prediction interval (the fresh sheet's 5x5 min..max) spans ink to paper, so a table of
// any shade in between passes as paper there: letters on a torn-away piece would stay as
// "ghost" paper. So first every pixel of the halo (within inkHaloPx of fresh ink, not ink
// itself) where at least two thirds of the pixels outside the halo within 3 mm are not
// paper becomes not paper (a letter on a torn-away piece); elsewhere, beside a tear line
// through the writing, the change test stays. Then every ink pixel takes the state that
// dominates the non-ink pixels within a millimetre (inkDecide). Letters on the paper stay
// paper; letters on a torn-away piece go with the table around them. Pixels within edgeBand
// of the frame's edge are left alone: the fresh sheet's own edge often reads as "ink" (a
// sliver of table), and the untorn-edge check needs the boundary as measured.
func fillInk(cp, ink, halo []byte, sz image.Point, ppm float64, edgeBand int) {
	// Outside the halo: paper and table counted over the window. One box filter of table
	// (255) minus twice paper (-510) per pixel, written straight into the Mat: its sum is
	// positive exactly where the table's count exceeds twice the paper's (the sums are
	// integers; their scale to the window's mean keeps the sign).
	tm := gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV16S)
	defer tm.Close()
	t, err := tm.DataPtrInt16()
	if err != nil {
		panic(fmt.Sprintf("vision: DataPtrInt16: %v", err)) // programming error
	}
	split2(len(cp), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			switch {
			case halo[j] != 0:
			case cp[j] != 0:
				t[j] = -510
			default:
				t[j] = 255
			}
		}
	})
	tf := gocv.NewMat()
	defer tf.Close()
	w := int(6*ppm) | 1
	gocv.BoxFilter(tm, &tf, int(gocv.MatTypeCV32F), image.Pt(w, w))
	tb := f32view(tf) // read before tf is closed
	split2(max(0, sz.Y-2*edgeBand), func(r0, r1 int) {
		for y := edgeBand + r0; y < edgeBand+r1; y++ {
			row := halo[y*sz.X : (y+1)*sz.X-edgeBand]
			for x := edgeBand; x < len(row); x++ {
				if row[x] == 0 {
					// Outside the halo (most of the sheet): on to its next pixel (255).
					k := bytes.IndexByte(row[x:], 255)
					if k < 0 {
						break
					}
					x += k
				}
				// More than two thirds of the pixels outside the halo are table.
				if j := y*sz.X + x; ink[j] == 0 && cp[j] != 0 && tb[j] > 0 {
					cp[j] = 0
				}
			}
		}
	})
	inkDecide(cp, ink, sz, ppm)
}

// refPaper is the reference sheet's paper (Mask) grown by a millimetre (a 2 mm disk), as
// bytes over the frame sz, or nil when it has no mask of that size or is paper everywhere
// (a fresh sheet): then nothing is excluded. Cached on the sheet.
func refPaper(fresh *SheetImage, sz image.Point, ppm float64) []byte {
	if fresh.Mask.Empty() || fresh.Mask.Rows() != sz.Y || fresh.Mask.Cols() != sz.X {
		return nil
	}
	if fresh.refGrown != nil || fresh.refAll {
		return fresh.refGrown
	}
	rm := fresh.Mask.Clone()
	if len(fresh.unknown) == sz.X*sz.Y {
		// A reference that cut the sheet off: its unknown region may be paper.
		rb := rm.ToBytes()
		for i, v := range fresh.unknown {
			if v != 0 {
				rb[i] = 255
			}
		}
		rm.Close()
		rm = newMask(sz.X, sz.Y, rb)
	}
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(int(2*ppm)|1, int(2*ppm)|1))
	gocv.Dilate(rm, &rm, k)
	k.Close()
	rb := rm.ToBytes()
	rm.Close()
	if bytes.IndexByte(rb, 0) < 0 {
		fresh.refAll = true
		return nil
	}
	fresh.refGrown = rb
	return rb
}

// inkHaloPx is the halo fillInk examines around the fresh sheet's ink (px).
const inkHaloPx = 3

// freshInkHalo is freshInk dilated by a disk of inkHaloPx (255 = within the halo or ink).
// Cached.
func freshInkHalo(fresh *SheetImage) []byte {
	if fresh.inkHalo != nil {
		return fresh.inkHalo
	}
	im := newMask(fresh.Image.Cols(), fresh.Image.Rows(), freshInk(fresh))
	defer im.Close()
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*inkHaloPx+1, 2*inkHaloPx+1))
	gocv.Dilate(im, &im, k)
	k.Close()
	fresh.inkHalo = im.ToBytes()
	return fresh.inkHalo
}

// inkDecide settles the fresh sheet's ink pixels by their surroundings. Dark ink matches a
// dark table about as well as it matches itself, so the change test is no evidence there:
// each ink pixel takes the state (paper or not) that dominates the non-ink pixels within
// a millimetre. Letters on the paper stay paper; letters on a torn-away piece go with the table.
func inkDecide(cp, ink []byte, sz image.Point, ppm float64) {
	pm, qm := gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV8UC1), gocv.NewMatWithSize(sz.Y, sz.X, gocv.MatTypeCV8UC1)
	defer pm.Close()
	defer qm.Close()
	p, q := u8view(pm), u8view(qm)
	split2(len(cp), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			if ink[j] != 0 {
				continue
			}
			if cp[j] != 0 {
				p[j] = 255
			} else {
				q[j] = 255
			}
		}
	})
	k := int(2*ppm) | 1
	both(func() { gocv.Blur(pm, &pm, image.Pt(k, k)) }, func() { gocv.Blur(qm, &qm, image.Pt(k, k)) })
	pb, qb := u8view(pm), u8view(qm) // read before pm and qm are closed
	for j := 0; j < len(cp); j++ {
		if ink[j] == 0 {
			// Not ink (most pixels): on to the next ink pixel (255).
			k := bytes.IndexByte(ink[j:], 255)
			if k < 0 {
				break
			}
			j += k
		}
		if pb[j] != 0 || qb[j] != 0 {
			if pb[j] >= qb[j] {
				cp[j] = 255
			} else {
				cp[j] = 0
			}
		}
	}
}

// featMatchHook (tests only) receives registerOn's feature matches (fresh mm, photo px).
var featMatchHook func(m regMode, src, dst []pt)
