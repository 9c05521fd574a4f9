package synth

import (
	"image"
	"math"
	"math/rand"
)

// Backgrounds are the table looks NewTable can make.
var Backgrounds = []string{"wood", "felt", "desk", "dark_cloth"}

// NewTable draws a procedural table top of the given kind ("" picks one) and size.
func NewTable(rng *rand.Rand, kind string, size image.Point) (*image.RGBA, string) {
	if kind == "" {
		kind = Backgrounds[rng.Intn(len(Backgrounds))]
	}
	w, h := size.X, size.Y
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	set := func(x, y int, c [3]float64) {
		i := img.PixOffset(x, y)
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = u8(c[0]), u8(c[1]), u8(c[2]), 255
	}
	low := valueNoise(rng, w, h, 260, 3)
	switch kind {
	case "wood":
		woods := [][2][3]float64{
			{{150, 98, 58}, {196, 142, 92}},   // oak
			{{95, 58, 35}, {140, 92, 58}},     // walnut
			{{176, 136, 96}, {214, 178, 134}}, // pine
			{{120, 70, 45}, {170, 110, 72}},   // cherry
		}
		pal := woods[rng.Intn(len(woods))]
		phi := rng.Float64() * math.Pi
		if rng.Float64() < 0.6 {
			phi = math.Round(phi/(math.Pi/2)) * math.Pi / 2
		}
		woodInto(rng, img, low, pal, phi)
	case "felt":
		felts := [][3]float64{{28, 92, 52}, {34, 52, 104}, {112, 32, 38}, {80, 80, 84}, {60, 40, 90}}
		base := felts[rng.Intn(len(felts))]
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := 1 + 0.06*low[y*w+x] + 0.09*rng.NormFloat64()
				set(x, y, [3]float64{base[0] * v, base[1] * v, base[2] * v})
			}
		}
	case "desk":
		g := 170 + 55*rng.Float64()
		base := [3]float64{g + 8*rng.Float64(), g + 4*rng.Float64(), g - 10*rng.Float64()}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := 1 + 0.05*low[y*w+x] + 0.018*rng.NormFloat64()
				if rng.Float64() < 0.002 {
					v *= 0.85
				}
				set(x, y, [3]float64{base[0] * v, base[1] * v, base[2] * v})
			}
		}
	default: // dark cloth
		kind = "dark_cloth"
		cloths := [][3]float64{{34, 34, 38}, {26, 30, 48}, {44, 36, 32}, {20, 20, 22}}
		base := cloths[rng.Intn(len(cloths))]
		wr := valueNoise(rng, w, h, 90, 2)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				weave := 0.07 * math.Sin(float64(x)*2.1) * math.Sin(float64(y)*2.1)
				v := 1 + 0.25*wr[y*w+x] + 0.1*low[y*w+x] + weave + 0.06*rng.NormFloat64()
				set(x, y, [3]float64{base[0] * v, base[1] * v, base[2] * v})
			}
		}
	}
	return img, kind
}

// WoodTable draws a wooden table top with the given dark and light wood colours (RGB) and
// grain direction (degrees).
func WoodTable(rng *rand.Rand, size image.Point, pal [2][3]float64, grainDeg float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
	low := valueNoise(rng, size.X, size.Y, 260, 3)
	woodInto(rng, img, low, pal, grainDeg*math.Pi/180)
	return img
}

func woodInto(rng *rand.Rand, img *image.RGBA, low []float64, pal [2][3]float64, phi float64) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	set := func(x, y int, c [3]float64) {
		i := img.PixOffset(x, y)
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = u8(c[0]), u8(c[1]), u8(c[2]), 255
	}
	ca, sa := math.Cos(phi), math.Sin(phi)
	plank := 110 + 120*rng.Float64()
	period := 14 + 16*rng.Float64()
	n := newLattice(rng)
	nRows := int(math.Hypot(float64(w), float64(h))) + 4
	plankShift := make([]float64, 64)
	plankTone := make([]float64, 64)
	for i := range plankShift {
		plankShift[i] = rng.Float64() * 1000
		plankTone[i] = 1 + 0.07*rng.NormFloat64()
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := ca*float64(x) + sa*float64(y)
			b := -sa*float64(x) + ca*float64(y) + float64(nRows) // always positive
			pi := int(math.Floor(b/plank)) & 63
			a2 := a + plankShift[pi]*7 // each plank its own stretch of tree
			// Growth rings: nearly parallel along the grain, slowly wandering.
			bw := b + plankShift[pi] + 28*n.at(a2/380, b/95) + 4*n.at(a2/90, b/30)
			ring := math.Pow(0.5+0.5*math.Sin(2*math.Pi*bw/period), 2.5)
			fibre := n.at(a2/45, b/1.4)
			v := 0.36 + 0.3*ring + 0.12*fibre + 0.16*low[y*w+x] + 0.03*rng.NormFloat64()
			c := mix3(pal[1], pal[0], clampf(v, 0, 1))
			t := plankTone[pi]
			c = [3]float64{c[0] * t, c[1] * t, c[2] * t}
			if d := math.Mod(b, plank); d < 2.2 {
				c = mix3(c, [3]float64{50, 30, 20}, 0.55*(1-d/2.2))
			}
			set(x, y, c)
		}
	}
}

// lattice is 2-D value noise on the integer lattice, in [-1, 1], smoothstep-interpolated.
type lattice struct{ v [4096]float64 }

func newLattice(rng *rand.Rand) *lattice {
	l := &lattice{}
	for i := range l.v {
		l.v[i] = rng.Float64()*2 - 1
	}
	return l
}

func (l *lattice) val(i, j int) float64 {
	h := uint32(i)*73856093 ^ uint32(j)*19349663
	h ^= h >> 13
	h *= 0x5bd1e995
	h ^= h >> 15
	return l.v[h&4095]
}

func (l *lattice) at(x, y float64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	tx, ty := x-x0, y-y0
	tx, ty = tx*tx*(3-2*tx), ty*ty*(3-2*ty)
	i, j := int(x0), int(y0)
	a := l.val(i, j) + (l.val(i+1, j)-l.val(i, j))*tx
	b := l.val(i, j+1) + (l.val(i+1, j+1)-l.val(i, j+1))*tx
	return a + (b-a)*ty
}
