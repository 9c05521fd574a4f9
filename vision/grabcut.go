package vision

import (
	"image"
	"math"
	"runtime"

	"gocv.io/x/gocv"
)

// grabCutSeed seeds OpenCV's RNG before each GrabCut.
const grabCutSeed = 0x7ea2ca

// grabCutLong is the long side of the image GrabCut runs on (about 60 ms here).
const grabCutLong = 320

// locateGrabCut is the fallback segmentation when the colour models find no sheet, as on a
// white sheet on a light table: OpenCV's GrabCut (Gaussian mixtures per class plus a graph
// cut that rewards smooth, edge-aligned boundaries) seeded with the image border as sure
// background and everything else as probable paper. Its outline is coarse; refineQuad puts
// the sides back on the full-resolution edges.
func locateGrabCut(photo gocv.Mat) *located {
	scale := float64(grabCutLong) / float64(max(photo.Cols(), photo.Rows()))
	if scale > 1 {
		scale = 1
	}
	w := int(math.Round(float64(photo.Cols()) * scale))
	h := int(math.Round(float64(photo.Rows()) * scale))
	scale = float64(w) / float64(photo.Cols())
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(photo, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	band := max(3, min(w, h)/40)
	init := make([]byte, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x < band || y < band || x >= w-band || y >= h-band {
				init[y*w+x] = 0 // GC_BGD
			} else {
				init[y*w+x] = 3 // GC_PR_FGD
			}
		}
	}
	mask := newMask(w, h, init)
	defer mask.Close()
	bgd, fgd := gocv.NewMat(), gocv.NewMat()
	defer bgd.Close()
	defer fgd.Close()
	// GrabCut initialises its colour mixtures with k-means, which draws from OpenCV's
	// thread-local RNG: its answer depended on whatever ran on the thread before. Seed that
	// RNG on the same OS thread right before, so the same photo always gives the same sheet
	// (rulings must be reproducible).
	runtime.LockOSThread()
	gocv.SetRNGSeed(grabCutSeed)
	gocv.GrabCut(small, &mask, image.Rectangle{}, &bgd, &fgd, 4, gocv.GCInitWithMask)
	runtime.UnlockOSThread()
	mb := mask.ToBytes()
	for i, v := range mb {
		if v == 1 || v == 3 {
			mb[i] = 255
		} else {
			mb[i] = 0
		}
	}
	m := newMask(w, h, mb)
	defer m.Close()
	morph(&m, 3, 5)
	l := &located{scale: scale, w: w, h: h, mask: m.ToBytes()}
	l.regions = findRegions(m, l.mask, w, h, true)
	return l
}
