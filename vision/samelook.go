package vision

import (
	"image"
	"math"
	"sync"

	"gocv.io/x/gocv"
)

// Same look in both photos.
//
// A patch where the two paper masks disagree should look different in the two photos: paper
// in one, the table in the other. When each photo shows the patch in the same colour relative
// to the paper around it (both not paper), the masks' disagreement is one mask taking the
// table for paper, not paper torn off (Measure: the photo before this tear's mask) or paper
// regrown (RegrownDetail: the later photo's mask). Seen on independent synthetic sets on a
// pale grey table: the table seen through an earlier hole called paper in one photo and not
// in the next.

const (
	// sameLookFrac: the two photos' patch colours (each relative to its paper around) must lie
	// this much closer to each other than to paper.
	sameLookFrac = 0.5
	// sameLookMinContrast: the photo showing the table there must tell it from paper by this
	// much (relative colour, Euclidean over B, G, R); a table the colour of the paper cannot
	// be told by colour.
	sameLookMinContrast = 0.1
	// sameLookInkMM: the paper compared with leaves out the fresh sheet's ink and this much
	// around it. Beside ink the change test cannot tell the table from paper (the fresh
	// sheet's 5x5 interval spans ink to paper), so both masks can keep "ghost" paper of a
	// torn-away word there (seen about 5 px = 1.25 mm from the ink mask on seed 5
	// case-019): compared with that table, a patch of table looked like paper in both photos.
	sameLookInkMM = 1.5
)

// inkZone is the fresh sheet's ink (pixels of its grey image g, w x h, darker than the
// 6 mm mean by 20 levels, as freshInk) grown by sameLookInkMM: 255 inside. nil without g.
func inkZone(g []byte, w, h int, ppm float64) []byte {
	if len(g) != w*h {
		return nil
	}
	gm, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8U, g)
	if err != nil {
		return nil
	}
	defer gm.Close()
	th := gocv.NewMat()
	defer th.Close()
	gocv.AdaptiveThreshold(gm, &th, 255, gocv.AdaptiveThresholdMean, gocv.ThresholdBinaryInv, int(6*ppm)|1, 20)
	r := int(math.Ceil(sameLookInkMM * ppm))
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*r+1, 2*r+1))
	defer k.Close()
	gocv.Dilate(th, &th, k)
	return th.ToBytes()
}

// zoneCache holds a fresh sheet's inkZone (frame w x h at ppm), shared with the sheets
// registered to it, whose inkGray is the fresh sheet's: Measure needs it for every tear, and
// it is the same each time (an adaptive threshold and a dilation over the whole frame).
type zoneCache struct {
	once sync.Once
	w, h int
	ppm  float64
	zone []byte

	// seamRef's, likewise
	seamOnce     sync.Once
	seamW, seamH int
	seamPPM      float64
	seam         []byte
}

// freshZone returns fresh's zoneCache, made on first use (Register hands it on).
func freshZone(fresh *SheetImage) *zoneCache {
	if fresh.zone == nil {
		fresh.zone = &zoneCache{}
	}
	return fresh.zone
}

// sheetInkZone is inkZone(freshGray(s), w, h, ppm), computed once for s's fresh sheet and
// every sheet registered to it (read-only for callers).
func sheetInkZone(s *SheetImage, w, h int, ppm float64) []byte {
	zc := freshZone(s)
	zc.once.Do(func() { zc.w, zc.h, zc.ppm, zc.zone = w, h, ppm, inkZone(freshGray(s), w, h, ppm) })
	if zc.w != w || zc.h != h || zc.ppm != ppm {
		return inkZone(freshGray(s), w, h, ppm)
	}
	return zc.zone
}

