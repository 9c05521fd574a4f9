package vision

import (
	"image"
	"math"
)

// A removed piece that still shows the fresh sheet's writing or ruling in the after photo is
// paper the after mask missed (a shaded corner whose lighting the change test mispredicted, seen
// on held-out synthetic sets: a spurious second piece, several_pieces ruled for certain). The
// table seen through a real gap shows no such pattern. inkShownCheck compares, inside the piece
// (eroded by inkShownInsetMM, against registration slop at its outline), the fresh sheet's ink
// with what the after photo shows as ink there, against the same rate away from the ink (a
// textured table shows "ink" everywhere alike).
const (
	inkShownInsetMM = 1.5
	inkShownMinMM2  = 3.0 // fresh ink (mm²) a piece needs inside for any evidence
	inkShownFrac    = 0.5 // share of that ink the after photo must show
	inkShownRatio   = 3.0 // ... and that many times its rate away from the ink
	inkShownAwayMM  = 2.0 // "away from the ink": this far from any
)

// adaptiveInk marks the pixels of grey g (w x h) inside r darker than the mean of the
// win x win window around them by more than c (cv::adaptiveThreshold, mean, binary inverse,
// with the window clipped at r's border instead of replicated): 1 inside, 0 outside, in r's
// own layout (r.Dx() x r.Dy()).
func adaptiveInk(g []byte, w int, r image.Rectangle, win int, c float64) []byte {
	rw, rh := r.Dx(), r.Dy()
	sum := make([]int64, (rw+1)*(rh+1))
	for y := 0; y < rh; y++ {
		var row int64
		for x := 0; x < rw; x++ {
			row += int64(g[(r.Min.Y+y)*w+r.Min.X+x])
			sum[(y+1)*(rw+1)+x+1] = sum[y*(rw+1)+x+1] + row
		}
	}
	out := make([]byte, rw*rh)
	h := win / 2
	for y := 0; y < rh; y++ {
		y0, y1 := max(0, y-h), min(rh, y+h+1)
		for x := 0; x < rw; x++ {
			x0, x1 := max(0, x-h), min(rw, x+h+1)
			s := sum[y1*(rw+1)+x1] - sum[y0*(rw+1)+x1] - sum[y1*(rw+1)+x0] + sum[y0*(rw+1)+x0]
			mean := float64(s) / float64((y1-y0)*(x1-x0))
			if float64(g[(r.Min.Y+y)*w+r.Min.X+x]) < mean-c {
				out[y*rw+x] = 1
			}
		}
	}
	return out
}

// grow returns m (w x h, non-zero inside) dilated (d > 0) or eroded (d < 0) by a disk of |d|
// pixels, computed with a two-pass chamfer distance (3-4 weights): for erosion, pixels outside
// the image count as inside, so a piece at the sheet's edge keeps its edge.
func grow(m []byte, w, h, d int) []byte {
	if d == 0 {
		return append([]byte(nil), m...)
	}
	inside := func(i int) bool { return m[i] != 0 }
	if d < 0 {
		inside = func(i int) bool { return m[i] == 0 }
	}
	const inf = math.MaxInt32 / 2
	dist := make([]int32, w*h)
	for i := range dist {
		if inside(i) {
			dist[i] = 0
		} else {
			dist[i] = inf
		}
	}
	relax := func(i, j int, c int32) {
		if dist[j]+c < dist[i] {
			dist[i] = dist[j] + c
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if x > 0 {
				relax(i, i-1, 3)
			}
			if y > 0 {
				relax(i, i-w, 3)
				if x > 0 {
					relax(i, i-w-1, 4)
				}
				if x < w-1 {
					relax(i, i-w+1, 4)
				}
			}
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i := y*w + x
			if x < w-1 {
				relax(i, i+1, 3)
			}
			if y < h-1 {
				relax(i, i+w, 3)
				if x < w-1 {
					relax(i, i+w+1, 4)
				}
				if x > 0 {
					relax(i, i+w-1, 4)
				}
			}
		}
	}
	ad := int32(3 * max(d, -d))
	out := make([]byte, w*h)
	for i, v := range dist {
		near := v <= ad
		if (d > 0 && near) || (d < 0 && !near) {
			out[i] = 255
		}
	}
	return out
}

// greyIn returns a w x h grey image holding bgr's (BGR bytes, w x h) grey values inside r
// (cv::COLOR_BGR2GRAY weights) and 0 elsewhere.
func greyIn(bgr []byte, w, h int, r image.Rectangle) []byte {
	g := make([]byte, w*h)
	if len(bgr) != 3*w*h {
		return nil
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*w + x
			b, gg, rr := float64(bgr[3*i]), float64(bgr[3*i+1]), float64(bgr[3*i+2])
			g[i] = byte(math.Round(0.114*b + 0.587*gg + 0.299*rr))
		}
	}
	return g
}

// inkShownCheck reports whether the removed piece pm (frame layout w x h, non-zero; inside
// box) still shows the fresh sheet's ink in the after photo: g0 is the fresh sheet's grey image,
// ga the after photo's grey image (both w x h, in the sheet frame), ppm pixels per millimetre.
// It also returns the fresh ink area inside (mm²) and the share of it shown.
func inkShownCheck(g0, ga, pm []byte, box image.Rectangle, w, h int, ppm float64) (bool, float64, float64) {
	if len(g0) != w*h || len(ga) != w*h || len(pm) != w*h {
		return false, 0, 0
	}
	pad := int(math.Ceil(4 * ppm))
	r := image.Rect(box.Min.X-pad, box.Min.Y-pad, box.Max.X+pad, box.Max.Y+pad).Intersect(image.Rect(0, 0, w, h))
	rw, rh := r.Dx(), r.Dy()
	if rw < 3 || rh < 3 {
		return false, 0, 0
	}
	sub := make([]byte, rw*rh)
	for y := 0; y < rh; y++ {
		copy(sub[y*rw:(y+1)*rw], pm[(r.Min.Y+y)*w+r.Min.X:(r.Min.Y+y)*w+r.Max.X])
	}
	core := grow(sub, rw, rh, -int(math.Round(inkShownInsetMM*ppm)))
	win := int(6*ppm) | 1
	fi := adaptiveInk(g0, w, r, win, 20) // the fresh sheet's ink, as freshInk
	ai := adaptiveInk(ga, w, r, win, 8)  // what the after photo shows as ink, as inkMissing
	seen := grow(ai, rw, rh, int(math.Round(ppm)))
	away := grow(fi, rw, rh, int(math.Round(inkShownAwayMM*ppm)))
	var nInk, sInk, nCtl, sCtl int
	for i := range core {
		if core[i] == 0 {
			continue
		}
		switch {
		case fi[i] != 0:
			nInk++
			if seen[i] != 0 {
				sInk++
			}
		case away[i] == 0:
			nCtl++
			if seen[i] != 0 {
				sCtl++
			}
		}
	}
	inkMM2 := float64(nInk) / (ppm * ppm)
	if inkMM2 < inkShownMinMM2 {
		return false, inkMM2, 0
	}
	frac := float64(sInk) / float64(nInk)
	ctl := 0.0
	if nCtl > 0 {
		ctl = float64(sCtl) / float64(nCtl)
	}
	return frac >= inkShownFrac && frac >= inkShownRatio*ctl, inkMM2, frac
}
