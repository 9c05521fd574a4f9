package vision

import (
	"image"
	"math"
)

// The paper's edge in the photo itself.
//
// The untorn-edge check reads the paper mask's boundary, and the mask can be wrong where the
// photo is not: on a pale or coloured desk the colour test takes a band of desk beside the
// sheet for paper (seed 6 case-019 hana-4.jpg, a pink desk: the left side 1.5-2 mm outside
// the frame's side along its whole length, true error 0.07 mm, refused at 1.25 mm). Before
// such a refusal, each sample is measured again on the photo's colour step across the side.

// photoEdgeRun is the number of pixels (frame px) averaged on each side of a step, and
// photoEdgeAlong the half-width (px) of the strip along the side averaged into one profile.
const (
	photoEdgeRun   = 3
	photoEdgeAlong = 2
)

// photoEdgeMinStep is the least colour step (Euclidean, 8-bit BGR) taken for the paper's edge.
const photoEdgeMinStep = 12.0

// photoEdges measures again, on the photo warped into the frame (wb: BGR, fw x fh with a
// margin of off px; valid: inside the photo), the edge samples keys (edgeSamples' keys, with
// their offsets offs in mm). Along each sample's normal (within edgeReachMM of the side), the
// paper's edge is the strongest colour step whose inner side is brighter than its outer side
// and whose outer side looks like the table at the far end of the normal (not ink: a stroke
// near the side steps back to paper within a millimetre); its position is refined to a tenth
// of a pixel (a parabola through the step's strength). Where no such step is found, or the
// normal leaves the photo, the mask's sample stays. It returns the samples (photo px, by h)
// and their offsets (mm, positive inward).
func photoEdges(wb, valid []byte, fw, fh, off int, sz image.Point, ppm float64, h homog, keys []int, offs []float64) ([]edgeSample, []float64) {
	reach := int(edgeReachMM * ppm)
	lo, hi := -reach-photoEdgeRun-1, reach+photoEdgeRun
	n := hi - lo + 1
	prof := make([][3]float64, n)
	strength := make([]float64, n)
	es := make([]edgeSample, len(keys))
	out := make([]float64, len(keys))
	for i, key := range keys {
		side, t := key>>20, key&(1<<20-1)
		var bx, by, nx, ny, tx, ty int
		switch side {
		case 0:
			bx, by, nx, ny, tx = off+t, off, 0, 1, 1
		case 1:
			bx, by, nx, ny, ty = off+sz.X-1, off+t, -1, 0, 1
		case 2:
			bx, by, nx, ny, tx = off+t, off+sz.Y-1, 0, -1, 1
		default:
			bx, by, nx, ny, ty = off, off+t, 1, 0, 1
		}
		k := (offs[i]*ppm + 0.5) // the mask's boundary, px from the side
		if profileAt(wb, valid, fw, fh, bx, by, nx, ny, tx, ty, lo, prof) {
			if kk, found := strongestStep(prof, strength, lo, reach); found {
				k = kk
			}
		}
		out[i] = (k - 0.5) / ppm
		fx := float64(bx) + float64(nx)*k - 0.5*float64(nx) - float64(off)
		fy := float64(by) + float64(ny)*k - 0.5*float64(ny) - float64(off)
		es[i] = edgeSample{side: side, v: h.apply(pt{(fx + 0.5) / ppm, (fy + 0.5) / ppm})}
	}
	return es, out
}

// profileAt fills prof with the mean colour, across 2*photoEdgeAlong+1 pixels along the side
// (tx, ty), at each step lo, lo+1, ... along the inward normal (nx, ny) from (bx, by); not ok
// when any pixel lies outside the frame or the photo.
func profileAt(wb, valid []byte, fw, fh, bx, by, nx, ny, tx, ty, lo int, prof [][3]float64) bool {
	for j := range prof {
		k := lo + j
		var c [3]float64
		for a := -photoEdgeAlong; a <= photoEdgeAlong; a++ {
			x, y := bx+nx*k+tx*a, by+ny*k+ty*a
			if x < 0 || y < 0 || x >= fw || y >= fh || valid[y*fw+x] != 255 {
				return false
			}
			p := 3 * (y*fw + x)
			c[0] += float64(wb[p])
			c[1] += float64(wb[p+1])
			c[2] += float64(wb[p+2])
		}
		for d := range c {
			c[d] /= 2*photoEdgeAlong + 1
		}
		prof[j] = c
	}
	return true
}

// strongestStep finds, in a profile starting at step lo, the boundary k (between steps k-1
// and k, |k| <= reach) with the strongest colour step that is brighter inside than outside,
// its outer side closer to the table (the profile's outer end) than half the step; k is
// refined by a parabola through the step strengths at k-1, k, k+1.
func strongestStep(prof [][3]float64, strength []float64, lo, reach int) (float64, bool) {
	mean := func(a, b int) (m [3]float64) { // steps a..b inclusive
		for k := a; k <= b; k++ {
			for d := 0; d < 3; d++ {
				m[d] += prof[k-lo][d]
			}
		}
		for d := range m {
			m[d] /= float64(b - a + 1)
		}
		return m
	}
	diff := func(a, b [3]float64) float64 {
		return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
	}
	table := mean(lo, lo+photoEdgeRun)
	best, bestK := 0.0, 0
	for k := -reach - 1; k <= reach+1; k++ {
		in, outm := mean(k, k+photoEdgeRun-1), mean(k-photoEdgeRun, k-1)
		s := diff(in, outm)
		strength[k-lo] = s
		if k < -reach || k > reach || in[0]+in[1]+in[2] <= outm[0]+outm[1]+outm[2] || diff(outm, table) >= s/2 {
			continue
		}
		if s > best {
			best, bestK = s, k
		}
	}
	if best < photoEdgeMinStep {
		return 0, false
	}
	a, b, c := strength[bestK-1-lo], strength[bestK-lo], strength[bestK+1-lo]
	d := 0.0
	if den := a - 2*b + c; den < 0 {
		d = math.Max(-0.5, math.Min(0.5, 0.5*(a-c)/den))
	}
	return float64(bestK) + d, true
}

// photoEdgeHook (tests only) receives, before a refusal on the untorn edges, the mask's
// offsets, the photo's, their keys, and the edge error by each.
var photoEdgeHook func(mask, photo []float64, keys []int, maskMM, photoMM float64)
