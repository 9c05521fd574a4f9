package vision

import (
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// refineQuad moves each side of a quadrilateral found at work resolution onto the paper's
// edge in the full-resolution photo: along the side's normal, the sub-pixel position of the
// strongest brightness step is found at about 60 places, and the side is re-fitted to them by
// total least squares (twice, dropping points more than a pixel off). The corners are the
// intersections of the refined sides. A side with too few clear edge points is looked for
// again at three times the reach (refineSides), and otherwise keeps its old position. reach is
// how far (photo px) from the old side an edge may be.
//
// straight is false when the refined sides do not meet where the old corners were: a corner whose
// two sides were both found but meet farther from it than refineSides moves a corner (three
// times the reach) is left where it was, off both refined sides, so the quadrilateral's sides
// bend there (a blob whose hull took in a bright patch of table at a corner: its fitted side
// tilted, refined where it lay within reach and left bent at the corner).
// found is how many sides were found (the others kept their old lines).
func refineQuad(bgr gocv.Mat, q [4]pt, reach float64) (out [4]pt, straight bool, found int) {
	return refineSides(bgr, q, [4]float64{reach, reach, reach, reach}, false)
}

// refineSides is refineQuad with a reach per side (side s runs from q[s] to q[s+1]); with
// clip, a profile whose outer part leaves the photo is cut at the photo's edge instead of
// skipped, so a side lying within reach of the photo's edge (where the work image's blur hid a
// strip of table) is found too (clearOfFrame). straight and found are refineQuad's.
func refineSides(bgr gocv.Mat, q [4]pt, reaches [4]float64, clip bool) (out [4]pt, straight bool, found int) {
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(bgr, &gray, gocv.ColorBGRToGray)
	gocv.GaussianBlur(gray, &gray, imagePt(5, 5), 1.0, 1.0, gocv.BorderReflect101)
	g := gray.ToBytes()
	w, h := gray.Cols(), gray.Rows()
	at := func(x, y float64) (float64, bool) {
		if x < 0 || y < 0 || x > float64(w-1)-1e-9 || y > float64(h-1)-1e-9 {
			return 0, false
		}
		x0, y0 := int(x), int(y)
		fx, fy := x-float64(x0), y-float64(y0)
		i := y0*w + x0
		v := (1-fx)*(1-fy)*float64(g[i]) + fx*(1-fy)*float64(g[i+1]) + (1-fx)*fy*float64(g[i+w]) + fx*fy*float64(g[i+w+1])
		return v, true
	}
	center := q[0].add(q[1]).add(q[2]).add(q[3]).mul(0.25)
	var lines [4]line
	var okLine [4]bool
	var sideEdges [4][]pt   // edge points kept per side, in order along the side
	var falls, steps [4]int // per side, edge points, and those where the grey level falls outward
	// side looks for side s's edge within reach px of it; with sign (+1 or -1) only a step
	// whose grey level rises (+1) or falls (-1) outward counts. The side is found when at
	// least 15 edge points, and at least share of the profiles taken, lie on one line.
	side := func(s int, reach, sign, share float64) {
		a, b := q[s], q[(s+1)%4]
		L := dist(a, b)
		dir := b.sub(a).mul(1 / L)
		n := pt{-dir.Y, dir.X}
		if n.dot(lerp(a, b, 0.5).sub(center)) < 0 {
			n = n.mul(-1)
		}
		const step = 0.5
		k := int(reach / step)
		var edge []pt
		taken := 0
		prof := make([]float64, 2*k+1)
		for t := 0.08; t <= 0.92; t += 0.014 {
			p := lerp(a, b, t)
			ok, end := true, 2*k+1 // the profile is prof[:end]
			for j := -k; j <= k && ok; j++ {
				prof[j+k], ok = at(p.X+n.X*float64(j)*step, p.Y+n.Y*float64(j)*step)
				if !ok && clip && j > -k/2 { // the outer part (the side may lie past the photo's last pixel centre)
					ok, end = true, j+k
					break
				}
			}
			if !ok {
				continue
			}
			taken++
			// Derivative along the outward normal; paper (inside) is usually brighter, but a
			// dark-on-light case works too: take the strongest step either way (or of the
			// sign asked for).
			best, bestJ := 0.0, 0
			for j := 1; j < end-1; j++ {
				d := prof[j+1] - prof[j-1]
				if math.Abs(d) > math.Abs(best) && d*sign >= 0 {
					best, bestJ = d, j
				}
			}
			if math.Abs(best) < 6 || bestJ <= 1 || bestJ >= end-2 {
				continue
			}
			d0 := prof[bestJ] - prof[bestJ-2]
			d2 := prof[bestJ+2] - prof[bestJ]
			off := 0.0
			if den := d0 - 2*best + d2; den != 0 {
				off = clampf(0.5*(d0-d2)/den, -1, 1)
			}
			pos := (float64(bestJ-k) + off) * step
			edge = append(edge, p.add(n.mul(pos)))
			steps[s]++
			if best < 0 {
				falls[s]++
			}
		}
		if len(edge) < 15 {
			return
		}
		ln, _ := fitLineTLS(edge)
		for round := 0; round < 2; round++ {
			var keep []pt
			for _, p := range edge {
				if math.Abs(ln.dist(p)) < 1.0+1.0*float64(1-round) {
					keep = append(keep, p)
				}
			}
			if len(keep) < 15 {
				break
			}
			ln, _ = fitLineTLS(keep)
			edge = keep
		}
		if len(edge) >= 15 && float64(len(edge)) >= share*float64(taken) {
			lines[s], okLine[s] = ln, true
			sideEdges[s] = edge
		}
	}
	for s := 0; s < 4; s++ {
		side(s, reaches[s], 0, 0)
	}
	if !clip {
		// A side with no clear edge within reach may lie farther off: a blob that stopped
		// short of the sheet's side where shading made the paper near it the table's colour
		// (seed 6 case-007 ines-0, a pale desk: 6-9 px inside), or that took in the sheet's
		// shadow along it (GrabCut, seed 10 case-019 lena-0: 13 px outside). It is looked
		// for again at three times the reach, as a step the way the sides found step (paper
		// brighter or darker than what lies outside it; the shadow's outer edge steps the
		// other way), and must then be a straight edge along most of its length (on the
		// synthetic sets a true side's retry keeps 60 of 60 profiles; a side that the
		// opening of splitSheet cut across the writing kept 19 and 30: ink edges in line).
		nfound, fall := 0, 0
		for s := 0; s < 4; s++ {
			if okLine[s] {
				nfound++
				if 2*falls[s] > steps[s] {
					fall++
				}
			}
		}
		if sign := 1.0; nfound >= 2 && (fall == nfound || fall == 0) {
			if fall > 0 {
				sign = -1
			}
			for s := 0; s < 4; s++ {
				if !okLine[s] {
					falls[s], steps[s] = 0, 0
					if side(s, 3*reaches[s], sign, 0.75); okLine[s] {
						reaches[s] *= 3
					}
				}
			}
		}
	}
	// A sheet that curls or waves is not quite straight from corner to corner: re-fit each
	// corner from the quarter of each of its two sides nearest to it, when both have enough
	// edge points, so the corner sits on the paper's real corner.
	local := func(s int, atStart bool) (line, bool) {
		e := sideEdges[s]
		n := len(e) / 4
		if !okLine[s] || n < 8 {
			return line{}, false
		}
		if atStart {
			return trimmedLine(e[:n]), true
		}
		return trimmedLine(e[len(e)-n:]), true
	}
	out, straight = q, true
	for s := range okLine {
		if okLine[s] {
			found++
		}
	}
	var localCorner [4]pt
	var localOK [4]bool
	for s := 0; s < 4; s++ {
		l1, ok1 := local((s+3)%4, false) // previous side ends at corner s
		l2, ok2 := local(s, true)        // side s starts at corner s
		if ok1 && ok2 {
			localCorner[s], localOK[s] = intersect(l1, l2)
		}
	}
	for s := 0; s < 4; s++ {
		l1, l2 := lines[(s+3)%4], lines[s]
		if !okLine[(s+3)%4] {
			l1, _ = fitLineTLS([]pt{q[(s+3)%4], q[s]})
		}
		if !okLine[s] {
			l2, _ = fitLineTLS([]pt{q[s], q[(s+1)%4]})
		}
		p, met := intersect(l1, l2)
		if met && dist(p, q[s]) < 3*math.Max(reaches[s], reaches[(s+3)%4]) {
			out[s] = p
			if localOK[s] && dist(localCorner[s], p) < 0.02*dist(q[s], q[(s+2)%4]) {
				out[s] = localCorner[s]
			}
		} else if okLine[s] && okLine[(s+3)%4] {
			straight = false
		}
	}
	if !convexQuad(out) {
		return q, straight, found
	}
	return out, straight, found
}

// Canny thresholds of locateEdges, on the blurred grey image at workLong (grey levels).
const (
	edgeCannyLow  = 10
	edgeCannyHigh = 30
)

// locateEdges is the last fallback of Fresh, after the colour models and GrabCut: the regions
// enclosed by the photo's brightness edges. Shading can make one part of a sheet exactly the
// colour of the table elsewhere (seed 2 case-015: a pale blue-grey table bright at the bottom,
// the sheet darkened at the top; the shaded paper and the table beside it are 172 and 176 in
// Lab L with the same a, b), so no colour model, GrabCut's included, separates them. The
// sheet's outline is still a step all round. Canny edges on the work image, dilated by a
// pixel to close one-pixel gaps, cut the image into regions; those reached from the image
// border are table; each other region is filled (writing inside it left its own edges) and
// its outline fitted as pickSheet's blobs are. A region stops two or three work pixels inside
// the step (the edge pixel and the dilation): refineQuad needs the reach. The caller must check the quad's sides the way
// it checks GrabCut's (minSideStep): an edge-bounded region is anything with an outline.
func locateEdges(photo gocv.Mat) *located {
	scale := float64(workLong) / float64(max(photo.Cols(), photo.Rows()))
	if scale > 1 {
		scale = 1
	}
	w := int(math.Round(float64(photo.Cols()) * scale))
	h := int(math.Round(float64(photo.Rows()) * scale))
	scale = float64(w) / float64(photo.Cols())
	g := gocv.NewMat()
	defer g.Close()
	gocv.CvtColor(photo, &g, gocv.ColorBGRToGray)
	gocv.Resize(g, &g, imagePt(w, h), 0, 0, gocv.InterpolationArea)
	gocv.GaussianBlur(g, &g, imagePt(3, 3), 0, 0, gocv.BorderReflect101)
	e := gocv.NewMat()
	defer e.Close()
	gocv.Canny(g, &e, edgeCannyLow, edgeCannyHigh)
	k := gocv.GetStructuringElement(gocv.MorphRect, imagePt(3, 3))
	gocv.Dilate(e, &e, k)
	k.Close()
	eb := e.ToBytes()
	// Inside = not an edge and not reached from the border through non-edge pixels.
	in := make([]byte, w*h)
	for i, v := range eb {
		if v == 0 {
			in[i] = 255
		}
	}
	var stack []int
	push := func(i int) {
		if in[i] == 255 {
			in[i] = 0
			stack = append(stack, i)
		}
	}
	for x := 0; x < w; x++ {
		push(x)
		push((h-1)*w + x)
	}
	for y := 0; y < h; y++ {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	m := newMask(w, h, in)
	defer m.Close()
	// Fill each region's holes (writing on the sheet leaves its own edges inside it), but
	// not a hole most of the region's size: the shadow beside a sheet's side is a ring of its
	// own around the sheet, and filled it would take the sheet and its shadow for one blob.
	// Larger regions are drawn first, so a sheet inside a ring's hole is drawn after it.
	hier := gocv.NewMat()
	defer hier.Close()
	cs := gocv.FindContoursWithParams(m, &hier, gocv.RetrievalCComp, gocv.ChainApproxSimple)
	defer cs.Close()
	filled := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), h, w, gocv.MatTypeCV8UC1)
	defer filled.Close()
	minArea := 0.01 * float64(w*h)
	var outers []int
	area := make([]float64, cs.Size())
	for i := 0; i < cs.Size(); i++ {
		area[i] = gocv.ContourArea(cs.At(i))
		if hier.GetVeciAt(0, i)[3] < 0 && area[i] >= minArea {
			outers = append(outers, i)
		}
	}
	sort.Slice(outers, func(a, b int) bool { return area[outers[a]] > area[outers[b]] })
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 0}
	for _, i := range outers {
		gocv.DrawContours(&filled, cs, i, white, -1)
		for c := int(hier.GetVeciAt(0, i)[2]); c >= 0; c = int(hier.GetVeciAt(0, c)[0]) {
			if area[c] > 0.5*area[i] {
				gocv.DrawContours(&filled, cs, c, black, -1)
			}
		}
	}
	l := &located{scale: scale, w: w, h: h, mask: filled.ToBytes()}
	l.regions = findRegions(filled, l.mask, w, h, true)
	return l
}
