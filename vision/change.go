package vision

import (
	"image"
	"math"

	"gocv.io/x/gocv"
)

// Change detection against the fresh sheet.
//
// Colour alone cannot tell a shaded part of a pale sheet from a pale table. But once a photo
// is registered, tearcam knows what every point of the paper looked like on the fresh sheet.
// Where paper remains, the new photo equals the fresh one up to lighting: a per-channel gain
// that varies slowly across the sheet. tearcam estimates that gain field from the pixels the
// colour models call paper with confidence (2 mm cells, then normalised convolution
// with a Gaussian of changeSigmaMM, so it extrapolates smoothly over torn-away areas), predicts
// each pixel as gain x fresh, and calls it paper when the prediction holds within changeTol.
// Ink is predicted along with the paper it is on, so strokes need no special handling; the
// table showing through a tear matches the prediction only if it looks like lit paper and ink.

const (
	changeCellMM  = 2.0 // lighting is estimated on cells this size
	changeRounds  = 4
	changeSigmaMM = 12.0
	changeTol     = 0.10
	// changeFloor keeps the tolerance from vanishing on dark ink (sum of three channels):
	// cameras and JPEG treat dark colours less consistently than light ones.
	changeFloor = 150
)

// changePaper returns, for the frame (sz, no margin), 255 where the photo matches the fresh
// sheet under a smooth lighting change, 0 where it does not, or nil when too little paper is
// known to estimate the lighting. wb is the blurred, warped photo with margin off (fw wide);
// conf marks confident paper pixels in the same layout.
func changePaper(fresh *SheetImage, wb []byte, fw, off int, sz image.Point, conf []byte) []byte {
	// Four rounds (three coarse ones, one pixel in 4x4): each round's paper (away from its
	// edges) trains the next round's lighting,
	// so the estimate spreads into shaded parts of the sheet the colour models missed.
	out := changeRound(fresh, wb, fw, off, sz, conf, int(math.Round(fresh.PxPerMM)), nil)
	for round := 1; round < changeRounds && out != nil; round++ {
		c := make([]byte, len(conf))
		m := newMask(sz.X, sz.Y, out)
		k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(3*fresh.PxPerMM)|1, int(3*fresh.PxPerMM)|1))
		gocv.Erode(m, &m, k)
		k.Close()
		eb := m.ToBytes()
		m.Close()
		for y := 0; y < sz.Y; y++ {
			copy(c[(y+off)*fw+off:(y+off)*fw+off+sz.X], eb[y*sz.X:(y+1)*sz.X])
		}
		step := 1
		if round < changeRounds-1 {
			step = int(math.Round(fresh.PxPerMM))
		}
		// Pixels 3 mm inside the last round's paper that the colour models also call paper
		// with confidence are paper: the full-resolution test is spent on the rest.
		sure := make([]byte, len(c))
		for i := range c {
			if c[i] != 0 && conf[i] != 0 {
				sure[i] = 255
			}
		}
		next := changeRound(fresh, wb, fw, off, sz, c, step, sure)
		if next == nil {
			break
		}
		out = next
	}
	return out
}

