package vision

import (
	"image"
	"math"
)

// A hole that looks like the paper around it.
//
// A removed piece that touches no edge of the sheet (a hole: not_edge_to_edge, and often a
// second piece) must show the table through it. Where the after photo shows it in the colour
// of the paper just around it, the paper mask has more likely missed paper there (a band of
// shade across the sheet, beside a word the change test's lighting does not model) than the
// player torn a hole onto a table the paper's colour. Seen on held-out seed 7 case-019 kofi-2:
// two 35-45 mm² "holes" beside the letters of a word in the shade, ruled not_edge_to_edge and
// several_pieces for certain on a valid bite. Such a piece is a doubt, never a measurement.

const (
	// holeLookMaxContrast: the piece's median colour relative to the paper around it
	// (Euclidean over B, G, R ratios) under which it looks like that paper; the same scale as
	// sameLookMinContrast, under which the table cannot be told from paper by colour.
	holeLookMaxContrast = sameLookMinContrast
	// holeLookRingMM: the paper compared with lies within this much of the piece's box (or
	// farther, up to 4 times, while too little paper is that close).
	holeLookRingMM = 4.0
)

// holeLooksLikePaper reports whether the after photo ai (BGR bytes, frame layout w x h) shows
// the piece pm (non-zero; inside box) in the colour of the paper the after mask am keeps
// around it, both leaving out the fresh sheet's ink zone (ink; nil: none), and the contrast
// found. False when there is too little of either to compare.
func holeLooksLikePaper(ai, am, ink, pm []byte, box image.Rectangle, w, h int, ppm float64) (bool, float64) {
	if len(ai) != 3*w*h || len(am) != w*h || len(pm) != w*h || box.Empty() {
		return false, 0
	}
	var hp, hr [3][256]int
	np, nr := 0, 0
	minPx := int(MinPieceMM2 * ppm * ppm / 4)
	for _, f := range []float64{1, 2, 4} {
		hp, hr = [3][256]int{}, [3][256]int{}
		np, nr = 0, 0
		r := box.Inset(-int(math.Round(f * holeLookRingMM * ppm))).Intersect(image.Rect(0, 0, w, h))
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				i := y*w + x
				if ink != nil && ink[i] != 0 {
					continue
				}
				var hist *[3][256]int
				switch {
				case pm[i] != 0:
					hist = &hp
					np++
				case am[i] != 0:
					hist = &hr
					nr++
				default:
					continue
				}
				for c := 0; c < 3; c++ {
					hist[c][ai[3*i+c]]++
				}
			}
		}
		if nr >= max(minPx, np) {
			break
		}
	}
	if np < minPx || nr < minPx {
		return false, 0
	}
	var d2 float64
	for c := 0; c < 3; c++ {
		rel := histMedian(&hp[c], np)/math.Max(1, histMedian(&hr[c], nr)) - 1
		d2 += rel * rel
	}
	contrast := math.Sqrt(d2)
	return contrast < holeLookMaxContrast, contrast
}
