package vision

import (
	"image"
	"math"
)

// Edge contact seen in the photo.
//
// The after-mask cannot show paper thinner than its own opening (Register opens it with a
// 1.25 mm disk) or than the photo resolves: a hole torn a millimetre from the sheet's edge
// (or from an earlier tear's edge) loses the strip of paper between them, and the masks then
// show a piece that touches the edge. The photo often still shows that strip: paper-coloured
// pixels between the removed piece and the edge, lighter than the table seen through the
// hole. contactSeen looks for a path from the before-sheet's outer edge into the piece that
// crosses no such pixel; without one, the contact rests on paper the masks could not resolve
// and Measure reports it as a doubt (judge.AboutEdgeToEdge), never as a fault.

const (
	// contactZoneMM: the pixels of a piece this close to the before-sheet's outer edge are
	// where a strip of paper too thin for the mask may lie (the mask's opening, the edge
	// tolerance EdgeTouchMM and the photo's blur).
	contactZoneMM = 2 * EdgeTouchMM
	// contactMinSep: paper and table colours (BGR, Euclidean) closer than this cannot be
	// told apart here; the masks' contact stands.
	contactMinSep = 30.0
	// contactPaperT: a pixel at least this far (0 = table, 1 = paper) along the table-paper
	// colour axis is paper-like; a strip narrower than a pixel still lightens its pixels by
	// its share of them.
	contactPaperT = 0.35
)

// contactSeen reports whether the photo shows piece label (lb: labels, raw: the raw removed
// mask, ob: the opened one) reaching the before-sheet's outer edge (bm: before-mask, am:
// after-mask) through pixels that do not look like paper in img (the after sheet's BGR
// bytes, frame layout w x h). near is the box of the piece's pixels near that edge; the
// search stays within it grown by twice contactZoneMM. It is true when it cannot tell (too
// little of the piece deep inside, too little paper around it, or paper and table alike in
// colour).
func contactSeen(img []byte, label int32, lb []int32, raw, ob, bm, am []byte, near image.Rectangle, w, h int, ppm float64) bool {
	if len(img) != 3*w*h || near.Empty() {
		return true
	}
	zr := float32(contactZoneMM * ppm)
	g := int(math.Ceil(2 * contactZoneMM * ppm))
	box := near.Inset(-g).Intersect(image.Rect(0, 0, w, h))
	bw := box.Dx()
	in := func(i int) bool { return lb[i] == label && raw[i] != 0 }
	// Depth below the before-sheet's outer edge, exact up to a little beyond the zone.
	depth := outerDepthBox(bm, w, h, box, int(math.Ceil(float64(zr)))+2)
	// The table seen through the piece deep inside it, and the paper left around it (the
	// medians: ink is a minority).
	var table, paper [3][256]int
	nt, np := 0, 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := y*w + x
			switch {
			case ob[i] != 0 && lb[i] == label && depth(x, y) > zr:
				nt++
				for c := 0; c < 3; c++ {
					table[c][img[3*i+c]]++
				}
			case bm[i] != 0 && am[i] != 0:
				np++
				for c := 0; c < 3; c++ {
					paper[c][img[3*i+c]]++
				}
			}
		}
	}
	minPx := int(MinPieceMM2 * ppm * ppm / 4)
	if nt < minPx || np < minPx {
		return true
	}
	var ax, T [3]float64
	for c := 0; c < 3; c++ {
		T[c] = histMedian(&table[c], nt)
		ax[c] = histMedian(&paper[c], np) - T[c]
	}
	sep2 := ax[0]*ax[0] + ax[1]*ax[1] + ax[2]*ax[2]
	if sep2 < contactMinSep*contactMinSep {
		return true
	}
	paperLike := func(i int) bool {
		t := (float64(img[3*i])-T[0])*ax[0] + (float64(img[3*i+1])-T[1])*ax[1] + (float64(img[3*i+2])-T[2])*ax[2]
		return t >= contactPaperT*sep2
	}
	outer := func(x, y int) bool {
		return x < 0 || y < 0 || x >= w || y >= h || bm[y*w+x] == 0
	}
	// Flood from the piece's pixels next to the outer edge through pixels of the piece that
	// do not look like paper (deep pixels always pass); reaching deep inside is contact.
	seen := make([]bool, bw*box.Dy())
	local := func(x, y int) int { return (y-box.Min.Y)*bw + x - box.Min.X }
	var q []image.Point
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := y*w + x
			if !in(i) || paperLike(i) {
				continue
			}
			next := false
			for dy := -1; dy <= 1 && !next; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if outer(x+dx, y+dy) {
						next = true
						break
					}
				}
			}
			if next {
				seen[local(x, y)] = true
				q = append(q, image.Pt(x, y))
			}
		}
	}
	for len(q) > 0 {
		p := q[len(q)-1]
		q = q[:len(q)-1]
		if depth(p.X, p.Y) > zr {
			return true
		}
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				x, y := p.X+dx, p.Y+dy
				if !(image.Point{x, y}).In(box) || seen[local(x, y)] {
					continue
				}
				j := y*w + x
				if !in(j) || (depth(x, y) <= zr && paperLike(j)) {
					continue
				}
				seen[local(x, y)] = true
				q = append(q, image.Pt(x, y))
			}
		}
	}
	return false
}

// histMedian is the median of n values counted in a histogram.
func histMedian(hist *[256]int, n int) float64 {
	k := 0
	for v, c := range hist {
		k += c
		if 2*k > n {
			return float64(v)
		}
	}
	return 255
}
