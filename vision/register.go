package vision

import (
	"encoding/binary"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"tearcam/template"
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

const (
	featPxPerMM = 3.0 // feature image resolution: handwriting strokes stay 1-2 px wide
	// MaxResidualMM is the registration residual above which Register refuses.
	MaxResidualMM = 2.0
	// DoubtResidualMM is the residual above which Measure adds a doubt.
	DoubtResidualMM = 1.0
	minInliers      = 15
	marginMM        = 8.0 // frame margin examined around the sheet for outline agreement
)

type features struct {
	pts    []pt // keypoints, sheet-frame mm
	desc   gocv.Mat
	refine []pt // refinement patch centres, frame px
}

func (f *features) close() { closeMat(&f.desc) }

func orb() gocv.ORB {
	return gocv.NewORBWithParams(3000, 1.2, 8, 15, 0, 2, gocv.ORBScoreTypeHarris, 31, 12)
}

// freshFeatures computes (once) the fresh sheet's ORB features.
func freshFeatures(s *SheetImage) (*features, error) {
	if s.feat != nil {
		return s.feat, nil
	}
	sz := frameSize(s.Paper, featPxPerMM)
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(s.Image, &gray, gocv.ColorBGRToGray)
	gocv.Resize(gray, &gray, sz, 0, 0, gocv.InterpolationArea)
	o := orb()
	defer o.Close()
	none := gocv.NewMat()
	defer none.Close()
	kps, desc := o.DetectAndCompute(gray, none)
	f := &features{desc: desc}
	sx := float64(sz.X) / s.Paper.WidthMM
	sy := float64(sz.Y) / s.Paper.HeightMM
	for _, k := range kps {
		f.pts = append(f.pts, pt{(k.X + 0.5) / sx, (k.Y + 0.5) / sy})
	}
	s.feat = f
	return f, nil
}

// Register maps a later photo of the same sheet (moved, turned, upside down, seen in
// perspective, torn) into fresh's sheet frame. It returns the registered SheetImage (Image is
// the photo warped into the frame, Mask the paper left, ResidualMM the alignment residual),
// or an error: ErrBlankFrame, ErrNoSheet, ErrBadInput, or a *RegistrationError (wrapping
// ErrRegistration) when the alignment cannot be trusted. The caller closes the result.
func Register(fresh *SheetImage, photo gocv.Mat) (*SheetImage, error) {
	if fresh == nil || fresh.Image.Ptr() == nil || fresh.Image.Empty() {
		return nil, fmt.Errorf("%w: no fresh sheet", ErrBadInput)
	}
	bgr, err := checkPhoto(photo)
	if err != nil {
		return nil, err
	}
	defer bgr.Close()
	loc, err := locate(bgr, nil)
	if err != nil {
		return nil, err
	}
	if len(loc.regions) == 0 {
		return nil, ErrNoSheet
	}
	ff, err := freshFeatures(fresh)
	if err != nil {
		return nil, err
	}
	if len(ff.pts) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("fresh sheet has only %d features (too little ink)", len(ff.pts))}
	}

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
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(bgr, &gray, gocv.ColorBGRToGray)
	gocv.Resize(gray, &gray, image.Pt(fw, fh), 0, 0, gocv.InterpolationArea)
	wm := newMask(loc.w, loc.h, loc.mask)
	defer wm.Close()
	fm := gocv.NewMat()
	defer fm.Close()
	gocv.Resize(wm, &fm, image.Pt(fw, fh), 0, 0, gocv.InterpolationNearestNeighbor)
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(15, 15))
	gocv.Dilate(fm, &fm, k)
	k.Close()
	o := orb()
	defer o.Close()
	kps, desc := o.DetectAndCompute(gray, fm)
	defer desc.Close()
	if len(kps) < minInliers {
		return nil, &RegistrationError{Reason: fmt.Sprintf("only %d features on the paper in the photo", len(kps))}
	}

	bf := gocv.NewBFMatcherWithParams(gocv.NormHamming, false)
	defer bf.Close()
	matches := bf.KnnMatch(desc, ff.desc, 2)
	var src, dst []pt // fresh mm, photo px
	for _, m := range matches {
		if len(m) < 2 || m[0].Distance >= 0.8*m[1].Distance {
			continue
		}
		src = append(src, ff.pts[m[0].TrainIdx])
		kp := kps[m[0].QueryIdx]
		dst = append(dst, pt{(kp.X+0.5)/fs - 0.5, (kp.Y+0.5)/fs - 0.5})
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
	if err := checkHomography(h, fresh, bgr, is); err != nil {
		return nil, err
	}
	hi := h.inv()
	var se float64
	for i := range is {
		d := dist(hi.apply(id[i]), is[i])
		se += d * d
	}
	resid := math.Sqrt(se / float64(len(is)))
	// Refine on patches that are paper in the photo (work-resolution mask).
	paperOK := func(p pt) bool {
		q := loc.toWork(h.apply(pxToMM(p, fresh.PxPerMM)))
		x, y := int(math.Round(q.X)), int(math.Round(q.Y))
		return x >= 0 && y >= 0 && x < loc.w && y < loc.h && loc.mask[y*loc.w+x] != 0
	}
	if h2, r2, n := refineH(fresh, bgr, h, paperOK); n >= 8 {
		h, resid = h2, r2
	}

	out := &SheetImage{PxPerMM: fresh.PxPerMM, Paper: fresh.Paper, H: [9]float64(h), paperLab: fresh.paperLab}
	W, H := fresh.Paper.WidthMM, fresh.Paper.HeightMM
	for i, c := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		out.Corners[i] = h.apply(c).f32()
	}
	out.Notes = append(out.Notes, fmt.Sprintf("registered on %d of %d feature matches", len(is), len(src)))
	mask, outlineMM, err := paperMaskInFrame(bgr, loc, h, fresh, is)
	if err != nil {
		return nil, err
	}
	out.Mask = mask
	out.Notes = append(out.Notes, fmt.Sprintf("feature residual %.2f mm, outline residual %.2f mm", resid, outlineMM))
	if outlineMM > resid {
		resid = outlineMM
	}
	out.ResidualMM = math.Round(resid*1000) / 1000
	if out.ResidualMM > MaxResidualMM {
		out.Close()
		return nil, &RegistrationError{Reason: "alignment error too large", ResidualMM: out.ResidualMM}
	}
	out.Image = warpToFrame(bgr, h, fresh.Paper, fresh.PxPerMM, 0)
	return out, nil
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
	hull := convexHull(inl)
	if polyArea(hull) < 0.04*W*H {
		return &RegistrationError{Reason: "matching features cover too little of the sheet"}
	}
	return nil
}