// changeRound is one round; step > 1 classifies one pixel in step x step and fills the block
// (for the rounds that only train the next one).
func changeRound(fresh *SheetImage, wb []byte, fw, off int, sz image.Point, conf []byte, step int, sure []byte) []byte {
	fb := freshBlur(fresh)
	lo, hi := freshRange(fresh)
	ink := freshInk(fresh)
	ppm := int(math.Round(fresh.PxPerMM * changeCellMM)) // pixels per cell
	cw, ch := (sz.X+ppm-1)/ppm, (sz.Y+ppm-1)/ppm
	sum := make([]float32, 3*cw*ch)
	cnt := make([]float32, cw*ch)
	known := 0
	for y := 0; y < sz.Y; y += 2 { // every other row and column is plenty for the gain
		for x := 0; x < sz.X; x += 2 {
			j := y*sz.X + x
			i := (y+off)*fw + x + off
			if conf[i] == 0 || ink[j] != 0 {
				continue
			}
			c := (y/ppm)*cw + x/ppm
			for k := 0; k < 3; k++ {
				sum[3*c+k] += float32(wb[3*i+k]) / float32(max(fb[3*j+k], 8))
			}
			cnt[c]++
			known++
		}
	}
	if known < sz.X*sz.Y/200 {
		return nil
	}
	// Normalised convolution on the cell grid.
	sm, err := gocv.NewMatFromBytes(ch, cw, gocv.MatTypeCV32FC3, f32bytes(sum))
	if err != nil {
		return nil
	}
	defer sm.Close()
	cm, err := gocv.NewMatFromBytes(ch, cw, gocv.MatTypeCV32F, f32bytes(cnt))
	if err != nil {
		return nil
	}
	defer cm.Close()
	bs, bc := gocv.NewMat(), gocv.NewMat()
	defer bs.Close()
	defer bc.Close()
	sig := changeSigmaMM / changeCellMM
	k := int(6*sig) | 1
	gocv.GaussianBlur(sm, &bs, image.Pt(k, k), sig, sig, gocv.BorderReplicate)
	gocv.GaussianBlur(cm, &bc, image.Pt(k, k), sig, sig, gocv.BorderReplicate)
	bsv, bcv := float32s(bs), float32s(bc)
	// Global gain for cells with no support nearby.
	var gs [3]float64
	var gn float64
	for c := range cnt {
		for k := 0; k < 3; k++ {
			gs[k] += float64(sum[3*c+k])
		}
		gn += float64(cnt[c])
	}
	gain := make([]float32, 3*cw*ch)
	for c := range cnt {
		for k := 0; k < 3; k++ {
			if bcv[c] > 0.5 {
				gain[3*c+k] = bsv[3*c+k] / bcv[c]
			} else {
				gain[3*c+k] = float32(gs[k] / gn)
			}
		}
	}
	// Gain at full resolution: bilinear upsampling of the cell grid (cell centres line up
	// with pixel centres: resize maps centres to centres).
	// Coarse rounds read the cell grid directly (nearest cell).
	gv, gw, cell := gain, cw, ppm
	if step == 1 {
		gm, err := gocv.NewMatFromBytes(ch, cw, gocv.MatTypeCV32FC3, f32bytes(gain))
		if err != nil {
			return nil
		}
		defer gm.Close()
		gf := gocv.NewMat()
		defer gf.Close()
		gocv.Resize(gm, &gf, image.Pt(cw*ppm, ch*ppm), 0, 0, gocv.InterpolationLinear)
		if gv, err = gf.DataPtrFloat32(); err != nil {
			return nil
		}
		gw, cell = cw*ppm, 1
	}
	out := make([]byte, sz.X*sz.Y)
	for y := step / 2; y < sz.Y; y += step {
		for x := step / 2; x < sz.X; x += step {
			j := y*sz.X + x
			i := (y+off)*fw + x + off
			if sure != nil && sure[i] != 0 && step == 1 {
				out[j] = 255
				continue
			}
			gi := 3 * ((y/cell)*gw + x/cell)
			var d, p float32
			for k := 0; k < 3; k++ {
				g := gv[gi+k]
				// The prediction is an interval: the fresh sheet's darkest to brightest value
				// within half a millimetre, so a registration error that small does not turn
				// the edges of ink strokes into "removed".
				a := float32(wb[3*i+k])
				pl, ph := g*float32(lo[3*j+k]), g*float32(hi[3*j+k])
				if a < pl {
					d += pl - a
				} else if a > ph {
					d += a - ph
				}
				p += g * float32(fb[3*j+k])
			}
			if d < changeTol*(p+changeFloor) {
				if step == 1 {
					out[j] = 255
					continue
				}
				for yy := y - step/2; yy < min(y-step/2+step, sz.Y); yy++ {
					for xx := x - step/2; xx < min(x-step/2+step, sz.X); xx++ {
						out[yy*sz.X+xx] = 255
					}
				}
			}
		}
	}
	return out
}

func clampi(v, lo, hi int) int { return max(lo, min(hi, v)) }

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func f32bytes(f []float32) []byte {
	b := make([]byte, 4*len(f))
	for i, v := range f {
		u := math.Float32bits(v)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}

// freshBlur is the fresh image blurred like the warped photos (3x3 Gaussian). Cached.
func freshBlur(fresh *SheetImage) []byte {
	if fresh.blur != nil {
		return fresh.blur
	}
	b := gocv.NewMat()
	defer b.Close()
	gocv.GaussianBlur(fresh.Image, &b, image.Pt(3, 3), 0, 0, gocv.BorderReflect101)
	fresh.blur = b.ToBytes()
	return fresh.blur
}

// freshRange is the fresh image's per-channel minimum and maximum over a 5x5 neighbourhood
// (of the 3x3-blurred image). Cached.
func freshRange(fresh *SheetImage) ([]byte, []byte) {
	if fresh.lo != nil {
		return fresh.lo, fresh.hi
	}
	b := gocv.NewMat()
	defer b.Close()
	gocv.GaussianBlur(fresh.Image, &b, image.Pt(3, 3), 0, 0, gocv.BorderReflect101)
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(5, 5))
	defer k.Close()
	lo, hi := gocv.NewMat(), gocv.NewMat()
	defer lo.Close()
	defer hi.Close()
	gocv.Erode(b, &lo, k)
	gocv.Dilate(b, &hi, k)
	fresh.lo, fresh.hi = lo.ToBytes(), hi.ToBytes()
	return fresh.lo, fresh.hi
}
