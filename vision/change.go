package vision

import (
	"bytes"
	"fmt"
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
//
// margin is the colour test's answer (255 paper) over the whole warped frame: in the margin
// around the sheet, a pixel it calls paper that is closer to the table's colour than to the
// sheet's edge (the fresh sheet's nearest edge pixel under the lighting there) is set to 0.
//
// grey compares brightness only (either photo is greyscale): wb must then hold equal channels,
// and the fresh sheet's prediction is taken in grey too (freshGreyBlur, freshGreyRange).
//
// tf is the table's colour, tableField of the same wb (nil: no table hypothesis).
func changePaper(fresh *SheetImage, wb []byte, fw, off int, sz image.Point, conf, margin []byte, grey bool, tf *tableColours, rounds int) []byte {
	tr := tracer()
	tc := newTrainCache(sz)
	// Four rounds (three coarse ones, one pixel in 4x4): each round's paper (away from its
	// edges) trains the next round's lighting,
	// so the estimate spreads into shaded parts of the sheet the colour models missed.
	out := changeRound(fresh, wb, fw, off, sz, conf, int(math.Round(fresh.PxPerMM)), nil, tf, nil, grey, tc)
	tr("c.round0")
	// Two buffers for the rounds' confident pixels, in turn: the last round's stays intact
	// for the comparison in changeRound (and is 0 outside the frame, which no round writes).
	bufs := [2][]byte{make([]byte, len(conf)), make([]byte, len(conf))}
	for round := 1; round < rounds && out != nil; round++ {
		c := bufs[round%2]
		erodeInto(c, fw, off, out, sz, int(3*fresh.PxPerMM)|1)
		step := 1
		if round < rounds-1 {
			step = int(math.Round(fresh.PxPerMM))
		}
		// Pixels 3 mm inside the last round's paper that the colour models also call paper
		// with confidence are paper: the full-resolution test is spent on the rest. (Only
		// the full-resolution round uses them; c is 0 outside the frame.)
		var sure, mg []byte
		if step == 1 {
			sure = make([]byte, len(c))
			for y := 0; y < sz.Y; y++ {
				i0 := (y+off)*fw + off
				cr, fr, sr := c[i0:i0+sz.X], conf[i0:i0+sz.X], sure[i0:i0+sz.X]
				for x, v := range cr {
					if v != 0 && fr[x] != 0 {
						sr[x] = 255
					}
				}
			}
			mg = margin
		}
		tr("c.prep")
		next := changeRound(fresh, wb, fw, off, sz, c, step, sure, tf, mg, grey, tc)
		tr(fmt.Sprintf("c.round%d", round))
		if next == nil {
			break
		}
		out = next
	}
	return out
}

// erodeInto erodes the mask src (sz, row-major) with a square of side k (OpenCV's erode) and
// writes the result into dst, a frame fw wide holding the mask at a margin of off px: read
// and written in place (views of both), where a copy of src in and of the result out cost
// two more passes over the frame.
func erodeInto(dst []byte, fw, off int, src []byte, sz image.Point, k int) {
	sm, err := gocv.NewMatFromBytes(sz.Y, sz.X, gocv.MatTypeCV8UC1, src)
	if err != nil {
		panic(fmt.Sprintf("vision: NewMatFromBytes %dx%d: %v", sz.X, sz.Y, err)) // programming error
	}
	defer sm.Close()
	dm, err := gocv.NewMatFromBytes(len(dst)/fw, fw, gocv.MatTypeCV8UC1, dst)
	if err != nil {
		panic(fmt.Sprintf("vision: NewMatFromBytes %dx%d: %v", fw, len(dst)/fw, err))
	}
	defer dm.Close()
	dv := dm.Region(image.Rect(off, off, off+sz.X, off+sz.Y))
	defer dv.Close()
	km := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k))
	defer km.Close()
	gocv.Erode(sm, &dv, km)
}

// trainCache holds, per lighting training sample of changeRound (every other row and column
// of the frame), what is the same in every round: whether the pixel looks like the table
// (state 0 not yet computed, 1 no, 2 yes) and its ratio to the fresh sheet per channel.
type trainCache struct {
	sw    int
	state []byte
	ratio []float32
	// The last round's confident pixels (never written afterwards) and its cell sums.
	prevConf         []byte
	prevSum, prevCnt []float32
}

