package vision

import (
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// Warped windows.
//
// The ink-patch refinement (refineH) needs the photo warped into the frame only in a small
// window around each patch, but warpPerspective warps the whole frame (a million pixels, twice
// per photo). OpenCV's warpPerspective computes, for each destination pixel, its source
// position in fixed point (1/32 px) from the matrix in double precision, block by block
// (blocks of 64 x 16 pixels: the row start X0 = M0*bx + M1*y + M2 for the block's first column
// bx, then (X0 + M0*dx) / (W0 + M6*dx) for the dx-th pixel of the block), and then remaps the
// block with those fixed-point positions. warpWindows does the same arithmetic, in the same
// order, for the windows' pixels only, and remaps them with OpenCV's remap, so each window is
// bit for bit what the whole-frame warp holds there (TestWarpWindowsMatchWarp).

const (
	warpBlockW   = 64 // warpPerspective's block width (BLOCK_SZ*BLOCK_SZ / 16) on frames 64+ px wide
	interBits    = 5  // OpenCV's INTER_BITS
	interTabSize = 1 << interBits
)

// warpWindows returns the windows (frame px, each inside the fw x fh frame) of photo (CV_8UC1)
// warped by m (frame px -> photo px, as warpToFrame's matrix), stacked top to bottom, left
// aligned, in a Mat as wide as the widest window; window k starts at row offs[k]. Bilinear,
// black outside the photo, as warpToFrame. The caller closes the Mat.
func warpWindows(photo gocv.Mat, m homog, fw, fh int, wins []image.Rectangle) (gocv.Mat, []int) {
	ww, total := 0, 0
	offs := make([]int, len(wins))
	for k, r := range wins {
		offs[k] = total
		total += r.Dy()
		ww = max(ww, r.Dx())
	}
	if total == 0 || ww == 0 || fw < warpBlockW || fh < 16 {
		return gocv.NewMat(), offs
	}
	xy := gocv.NewMatWithSize(total, ww, gocv.MatTypeCV16SC2)
	defer xy.Close()
	al := gocv.NewMatWithSize(total, ww, gocv.MatTypeCV16UC1)
	defer al.Close()
	xyb, _ := xy.DataPtrInt16()
	alb, _ := al.DataPtrUint16()
	for k, r := range wins {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := offs[k] + y - r.Min.Y
			bx := -1
			var X0, Y0, W0 float64
			for x := r.Min.X; x < r.Max.X; x++ {
				if b := x / warpBlockW * warpBlockW; b != bx {
					// The block's row start. Each product rounded on its own (no fused
					// multiply-add), as OpenCV's.
					bx = b
					X0 = float64(m[0]*float64(bx)) + float64(m[1]*float64(y)) + m[2]
					Y0 = float64(m[3]*float64(bx)) + float64(m[4]*float64(y)) + m[5]
					W0 = float64(m[6]*float64(bx)) + float64(m[7]*float64(y)) + m[8]
				}
				dx := float64(x - bx)
				W := W0 + float64(m[6]*dx)
				if W != 0 {
					W = interTabSize / W
				}
				X, Y := fixedPos(float64(X0+float64(m[0]*dx))*W), fixedPos(float64(Y0+float64(m[3]*dx))*W)
				i := row*ww + x - r.Min.X
				xyb[2*i] = int16(max(math.MinInt16, min(math.MaxInt16, X>>interBits)))
				xyb[2*i+1] = int16(max(math.MinInt16, min(math.MaxInt16, Y>>interBits)))
				alb[i] = uint16((Y&(interTabSize-1))*interTabSize + X&(interTabSize-1))
			}
		}
	}
	out := gocv.NewMat()
	gocv.Remap(photo, &out, &xy, &al, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	return out, offs
}

// fixedPos is OpenCV's saturate_cast<int>(max(INT_MIN, min(INT_MAX, v))): v clamped to the
// int32 range and rounded half to even (finite v).
func fixedPos(v float64) int32 {
	if v > math.MaxInt32 {
		v = math.MaxInt32
	} else if v < math.MinInt32 {
		v = math.MinInt32
	}
	return int32(math.RoundToEven(v))
}
