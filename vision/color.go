package vision

import (
	"image"
	"math"
	"sort"
	"sync"

	"gocv.io/x/gocv"
)

// Colour models.
//
// Why colour and not edges: plain Canny + approxPolyDP needs a clean, contrasting outline and
// fails on light tables, wood grain, shadows and torn edges. Paper is the one large thing in
// the photo whose colour (bright, unsaturated, lit evenly) differs from the table's, and the
// table is what the photo's border shows. So tearcam models two colour distributions in
// CIE Lab, the table (seeded from the image border) and the paper (seeded from the brightest,
// least saturated pixels, later from the sheet itself), as smoothed 3-D histograms, classifies
// each pixel by likelihood ratio, and re-estimates both models from the result: a GrabCut-like
// EM loop without the graph cut, which costs a few milliseconds instead of a few hundred.
// Morphology and the contour hierarchy then clean the mask, and the outline's straight sides
// are fitted with total least squares, so a torn corner or a rounded one cannot move a corner.

const (
	histBits = 5 // bins per Lab channel = 32
	histN    = 1 << (3 * histBits)
)

// colorHist is a smoothed, normalised 3-D histogram of Lab colours (8-bit OpenCV Lab).
type colorHist struct {
	p [histN]float32
}

func binOf(l, a, b byte) int {
	const s = 8 - histBits
	return int(l>>s)<<(2*histBits) | int(a>>s)<<histBits | int(b>>s)
}

// histFrom counts lab pixels (3 bytes each) where sel(i) is true, then smooths (±rl bins
// along L) and normalises.
func histFrom(lab []byte, rl int, sel func(i int) bool) *colorHist {
	h := &colorHist{}
	for i := 0; i*3+2 < len(lab); i++ {
		if sel(i) {
			h.p[binOf(lab[i*3], lab[i*3+1], lab[i*3+2])]++
		}
	}
	h.smoothL(rl)
	return h
}

// smooth blurs the histogram with a 3-tap box filter per axis (tolerates lighting changes of
// about one bin) and normalises it to sum 1.
func (h *colorHist) smooth() { h.smoothL(1) }

// smoothL is smooth with a box of ±rl bins along the lightness axis: a shadow or a light
// falloff across the sheet changes lightness far more than hue, so the paper model is
// widened along L only.
func (h *colorHist) smoothL(rl int) {
	const n = 1 << histBits
	var tmp [histN]float32
	for axis := 0; axis < 3; axis++ {
		shift := histBits * (2 - axis)
		stride := 1 << shift
		r := 1
		if axis == 0 {
			r = rl
		}
		for i := 0; i < histN; i++ {
			c := (i >> shift) & (n - 1) // (i / stride) % n
			v := h.p[i]
			for k := 1; k <= r; k++ {
				if c-k >= 0 {
					v += h.p[i-k*stride]
				}
				if c+k < n {
					v += h.p[i+k*stride]
				}
			}
			tmp[i] = v
		}
		h.p = tmp
	}
	var s float64
	for _, v := range h.p {
		s += float64(v)
	}
	if s > 0 {
		for i := range h.p {
			h.p[i] = float32(float64(h.p[i]) / s)
		}
	}
}

// cellLab is the Lab colour (labBytes) of the centre of each of the 32768 BGR cells of
// paperProbBGR (5 bits per channel), computed once.
var cellLab = sync.OnceValue(func() []byte {
	const n = 1 << 15
	cells := make([]byte, 3*n)
	for i := 0; i < n; i++ {
		cells[3*i] = byte(i>>10)<<3 | 4
		cells[3*i+1] = byte(i>>5&31)<<3 | 4
		cells[3*i+2] = byte(i&31)<<3 | 4
	}
	cm, err := gocv.NewMatFromBytes(n, 1, gocv.MatTypeCV8UC3, cells)
	if err != nil {
		panic(err)
	}
	defer cm.Close()
	return labBytes(cm)
})

// paperProb returns, per pixel, P(paper | colour) in 0..255 from the two models.
func paperProb(lab []byte, fg, bg *colorHist, prior float64) []byte {
	out := make([]byte, len(lab)/3)
	// Colours neither model has seen are table: unknown things are not paper.
	var lut [histN]byte
	for i := 0; i < histN; i++ {
		f := (float64(fg.p[i]) + 1e-7) * prior
		b := (float64(bg.p[i]) + 1e-6) * (1 - prior)
		lut[i] = byte(math.Round(255 * f / (f + b)))
	}
	for i := range out {
		out[i] = lut[binOf(lab[i*3], lab[i*3+1], lab[i*3+2])]
	}
	return out
}

// paperness is a colour-blind prior for paper: bright and unsaturated (Lab L minus chroma).
func paperness(lab []byte) []float64 {
	out := make([]float64, len(lab)/3)
	for i := range out {
		l := float64(lab[i*3])
		a := float64(lab[i*3+1]) - 128
		b := float64(lab[i*3+2]) - 128
		out[i] = l - 2*math.Hypot(a, b)
	}
	return out
}

// otsu returns the threshold maximising between-class variance of values (0..255 range assumed).
func otsu(v []float64, lo, hi float64) float64 {
	const nb = 256
	var hist [nb]float64
	for _, x := range v {
		k := int((x - lo) / (hi - lo) * (nb - 1))
		if k < 0 {
			k = 0
		} else if k >= nb {
			k = nb - 1
		}
		hist[k]++
	}
	total := float64(len(v))
	var sum float64
	for i, c := range hist {
		sum += float64(i) * c
	}
	var wB, sumB, best float64
	bestK := nb / 2
	for k := 0; k < nb; k++ {
		wB += hist[k]
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(k) * hist[k]
		mB := sumB / wB
		mF := (sum - sumB) / wF
		bv := wB * wF * (mB - mF) * (mB - mF)
		if bv > best {
			best, bestK = bv, k
		}
	}
	return lo + (float64(bestK)+0.5)/(nb-1)*(hi-lo)
}

func percentile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(clampf(q*float64(len(s)-1), 0, float64(len(s)-1)))]
}

// labBytes converts a BGR Mat to 8-bit Lab bytes.
func labBytes(bgr gocv.Mat) []byte {
	lab := gocv.NewMat()
	defer lab.Close()
	gocv.CvtColor(bgr, &lab, gocv.ColorBGRToLab)
	return lab.ToBytes()
}

// morph applies open then close with an elliptical kernel of the given diameters (0 = skip).
func morph(mask *gocv.Mat, openD, closeD int) {
	if openD > 1 {
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(openD, openD))
		gocv.MorphologyEx(*mask, mask, gocv.MorphOpen, k)
		k.Close()
	}
	if closeD > 1 {
		k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(closeD, closeD))
		gocv.MorphologyEx(*mask, mask, gocv.MorphClose, k)
		k.Close()
	}
}

// paperProbBGR is paperProb for BGR pixels, through a lookup table over 5-bit BGR cells
// whose centres are converted to Lab once: three times cheaper than converting every pixel.
func paperProbBGR(bgr []byte, fg, bg *colorHist, prior float64) []byte {
	lp := paperProb(cellLab(), fg, bg, prior)
	out := make([]byte, len(bgr)/3)
	split2(len(out), func(lo, hi int) { // on two cores
		for i := lo; i < hi; i++ {
			out[i] = lp[int(bgr[3*i]>>3)<<10|int(bgr[3*i+1]>>3)<<5|int(bgr[3*i+2]>>3)]
		}
	})
	return out
}