func newTrainCache(sz image.Point) *trainCache {
	sw, sh := (sz.X+1)/2, (sz.Y+1)/2
	return &trainCache{sw: sw, state: make([]byte, sw*sh), ratio: make([]float32, 3*sw*sh)}
}

// vetoRefMM: the margin veto compares a margin pixel with the fresh sheet this far inside
// its nearest edge.
const vetoRefMM = 1.0

// changeRound is one round; step > 1 classifies one pixel in step x step and fills the block
// (for the rounds that only train the next one).
func changeRound(fresh *SheetImage, wb []byte, fw, off int, sz image.Point, conf []byte, step int, sure []byte, tf *tableColours, margin []byte, grey bool, tc *trainCache) []byte {
	fb := freshBlur(fresh)
	lo, hi := freshRange(fresh)
	if grey {
		fb = freshGreyBlur(fresh)
		lo, hi = freshGreyRange(fresh)
	}
	ink := freshInk(fresh)
	ppm := int(math.Round(fresh.PxPerMM * changeCellMM)) // pixels per cell
	cw, ch := (sz.X+ppm-1)/ppm, (sz.Y+ppm-1)/ppm
	sum := make([]float32, 3*cw*ch)
	cnt := make([]float32, cw*ch)
	// Every other row and column (even coordinates) is plenty for the gain. Cell by cell,
	// each cell's samples in raster order (the order of one pass over the whole frame, so the
	// same float32 sums), carried in registers. A cell whose confident pixels are the same as
	// in the last round (same conf bytes on its sampled rows) has the same samples, hence
	// the same sums: they are taken over. Rows of cells on two cores (split2): each cell's
	// samples and cache entries are its own.
	var knownHalf [2]int
	split2(ch, func(cy0, cy1 int) {
		known := 0
		defer func() { knownHalf[min(cy0, 1)] = known }()
		for cy := cy0; cy < cy1; cy++ {
			ya, yb := cy*ppm, min((cy+1)*ppm, sz.Y)
			ya += ya & 1
			for cx := 0; cx < cw; cx++ {
				c := cy*cw + cx
				xa, xb := cx*ppm, min((cx+1)*ppm, sz.X)
				if tc.prevConf != nil {
					same := true
					for y := ya; y < yb && same; y += 2 {
						i0 := (y+off)*fw + off
						same = bytes.Equal(conf[i0+xa:i0+xb], tc.prevConf[i0+xa:i0+xb])
					}
					if same {
						sum[3*c], sum[3*c+1], sum[3*c+2] = tc.prevSum[3*c], tc.prevSum[3*c+1], tc.prevSum[3*c+2]
						cnt[c] = tc.prevCnt[c]
						known += int(cnt[c])
						continue
					}
				}
				var s0, s1, s2, n float32
				for y := ya; y < yb; y += 2 {
					srow := (y / 2) * tc.sw
					fy := (y+off)*fw + off
					for x := xa + xa&1; x < xb; x += 2 {
						j := y*sz.X + x
						i := fy + x
						if conf[i] == 0 || ink[j] != 0 {
							continue
						}
						// A pixel that looks like the table trains nothing: on a pale table, a
						// few table pixels called paper would pull the lighting down where paper
						// was torn away, and the table would then pass as shaded paper.
						// Both the test and the pixel's ratio to the fresh sheet are the same in
						// every round: computed once (tc).
						si := srow + x/2
						if tc.state[si] == 0 {
							tc.state[si] = 1
							tol := tableTrainTol * (float32(wb[3*i]) + float32(wb[3*i+1]) + float32(wb[3*i+2]) + changeFloor)
							if tf != nil && tf.farOf(x+off, y+off) {
								tol /= farTableMargin
							}
							if tf != nil && tf.closer(wb[3*i:3*i+3], x+off, y+off, tol) {
								tc.state[si] = 2
							} else {
								for k := 0; k < 3; k++ {
									tc.ratio[3*si+k] = float32(wb[3*i+k]) / float32(max(fb[3*j+k], 8))
								}
							}
						}
						if tc.state[si] == 2 {
							continue
						}
						r := tc.ratio[3*si : 3*si+3 : 3*si+3]
						s0 += r[0]
						s1 += r[1]
						s2 += r[2]
						n++
						known++
					}
				}
				sum[3*c], sum[3*c+1], sum[3*c+2], cnt[c] = s0, s1, s2, n
			}
		}
	})
	known := knownHalf[0] + knownHalf[1]
	tc.prevConf, tc.prevSum, tc.prevCnt = conf, sum, cnt
	if known < sz.X*sz.Y/200 {
		return nil
	}
	// Normalised convolution on the cell grid; cells with too little support nearby take
	// the lighting of the nearest supported cells (normConvReach), the global gain only when
	// no cell has support.
	var gs [3]float64
	var gn float64
	for c := range cnt {
		for k := 0; k < 3; k++ {
			gs[k] += float64(sum[3*c+k])
		}
		gn += float64(cnt[c])
	}
	sig := changeSigmaMM / changeCellMM
	gain, far := normConvReach(sum, cnt, cw, ch, sig, gocv.BorderReplicate, 0.5,
		[3]float32{float32(gs[0] / gn), float32(gs[1] / gn), float32(gs[2] / gn)})
	if gain == nil {
		return nil
	}
	// Where the lighting is extrapolated (far), the table must be farther off than
	// farTableMargin times the paper prediction's distance for the pixel to be paper.
	farD := func(x, y int, d float32) float32 {
		if far[(y/ppm)*cw+x/ppm] {
			return farTableMargin * d
		}
		return d
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
	// The margin veto (see changePaper), at full resolution only.
	if margin != nil && tf != nil && step == 1 {
		fh := len(margin) / fw
		vin := int(math.Round(vetoRefMM * fresh.PxPerMM))
		veto := func(X, Y int) {
			i := Y*fw + X
			if margin[i] == 0 {
				return
			}
			// The sheet's pixel vetoRefMM inside its edge: the fresh photo's edge pixels
			// themselves are blurred with its table, and their min..max interval spans
			// paper to table, so a table pixel would lie within it.
			y := clampi(Y-off, vin, sz.Y-1-vin)
			x := clampi(X-off, vin, sz.X-1-vin)
			j := y*sz.X + x
			gi := 3 * ((y/cell)*gw + x/cell)
			d := intervalDist(wb[3*i:3*i+3], lo[3*j:3*j+3], hi[3*j:3*j+3], gv[gi:gi+3])
			if tf.closer(wb[3*i:3*i+3], X, Y, d) {
				margin[i] = 0
			}
		}
		split2(fh, func(Y0, Y1 int) {
			for Y := Y0; Y < Y1; Y++ {
				if Y < off || Y >= off+sz.Y {
					for X := 0; X < fw; X++ {
						veto(X, Y)
					}
					continue
				}
				for X := 0; X < off; X++ { // the sheet itself is no margin
					veto(X, Y)
				}
				for X := off + sz.X; X < fw; X++ {
					veto(X, Y)
				}
			}
		})
	}
	out := make([]byte, sz.X*sz.Y)
	ones := make([]byte, step) // a block row of paper, for the coarse rounds
	for i := range ones {
		ones[i] = 255
	}
	if step == 1 {
		changeRow := func(y int) {
			n := sz.X
			i0 := (y+off)*fw + off
			orow := out[y*n : y*n+n]
			wrow := wb[3*i0 : 3*(i0+n)]
			lrow, hrow, frow := lo[3*y*n:3*(y+1)*n], hi[3*y*n:3*(y+1)*n], fb[3*y*n:3*(y+1)*n]
			grow := gv[3*y*gw : 3*(y*gw+n)]
			var srow []byte
			if sure != nil {
				srow = sure[i0 : i0+n]
			}
			for x := 0; x < len(orow); x++ {
				if srow != nil && srow[x] != 0 {
					// A run of sure paper (most of the sheet): paper to its end.
					k := bytes.IndexByte(srow[x:], 0)
					if k < 0 {
						k = len(orow) - x
					}
					for e := x + k; x < e; x++ {
						orow[x] = 255
					}
					if x == len(orow) {
						break
					}
				}
				k := 3 * x
				a, g := wrow[k:k+3:k+3], grow[k:k+3:k+3]
				l, h, f := lrow[k:k+3:k+3], hrow[k:k+3:k+3], frow[k:k+3:k+3]
				// As below, unrolled over the channels (the same float32 operations in the
				// same order).
				var d, p float32
				a0, pl, ph := float32(a[0]), g[0]*float32(l[0]), g[0]*float32(h[0])
				if a0 < pl {
					d += pl - a0
				} else if a0 > ph {
					d += a0 - ph
				}
				p += g[0] * float32(f[0])
				a1, pl, ph := float32(a[1]), g[1]*float32(l[1]), g[1]*float32(h[1])
				if a1 < pl {
					d += pl - a1
				} else if a1 > ph {
					d += a1 - ph
				}
				p += g[1] * float32(f[1])
				a2, pl, ph := float32(a[2]), g[2]*float32(l[2]), g[2]*float32(h[2])
				if a2 < pl {
					d += pl - a2
				} else if a2 > ph {
					d += a2 - ph
				}
				p += g[2] * float32(f[2])
				if d < changeTol*(p+changeFloor) && (tf == nil || d == 0 || !tf.closer(a, x+off, y+off, farD(x, y, d))) {
					orow[x] = 255
				}
			}
		}
		split2(sz.Y, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				changeRow(y)
			}
		})
		return out
	}
	// Coarse: one pixel per block; a block row of paper is built once and copied to the
	// block's rows. Block rows on two cores (split2).
	split2((sz.Y-step/2+step-1)/step, func(b0, b1 int) {
		prow := make([]byte, sz.X)
		for y := step/2 + b0*step; y < min(sz.Y, step/2+b1*step); y += step {
			clear(prow)
			any := false
			for x := step / 2; x < sz.X; x += step {
				j := y*sz.X + x
				i := (y+off)*fw + x + off
				gi := 3 * ((y/cell)*gw + x/cell)
				d := intervalDist(wb[3*i:3*i+3], lo[3*j:3*j+3], hi[3*j:3*j+3], gv[gi:gi+3])
				var p float32
				for k := 0; k < 3; k++ {
					p += gv[gi+k] * float32(fb[3*j+k])
				}
				if d < changeTol*(p+changeFloor) && (tf == nil || d == 0 || !tf.closer(wb[3*i:3*i+3], x+off, y+off, farD(x, y, d))) {
					copy(prow[x-step/2:min(x-step/2+step, sz.X)], ones)
					any = true
				}
			}
			if any {
				for yy := y - step/2; yy < min(y-step/2+step, sz.Y); yy++ {
					copy(out[yy*sz.X:(yy+1)*sz.X], prow)
				}
			}
		}
	})
	return out
}

