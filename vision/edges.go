package vision

import (
	"math"

	"gocv.io/x/gocv"
)

// refineQuad moves each side of a quadrilateral found at work resolution onto the paper's
// edge in the full-resolution photo: along the side's normal, the sub-pixel position of the
// strongest brightness step is found at about 60 places, and the side is re-fitted to them by
// total least squares (twice, dropping points more than a pixel off). The corners are the
// intersections of the refined sides. Sides with too few clear edge points keep their old
// position. reach is how far (photo px) from the old side an edge may be.
func refineQuad(bgr gocv.Mat, q [4]pt, reach float64) [4]pt {
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
	var sideEdges [4][]pt // edge points kept per side, in order along the side
	for s := 0; s < 4; s++ {
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
		prof := make([]float64, 2*k+1)
		for t := 0.08; t <= 0.92; t += 0.014 {
			p := lerp(a, b, t)
			ok := true
			for j := -k; j <= k && ok; j++ {
				prof[j+k], ok = at(p.X+n.X*float64(j)*step, p.Y+n.Y*float64(j)*step)
			}
			if !ok {
				continue
			}
			// Derivative along the outward normal; paper (inside) is usually brighter, but a
			// dark-on-light case works too: take the strongest step either way, consistent
			// in sign with the majority decided below.
			best, bestJ := 0.0, 0
			for j := 1; j < 2*k; j++ {
				d := prof[j+1] - prof[j-1]
				if math.Abs(d) > math.Abs(best) {
					best, bestJ = d, j
				}
			}
			if math.Abs(best) < 6 || bestJ <= 1 || bestJ >= 2*k-1 {
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
		}
		if len(edge) < 15 {
			continue
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
		if len(edge) >= 15 {
			lines[s], okLine[s] = ln, true
			sideEdges[s] = edge
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
	out := q
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
		if p, ok := intersect(l1, l2); ok && dist(p, q[s]) < 3*reach {
			out[s] = p
			if localOK[s] && dist(localCorner[s], p) < 0.02*dist(q[s], q[(s+2)%4]) {
				out[s] = localCorner[s]
			}
		}
	}
	if !convexQuad(out) {
		return q
	}
	return out
}
