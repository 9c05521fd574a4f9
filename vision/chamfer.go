package vision

import "gocv.io/x/gocv"

// Distance transform.
//
// OpenCV's L2 distance transform with the 5x5 mask (Borgefors' chamfer distance: steps of 1,
// 1.4 and 2.1969 px in fixed point, two passes), done in Go. gocv v0.31 reaches it only through
// the variant that also labels the nearest zero pixel (a connected-components pass over the
// zero pixels and a second array carried through both passes), which tearcam never reads; the
// distances are the same integer arithmetic, so they come out bit for bit the same
// (TestChamferMatchesOpenCV), in about a third of the time.

const (
	chamferShift = 16
	chamferInit  = int32(0x7fffffff >> 2) // OpenCV's INIT_DIST0: outside the image
	chamferHV    = int32(65536)           // cvRound(1.0f * 65536)
	chamferDiag  = int32(91750)           // cvRound(1.4f * 65536)
	chamferLong  = int32(143976)          // cvRound(2.1969f * 65536)
)

// chamferDist returns, for a w x h mask (row-major, zero = background), each pixel's distance
// in pixels to the nearest zero pixel (0 on zero pixels), as OpenCV's
// distanceTransform(DIST_L2, DIST_MASK_5) computes it. Pixels beyond the image are not zero:
// with no zero pixel at all every distance is huge.
func chamferDist(src []byte, w, h int) []float32 {
	c := chamferOf(src, w, h)
	out := make([]float32, w*h)
	for y := 0; y < h; y++ {
		row := c.t[(y+chamferB)*c.stride+chamferB:]
		d := out[y*w : y*w+w]
		for x := range d {
			d[x] = float32(row[x]) * chamferScale
		}
	}
	return out
}

// chamferMap is chamferDist's result in OpenCV's fixed point (distance x 65536), with a
// border of chamferB on every side; at reads a pixel's distance.
type chamferMap struct {
	t      []int32
	stride int
}

const (
	chamferB     = 2 // border columns and rows
	chamferScale = float32(1.0 / (1 << chamferShift))
)

// at is the distance (px) of pixel (x, y), exactly as chamferDist gives it.
func (c *chamferMap) at(x, y int) float32 {
	return float32(c.t[(y+chamferB)*c.stride+x+chamferB]) * chamferScale
}

// chamferOf runs OpenCV's two passes (distanceTransform_5x5) on the mask.
func chamferOf(src []byte, w, h int) *chamferMap {
	const b = chamferB
	tw := w + 2*b
	tmp := make([]int32, (h+2*b)*tw)
	for i := 0; i < b*tw; i++ {
		tmp[i] = chamferInit
		tmp[len(tmp)-1-i] = chamferInit
	}
	const (
		L, D, HV = chamferLong, chamferDiag, chamferHV
	)
	for y := 0; y < h; y++ {
		r := (y+b)*tw + b
		tmp[r-1], tmp[r-2], tmp[r+w], tmp[r+w+1] = chamferInit, chamferInit, chamferInit, chamferInit
		s := src[y*w : y*w+w]
		up2 := tmp[r-2*tw-2 : r-2*tw+w+2] // index j+2 is column j
		up1 := tmp[r-tw-2 : r-tw+w+2]
		cur := tmp[r-2 : r+w+2]
		prev := chamferInit // the pixel to the left, kept in a register
		for j, v := range s {
			if v == 0 {
				prev = 0
			} else {
				u2, u1 := up2[j:j+5:j+5], up1[j:j+5:j+5]
				prev = min(chamferInit, u2[1]+L, u2[3]+L, u1[0]+L, u1[1]+D, u1[2]+HV, u1[3]+D, u1[4]+L, prev+HV)
			}
			cur[j+2] = prev
		}
	}
	for y := h - 1; y >= 0; y-- {
		r := (y+b)*tw + b
		dn2 := tmp[r+2*tw-2 : r+2*tw+w+2]
		dn1 := tmp[r+tw-2 : r+tw+w+2]
		cur := tmp[r-2 : r+w+2]
		next := chamferInit // the pixel to the right
		for j := w - 1; j >= 0; j-- {
			t0 := cur[j+2]
			if t0 > HV {
				d2, d1 := dn2[j:j+5:j+5], dn1[j:j+5:j+5]
				t0 = min(t0, d2[3]+L, d2[1]+L, d1[4]+L, d1[3]+D, d1[2]+HV, d1[1]+D, d1[0]+L, next+HV)
				cur[j+2] = t0
			}
			next = t0
		}
	}
	return &chamferMap{t: tmp, stride: tw}
}

// distance is chamferDist of a CV_8UC1 mask (the caller still closes m).
func distance(m gocv.Mat) []float32 {
	return chamferDist(m.ToBytes(), m.Cols(), m.Rows())
}