// bandPixels calls f, in raster order, for every second pixel of every second row of the
// warped frame (fw wide, the sheet at a margin of off px, sz its size) that lies inside the
// photo (valid 255) and 3 to 8 mm (at ppm px/mm) outside the sheet: the band where, once a
// photo is registered, only the table shows (paper never grows).
func bandPixels(valid []byte, fw, off int, sz image.Point, ppm float64, f func(i, x, y int)) {
	fh := len(valid) / fw
	b0, b1 := int(3*ppm), int(8*ppm)
	for y := 0; y < fh; y += 2 {
		// Rows crossing the sheet: skip to the band on its right (same pixels, same order).
		ry := max(off-y, y-(off+sz.Y-1), 0) < b0
		for x := 0; x < fw; x += 2 {
			if ry && x > off-b0 && x < off+sz.X-1+b0 {
				x = (off+sz.X-1+b0+1)&^1 - 2
				continue
			}
			i := y*fw + x
			dx := max(off-x, x-(off+sz.X-1), 0)
			dy := max(off-y, y-(off+sz.Y-1), 0)
			if d := max(dx, dy); d < b0 || d > b1 || valid[i] != 255 {
				continue
			}
			f(i, x, y)
		}
	}
}

// normConv is normalised convolution on a cw x ch grid of cells: sum holds each cell's
// summed colour (BGR, 3 per cell) and cnt its count of pixels; both are blurred with a
// Gaussian of sig cells (kernel k cells wide, the given border), and each cell's colour is
// the blurred sum over the blurred count, or fallback where the blurred count is not above
// minW. nil when OpenCV refuses the buffers.
func normConv(sum, cnt []float32, cw, ch int, sig float64, k int, border gocv.BorderType, minW float32, fallback [3]float32) []float32 {
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
	both(func() { gocv.GaussianBlur(sm, &bs, image.Pt(k, k), sig, sig, border) },
		func() { gocv.GaussianBlur(cm, &bc, image.Pt(k, k), sig, sig, border) })
	bsv, bcv := float32s(bs), float32s(bc)
	out := make([]float32, 3*cw*ch)
	for c := range cnt {
		for j := 0; j < 3; j++ {
			if bcv[c] > minW {
				out[3*c+j] = bsv[3*c+j] / bcv[c]
			} else {
				out[3*c+j] = fallback[j]
			}
		}
	}
	return out
}