// paperMaskInFrame classifies paper against table at frame resolution (the photo warped into
// the sheet frame with a margin), keeps the paper blobs carrying the registration's inliers,
// and measures how far paper spills over the frame edge: the untorn outline should land on
// the frame's edge, so spilled area / edge length is an alignment error in mm.
func paperMaskInFrame(bgr gocv.Mat, loc *located, h homog, fresh *SheetImage, inl []pt) (gocv.Mat, float64, error) {
	ppm := fresh.PxPerMM
	warped := warpToFrame(bgr, h, fresh.Paper, ppm, marginMM)
	defer warped.Close()
	gocv.GaussianBlur(warped, &warped, image.Pt(3, 3), 0, 0, gocv.BorderReflect101)
	lab := labBytes(warped)
	prob := paperProb(lab, loc.fg, loc.bg, 0.5)
	// Outside the photo the warp is black; it is not paper.
	fw, fhh := warped.Cols(), warped.Rows()
	valid := warpValid(bgr.Cols(), bgr.Rows(), h, fresh.Paper, ppm, marginMM)
	for i := range prob {
		if prob[i] > 127 && valid[i] == 255 {
			prob[i] = 255
		} else {
			prob[i] = 0
		}
	}
	m := newMask(fw, fhh, prob)
	defer m.Close()
	morph(&m, 3, 9) // ink strokes (< 2 mm) closed, specks opened
	// Keep blobs that carry inliers.
	labels := gocv.NewMat()
	defer labels.Close()
	n := gocv.ConnectedComponentsWithParams(m, &labels, 8, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	votes := make([]int, n)
	off := int(math.Round(marginMM * ppm))
	for _, p := range inl {
		q := mmToPx(p, ppm)
		x, y := int(math.Round(q.X))+off, int(math.Round(q.Y))+off
		if x >= 0 && y >= 0 && x < fw && y < fhh {
			votes[labels.GetIntAt(y, x)]++
		}
	}
	keep := make([]bool, n)
	total := 0
	for i := 1; i < n; i++ {
		total += votes[i]
	}
	for i := 1; i < n; i++ {
		keep[i] = votes[i] > 0 && votes[i]*10 >= total
	}
	lb := labels.ToBytes()
	mb := make([]byte, fw*fhh)
	for i := range mb {
		l := int32(binary.LittleEndian.Uint32(lb[4*i:]))
		if keep[l] {
			mb[i] = 255
		}
	}
	fillSmallHoles(mb, fw, fhh, int(20*ppm*ppm))
	// Spill: paper in the margin band.
	sz := frameSize(fresh.Paper, ppm)
	spill := 0
	for y := 0; y < fhh; y++ {
		for x := 0; x < fw; x++ {
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
	outline := 0.0
	if edge > 0 {
		outline = float64(spill) / float64(edge) / ppm
	}
	return newMask(sz.X, sz.Y, out), outline, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// warpValid marks frame pixels (with margin) whose source lies inside the photo.
func warpValid(pw, ph int, h homog, paper template.Paper, ppm, margin float64) []byte {
	white := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), ph, pw, gocv.MatTypeCV8UC1)
	defer white.Close()
	v := warpToFrame(white, h, paper, ppm, margin)
	defer v.Close()
	return v.ToBytes()
}

// fillSmallHoles fills background blobs enclosed by paper smaller than maxPx pixels.
func fillSmallHoles(mb []byte, w, h, maxPx int) {
	inv := make([]byte, len(mb))
	for i, v := range mb {
		if v == 0 {
			inv[i] = 255
		}
	}
	m := newMask(w, h, inv)
	defer m.Close()
	labels, stats, cents := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer cents.Close()
	n := gocv.ConnectedComponentsWithStatsWithParams(m, &labels, &stats, &cents, 4, gocv.MatTypeCV32S, gocv.CCL_DEFAULT)
	fill := make([]bool, n)
	for i := 1; i < n; i++ {
		x, y := int(stats.GetIntAt(i, 0)), int(stats.GetIntAt(i, 1))
		bw, bh := int(stats.GetIntAt(i, 2)), int(stats.GetIntAt(i, 3))
		area := int(stats.GetIntAt(i, 4))
		touches := x == 0 || y == 0 || x+bw == w || y+bh == h
		fill[i] = !touches && area < maxPx
	}
	lb := labels.ToBytes()
	for i := range mb {
		if fill[int32(binary.LittleEndian.Uint32(lb[4*i:]))] {
			mb[i] = 255
		}
	}
}
