package vision

import (
	"math"
	"sort"
)

// Outline refinement.
//
// Ink pins the homography down where there is ink; the sheet's untorn edges pin it down along
// the sheet's outline, which is where misalignment turns into false slivers of "removed"
// paper. After the patch refinement, the paper mask (warped with a margin) is sampled every
// millimetre along each side of the frame: where paper meets table within edgeReachMM of the
// side, that boundary point should lie exactly on the side. The homography is then re-fitted
// by Gauss-Newton to both kinds of evidence (patch correspondences: a point must land on its
// point; edge samples: a point must land on its line), with the worst residuals trimmed, and
// the RMS of what is left is the registration residual.

const edgeReachMM = 6.0

// edgeSample is a paper/table boundary point seen near side s (0 top y=0, 1 right x=W,
// 2 bottom y=H, 3 left x=0), in photo px.
type edgeSample struct {
	side int
	v    pt
}

// edgeSamples finds the boundary points along the frame's sides in the margin mask mb
// (fw x fh, frame offset off px, frame sz), mapping them to photo px with h (mm -> photo).
func edgeSamples(mb []byte, fw, fh, off int, w, hgt int, ppm float64, h homog) ([]edgeSample, []float64, []int) {
	reach := int(edgeReachMM * ppm)
	at := func(x, y int) bool {
		if x < 0 || y < 0 || x >= fw || y >= fh {
			return false
		}
		return mb[y*fw+x] != 0
	}
	var out []edgeSample
	var offs []float64 // signed offsets in mm (positive: boundary inside the frame)
	var keys []int     // side<<20 | position along it (px): the same sample on another photo
	step := int(ppm)
	skip := int(5 * ppm)
	for side := 0; side < 4; side++ {
		length := w
		if side%2 == 1 {
			length = hgt
		}
		for t := skip; t < length-skip; t += step {
			// base point on the side (margin coordinates) and inward normal
			var bx, by, nx, ny int
			switch side {
			case 0:
				bx, by, nx, ny = off+t, off, 0, 1
			case 1:
				bx, by, nx, ny = off+w-1, off+t, -1, 0
			case 2:
				bx, by, nx, ny = off+t, off+hgt-1, 0, -1
			case 3:
				bx, by, nx, ny = off, off+t, 1, 0
			}
			best := math.MaxInt
			for k := -reach; k <= reach; k++ {
				x, y := bx+nx*k, by+ny*k
				// transition: outside (k-1) not paper, inside (k) paper, and it holds for 2 mm
				if at(x, y) && !at(x-nx, y-ny) {
					ok := true
					for j := 1; j <= 2*step && ok; j++ {
						ok = at(x+nx*j, y+ny*j) && !at(x-nx*(j+1), y-ny*(j+1))
					}
					if ok && abs(k) < abs(best) {
						best = k
					}
				}
			}
			if best == math.MaxInt {
				continue
			}
			// boundary between pixel k-1 and k: half a pixel outward of pixel k's centre
			fx := float64(bx+nx*best) - 0.5*float64(nx) - float64(off)
			fy := float64(by+ny*best) - 0.5*float64(ny) - float64(off)
			mm := pt{(fx + 0.5) / ppm, (fy + 0.5) / ppm}
			out = append(out, edgeSample{side: side, v: h.apply(mm)})
			offs = append(offs, (float64(best)-0.5)/ppm)
			keys = append(keys, side<<20|t)
		}
	}
	return out, offs, keys
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// gnRefine re-fits h (mm -> photo px) to patch pairs and edge samples. It returns the new
// homography, the RMS residual in mm of the evidence kept, and the fraction of evidence
// trimmed as outliers.
func gnRefine(h homog, pairs []pair, edges []edgeSample, paperW, paperH float64, photoW, photoH int) (homog, float64, float64) {
	// Normalise: photo px -> [-1,1], mm -> [-1,1]; solve for G' = M G N^-1 (photo -> mm).
	ps := float64(max(photoW, photoH)) / 2
	N := homog{1 / ps, 0, -float64(photoW) / 2 / ps, 0, 1 / ps, -float64(photoH) / 2 / ps, 0, 0, 1}
	ms := math.Max(paperW, paperH) / 2
	M := homog{1 / ms, 0, -paperW / 2 / ms, 0, 1 / ms, -paperH / 2 / ms, 0, 0, 1}
	G := M.mul(h.inv()).mul(N.inv())
	for i := range G {
		G[i] /= G[8]
	}
	type obs struct {
		v    pt // normalised photo
		u    pt // normalised mm target (pairs)
		side int
		line float64 // normalised coordinate of the side (edges)
		edge bool
		keep bool
	}
	var os []obs
	for _, p := range pairs {
		os = append(os, obs{v: N.apply(p.v), u: M.apply(p.u), keep: true})
	}
	for _, e := range edges {
		var line float64
		switch e.side {
		case 0:
			line = M.apply(pt{0, 0}).Y
		case 1:
			line = M.apply(pt{paperW, 0}).X
		case 2:
			line = M.apply(pt{0, paperH}).Y
		case 3:
			line = M.apply(pt{0, 0}).X
		}
		os = append(os, obs{v: N.apply(e.v), side: e.side, line: line, edge: true, keep: true})
	}
	if len(os) < 8 {
		return h, math.NaN(), 0
	}
	we := 1.0
	if len(edges) > 0 {
		we = math.Min(1, math.Sqrt(2*float64(max(len(pairs), 8))/float64(len(edges))))
	}
	resid := func(g homog, o obs) (float64, float64, int) { // residuals (normalised), count
		q := g.apply(o.v)
		if !o.edge {
			return q.X - o.u.X, q.Y - o.u.Y, 2
		}
		if o.side%2 == 0 {
			return q.Y - o.line, 0, 1
		}
		return q.X - o.line, 0, 1
	}
	solve := func(g homog) homog {
		for it := 0; it < 6; it++ {
			var JtJ [8][8]float64
			var Jtr [8]float64
			for _, o := range os {
				if !o.keep {
					continue
				}
				w := 1.0
				if o.edge {
					w = we
				}
				r0, r1, n := resid(g, o)
				var J [2][8]float64
				for k := 0; k < 8; k++ {
					gk := g
					eps := 1e-6
					gk[k] += eps
					a0, a1, _ := resid(gk, o)
					J[0][k] = (a0 - r0) / eps
					J[1][k] = (a1 - r1) / eps
				}
				rs := [2]float64{r0, r1}
				for d := 0; d < n; d++ {
					for a := 0; a < 8; a++ {
						Jtr[a] += w * J[d][a] * rs[d]
						for b := 0; b < 8; b++ {
							JtJ[a][b] += w * J[d][a] * J[d][b]
						}
					}
				}
			}
			for a := 0; a < 8; a++ {
				JtJ[a][a] *= 1 + 1e-6
				JtJ[a][a] += 1e-12
			}
			dx, ok := solveGauss(rowsOf(JtJ[:], func(r *[8]float64) []float64 { return r[:] }), Jtr[:])
			if !ok {
				break
			}
			for k := 0; k < 8; k++ {
				g[k] -= dx[k]
			}
		}
		return g
	}
	G = solve(G)
	// Trim: drop evidence more than max(3 x median, 0.4 mm) off, then solve again.
	errMM := func(g homog, o obs) float64 {
		r0, r1, _ := resid(g, o)
		return math.Hypot(r0, r1) * ms
	}
	es := make([]float64, len(os))
	for i, o := range os {
		es[i] = errMM(G, o)
	}
	sorted := append([]float64(nil), es...)
	sort.Float64s(sorted)
	cut := math.Max(3*sorted[len(sorted)/2], 0.4)
	dropped := 0
	for i := range os {
		if es[i] > cut {
			os[i].keep = false
			dropped++
		}
	}
	G = solve(G)
	var se float64
	n := 0
	for _, o := range os {
		if o.keep {
			e := errMM(G, o)
			se += e * e
			n++
		}
	}
	hn := M.inv().mul(G).mul(N).inv()
	for i := range hn {
		hn[i] /= hn[8]
	}
	return hn, math.Sqrt(se / float64(max(n, 1))), float64(dropped) / float64(len(os))
}

// solveGauss solves the n x n system A x = b (A given as n rows of n) by Gaussian elimination
// with partial pivoting; false when A is singular. A and b are overwritten. Used by the outline
// refinement (8 unknowns) and the outline registration (9: the homography and the torn edges'
// offset).
func solveGauss(A [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	x := make([]float64, n)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		if math.Abs(A[p][c]) < 1e-18 {
			return x, false
		}
		A[c], A[p] = A[p], A[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			f := A[r][c] / A[c][c]
			for k := c; k < n; k++ {
				A[r][k] -= f * A[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	for c := n - 1; c >= 0; c-- {
		s := b[c]
		for k := c + 1; k < n; k++ {
			s -= A[c][k] * x[k]
		}
		x[c] = s / A[c][c]
	}
	return x, true
}

// rowsOf gives the rows of a fixed-size square matrix as slices sharing its storage.
func rowsOf[T any](rows []T, row func(*T) []float64) [][]float64 {
	out := make([][]float64, len(rows))
	for i := range rows {
		out[i] = row(&rows[i])
	}
	return out
}