// farTableMargin: where changeRound's lighting is extrapolated from the nearest known paper
// (normConvReach), a pixel is paper only when the table's colour is farther from it than
// this many times the paper prediction. The extrapolated lighting is weaker evidence than
// the measured one: on a pale desk it let the desk seen where paper was torn away pass as
// paper over whole torn-away regions (synthetic seed 2 case-011 hana-5, seed 3 case-003
// emil-4), where the global mean it replaces had rejected it.
//
// The same margin holds for the table's colour where it is only the band's mean (beyond
// the estimate's 75 mm reach, tableColours.far): a confident paper pixel trains the lighting
// unless it is within tableTrainTol/farTableMargin of that guess. Shaded cream paper mid-sheet
// on a pale grey desk lay within tableTrainTol of the band's mean, so it trained nothing,
// the prediction there stayed that of the lit paper around it, and the patch, nearer the
// table's guess than that prediction, was lost (synthetic seed 3 case-003 emil-4: a 158 mm²
// patch at (128, 102) mm measured as a second piece).
const farTableMargin = 2

// normConvReach is normConv with a kernel of +-3 sigma, where a cell whose support is not
// above minW takes the mean of its supported 8-neighbours, layer by layer outwards from the
// supported cells (so it takes the lighting of the nearest support); fallback only when no
// cell has support.
//
// Lighting varies smoothly but far from uniformly: a vignetted corner can be a third darker
// than the sheet's middle. The global mean there predicted the corner as bright as the
// middle, the shaded paper failed the change test, and since each round's paper trains the
// next one's lighting the gap never closed (synthetic seed 5 case-007: a triangle of
// 10 x 25 mm lost at a corner, its boundary stepping along the 2 mm cells where the
// support crossed minW). The nearest support's lighting is the better guess. far marks the
// cells whose value was extrapolated so (or is the fallback).
func normConvReach(sum, cnt []float32, cw, ch int, sig float64, border gocv.BorderType, minW float32, fallback [3]float32) ([]float32, []bool) {
	nan := float32(math.NaN())
	out := normConv(sum, cnt, cw, ch, sig, int(6*sig)|1, border, minW, [3]float32{nan, nan, nan})
	if out == nil {
		return nil, nil
	}
	known := make([]bool, cw*ch)
	var todo []int
	for c := range known {
		known[c] = out[3*c] == out[3*c] // not NaN
		if !known[c] {
			todo = append(todo, c)
		}
	}
	far := make([]bool, cw*ch)
	for _, c := range todo {
		far[c] = true
	}
	if len(todo) == len(known) {
		for c := range known {
			copy(out[3*c:3*c+3], fallback[:])
		}
		return out, far
	}
	for len(todo) > 0 {
		var layer []int
		rest := todo[:0]
		for _, c := range todo {
			x, y := c%cw, c/cw
			var s [3]float32
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= cw || yy >= ch || !known[yy*cw+xx] {
						continue
					}
					j := 3 * (yy*cw + xx)
					s[0], s[1], s[2] = s[0]+out[j], s[1]+out[j+1], s[2]+out[j+2]
					n++
				}
			}
			if n == 0 {
				rest = append(rest, c)
				continue
			}
			out[3*c], out[3*c+1], out[3*c+2] = s[0]/float32(n), s[1]/float32(n), s[2]/float32(n)
			layer = append(layer, c)
		}
		for _, c := range layer {
			known[c] = true
		}
		todo = rest
	}
	return out, far
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