// sheetBGR returns a sheet image's BGR bytes (frame layout w x h), nil when it has none.
func sheetBGR(s *SheetImage, w, h int) []byte {
	m := s.Image
	if m.Ptr() == nil || m.Empty() || m.Cols() != w || m.Rows() != h || m.Type() != gocv.MatTypeCV8UC3 {
		return nil
	}
	if m.IsContinuous() {
		if b, err := m.DataPtrUint8(); err == nil && len(b) == 3*w*h {
			return b
		}
	}
	return m.ToBytes()
}

// sameLook reports whether the pixels of patch (frame layout w x h, non-zero; inside box)
// show the same, not paper, in both photos bi and ai (BGR bytes), each relative to the
// median colour of the paper both masks (bm, am) keep around the patch: within 4 mm of box,
// or farther (up to 32 mm) when too little paper is that close (a patch inside an earlier
// hole), leaving out the pixels ink marks (inkZone; nil: none). notPaper says which photo
// must show the patch unlike paper: 'a' the later photo (ai), 'b' the photo before (bi).
// False when it cannot tell.
func sameLook(bi, ai, bm, am, ink, patch []byte, box image.Rectangle, w, h int, ppm float64, notPaper byte) bool {
	relB, relA, ok := patchRel(bi, ai, bm, am, ink, patch, box, w, h, ppm)
	if !ok {
		return false
	}
	one := [3]float64{1, 1, 1}
	// The photo that must show the table there tells it from paper, and the other photo's
	// patch is far nearer that than paper.
	table, other := relB, relA
	if notPaper == 'a' {
		table, other = relA, relB
	}
	return colourDist(table, one) >= sameLookMinContrast && colourDist(other, table) < sameLookFrac*colourDist(other, one)
}

// colourDist is the Euclidean distance of two relative colours (patchRel).
func colourDist(u, v [3]float64) float64 {
	return math.Sqrt((u[0]-v[0])*(u[0]-v[0]) + (u[1]-v[1])*(u[1]-v[1]) + (u[2]-v[2])*(u[2]-v[2]))
}

// patchRel returns the median colour of the pixels of patch (frame layout w x h, non-zero;
// inside box) in the photos bi and ai (BGR bytes), each relative (per channel) to the median
// colour of the paper both masks (bm, am) keep around the patch: within 4 mm of box, or
// farther (up to 32 mm) when too little paper is that close, leaving out the pixels ink marks
// (inkZone; nil: none). ok is false when it cannot tell (no photo, too little paper around).
func patchRel(bi, ai, bm, am, ink, patch []byte, box image.Rectangle, w, h int, ppm float64) (relB, relA [3]float64, ok bool) {
	if bi == nil || ai == nil || box.Empty() {
		return relB, relA, false
	}
	var pb, pa, rb, ra [3][256]int
	npatch, nring := 0, 0
	for _, gmm := range []float64{4, 8, 16, 32} {
		g := int(gmm * ppm)
		pb, pa, rb, ra = [3][256]int{}, [3][256]int{}, [3][256]int{}, [3][256]int{}
		npatch, nring = 0, 0
		r := box.Inset(-g).Intersect(image.Rect(0, 0, w, h))
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				i := y*w + x
				switch {
				case patch[i] != 0:
					npatch++
					for c := 0; c < 3; c++ {
						pb[c][bi[3*i+c]]++
						pa[c][ai[3*i+c]]++
					}
				case bm[i] != 0 && am[i] != 0 && (ink == nil || ink[i] == 0):
					nring++
					for c := 0; c < 3; c++ {
						rb[c][bi[3*i+c]]++
						ra[c][ai[3*i+c]]++
					}
				}
			}
		}
		if nring >= max(100, npatch/4) {
			break
		}
	}
	if npatch == 0 || nring < max(100, npatch/4) {
		return relB, relA, false // too little paper around the patch to compare with
	}
	for c := 0; c < 3; c++ {
		relB[c] = histMedian(&pb[c], npatch) / math.Max(1, histMedian(&rb[c], nring))
		relA[c] = histMedian(&pa[c], npatch) / math.Max(1, histMedian(&ra[c], nring))
	}
	return relB, relA, true
}
