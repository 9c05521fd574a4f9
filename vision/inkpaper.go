package vision

import (
	"fmt"
	"math"

	"gocv.io/x/gocv"
)

// patchOffPaperMM: an ink patch matched at full resolution whose centre lies farther than this
// from what the registered mask calls paper contradicts the mask. Its template reaches
// patchR px (3 mm) around the centre: farther out, the whole middle of its window is "table",
// and table does not correlate with the fresh sheet's ink.
const patchOffPaperMM = 3.0

// patchesOffPaper counts the matched ink patches (pairs: frame mm) whose centre is farther
// than patchOffPaperMM from the paper of mask (frame px at ppm px/mm), and returns the first
// one's position. The patches found the fresh sheet's writing or ruling in the photo where
// the alignment puts it: the paper is there, whatever the colour models say.
func patchesOffPaper(mask gocv.Mat, ppm float64, pairs []pair) (int, pt) {
	mb := mask.ToBytes()
	w, h := mask.Cols(), mask.Rows()
	r := int(math.Ceil(patchOffPaperMM * ppm))
	n := 0
	var at pt
	for _, p := range pairs {
		q := mmToPx(p.u, ppm).img()
		on := false
		for y := max(q.Y-r, 0); y <= min(q.Y+r, h-1) && !on; y++ {
			for x := max(q.X-r, 0); x <= min(q.X+r, w-1); x++ {
				if dx, dy := x-q.X, y-q.Y; dx*dx+dy*dy <= r*r && mb[y*w+x] != 0 {
					on = true
					break
				}
			}
		}
		if !on {
			if n == 0 {
				at = p.u
			}
			n++
		}
	}
	return n, at
}

// inkOffPaper refuses s (closing it; *PaperMaskError) when more than a quarter of the ink
// patches its alignment matched, and at least minOffPaperPatches, lie off what its mask calls
// paper: the mask lost paper the photo shows, and a tear would be measured where there is
// none. Seed 6 case-007 ines-5.jpg: a small shaded remnant, aligned to the previous photo on
// the whole photo's features (19 patches, true error under 0.3 mm on them), got an empty mask
// from the 320 px colour models, and its player was put out with skills left.
func inkOffPaper(s *SheetImage, pairs []pair) error {
	n, at := patchesOffPaper(s.Mask, s.PxPerMM, pairs)
	if n < minOffPaperPatches || 4*n <= len(pairs) {
		return nil
	}
	res := s.ResidualMM
	s.Close()
	return &PaperMaskError{AtMM: [2]float64{at.X, at.Y}, ResidualMM: res,
		Reason: fmt.Sprintf("%d of the %d ink patches the alignment matched lie off what it calls paper (the first at (%.0f, %.0f) mm): the paper was taken for the table", n, len(pairs), at.X, at.Y)}
}

// minOffPaperPatches: fewer ink patches off the paper mask than this are not a contradiction
// (a patch beside a tear line).
const minOffPaperPatches = 3