// toGrey returns BGR bytes with each pixel's three channels set to its grey value
// (0.114 B + 0.587 G + 0.299 R, as OpenCV's BGR2GRAY and ImageMagick's Rec601 luma).
func toGrey(b []byte) []byte {
	out := make([]byte, len(b))
	for i := 0; i+2 < len(b); i += 3 {
		g := byte((1868*uint32(b[i]) + 9617*uint32(b[i+1]) + 4899*uint32(b[i+2]) + 8192) >> 14)
		out[i], out[i+1], out[i+2] = g, g, g
	}
	return out
}

// freshGreyBlur is freshBlur in grey (three equal channels). Cached.
func freshGreyBlur(fresh *SheetImage) []byte {
	if fresh.greyBlur == nil {
		fresh.greyBlur = toGrey(freshBlur(fresh))
	}
	return fresh.greyBlur
}

// freshGreyRange is freshRange in grey: the grey of the per-channel minimum and maximum,
// an interval that contains the grey values' own (grey is a positive combination). Cached.
func freshGreyRange(fresh *SheetImage) ([]byte, []byte) {
	if fresh.greyLo == nil {
		lo, hi := freshRange(fresh)
		fresh.greyLo, fresh.greyHi = toGrey(lo), toGrey(hi)
	}
	return fresh.greyLo, fresh.greyHi
}

// greyImage is isGrey(s.Image), cached on the sheet (its Image never changes).
func (s *SheetImage) greyImage() bool {
	if s.grey == 0 {
		s.grey = 1
		if isGrey(s.Image) {
			s.grey = 2
		}
	}
	return s.grey == 2
}

// isGrey reports whether a BGR image is greyscale: on a sample of one pixel in 7, 99% have
// channels within 2 levels of each other (a greyscale JPEG decoded to BGR has them equal).
func isGrey(m gocv.Mat) bool {
	if m.Empty() || m.Channels() != 3 || m.Type() != gocv.MatTypeCV8UC3 {
		return false
	}
	b, err := m.DataPtrUint8()
	if err != nil || !m.IsContinuous() {
		return false
	}
	n, off := 0, 0
	for i := 0; i+2 < len(b); i += 21 {
		lo, hi := min(b[i], b[i+1], b[i+2]), max(b[i], b[i+1], b[i+2])
		if hi-lo > 2 {
			off++
		}
		n++
	}
	return n > 0 && off*100 <= n
}

// Table hypothesis.
//
// On a pale table the change test alone lets the table where paper was torn away pass as
// shaded paper (it only asks whether the pixel matches the lit fresh sheet within changeTol),
// and each round's paper trains the next round's lighting, so the error spreads. Once the
// photo is registered, the table itself is known: it is all that shows in a band 3 to 8 mm
// outside the sheet (paper never grows). tableField estimates the table's colour from that
// band, smoothly (normalised convolution on 2 mm cells, Gaussian of tableSigmaMM, the band's
// mean where no band pixel is near), and a pixel the change test would call paper is table
// when it is closer to that colour than to the predicted paper interval.

const tableSigmaMM = 15.0

// tableColours is the table's estimated colour (BGR) on a grid of cells covering the warped
// frame with its margin.
type tableColours struct {
	cell, cw int
	col      []float32 // 3 per cell
	// far marks the cells beyond the estimate's reach, which hold the band's mean (see
	// farTableMargin).
	far []bool
	// cellX[x] and cellY[y]: x/cell and y/cell over the warped frame (fw x fh), looked up
	// instead of divided at every pixel.
	cellX, cellY []int32
}

// closer reports whether the BGR pixel a at warped-frame px (x, y) is closer (sum of absolute
// channel differences) to the table's colour than d, its distance to the paper prediction.
func (t *tableColours) closer(a []byte, x, y int, d float32) bool {
	c := 3 * (int(t.cellY[y])*t.cw + int(t.cellX[x]))
	dt := abs32(float32(a[0]) - t.col[c])
	if dt >= d {
		return false
	}
	dt += abs32(float32(a[1]) - t.col[c+1])
	if dt >= d {
		return false
	}
	return dt+abs32(float32(a[2])-t.col[c+2]) < d
}

// farOf reports whether the table's colour at warped-frame px (x, y) is only the band's mean.
func (t *tableColours) farOf(x, y int) bool {
	return t.far[int(t.cellY[y])*t.cw+int(t.cellX[x])]
}

// tableTrainTol: a pixel within this fraction of its brightness (as changeTol) of the table's
// colour does not train the lighting.
const tableTrainTol = 0.05

// tableField estimates the table colour around the sheet (see tableColours) from the valid
// warped pixels 3 to 8 mm outside the frame; nil when too few are seen.
func tableField(wb, valid []byte, fw, fh, off int, sz image.Point, ppm float64) *tableColours {
	return tableFieldOf(wb, valid, fw, fh, off, sz, ppm, nil)
}

// tableFieldOf is tableField over the band pixels i (index into the warped frame) for which
// use(i) is true (all when use is nil).
func tableFieldOf(wb, valid []byte, fw, fh, off int, sz image.Point, ppm float64, use func(i int) bool) *tableColours {
	cell := int(math.Round(ppm * changeCellMM))
	cw, ch := (fw+cell-1)/cell, (fh+cell-1)/cell
	sum := make([]float32, 3*cw*ch)
	cnt := make([]float32, cw*ch)
	var gs [3]float64
	n := 0
	bandPixels(valid, fw, off, sz, ppm, func(i, x, y int) {
		if use != nil && !use(i) {
			return
		}
		c := (y/cell)*cw + x/cell
		for k := 0; k < 3; k++ {
			sum[3*c+k] += float32(wb[3*i+k])
			gs[k] += float64(wb[3*i+k])
		}
		cnt[c]++
		n++
	})
	if n < 100 {
		return nil
	}
	// A kernel of +-5 sigma and no threshold on the weight: the estimate reaches 75 mm
	// into the sheet (the nearest band pixels dominate), the band's mean beyond.
	sig := tableSigmaMM / changeCellMM
	nan := float32(math.NaN())
	col := normConv(sum, cnt, cw, ch, sig, int(10*sig)|1, gocv.BorderConstant, 1e-6, [3]float32{nan, nan, nan})
	if col == nil {
		return nil
	}
	far := make([]bool, cw*ch)
	for c := range far {
		if col[3*c] != col[3*c] { // NaN: no band pixel within reach
			far[c] = true
			col[3*c], col[3*c+1], col[3*c+2] = float32(gs[0]/float64(n)), float32(gs[1]/float64(n)), float32(gs[2]/float64(n))
		}
	}
	t := &tableColours{cell: cell, cw: cw, col: col, far: far, cellX: make([]int32, fw), cellY: make([]int32, fh)}
	for x := range t.cellX {
		t.cellX[x] = int32(x / cell)
	}
	for y := range t.cellY {
		t.cellY[y] = int32(y / cell)
	}
	return t
}

// intervalDist is the change test's distance of a photo pixel a (3 bytes, the photo's
// channel order) from the fresh sheet's predicted interval: per channel, the fresh sheet's
// darkest (lo) to brightest (hi) value within half a millimetre times the lighting gain g,
// so a registration error that small does not turn the edges of ink strokes into
// "removed". It is 0 inside the interval, else the sum over the channels of the distance to
// its nearer end, in grey levels (float32, channels summed in order 0, 1, 2: the fine pass's
// unrolled loop in changePaper computes the same operations in the same order).
func intervalDist(a, lo, hi []byte, g []float32) float32 {
	var d float32
	for k := 0; k < 3; k++ {
		x := float32(a[k])
		pl, ph := g[k]*float32(lo[k]), g[k]*float32(hi[k])
		if x < pl {
			d += pl - x
		} else if x > ph {
			d += x - ph
		}
	}
	return d
}
