package synth

import (
	"math"
	"math/rand"
)

// valueNoise returns w*h smooth noise in about [-1, 1]: octaves of random values on grids of
// spacing scale, scale/2, ..., interpolated with a smoothstep.
func valueNoise(rng *rand.Rand, w, h int, scale float64, octaves int) []float64 {
	out := make([]float64, w*h)
	amp, total := 1.0, 0.0
	for o := 0; o < octaves; o++ {
		s := math.Max(scale, 2)
		gw, gh := int(float64(w)/s)+3, int(float64(h)/s)+3
		grid := make([]float64, gw*gh)
		for i := range grid {
			grid[i] = rng.Float64()*2 - 1
		}
		xs := make([]int, w)
		xf := make([]float64, w)
		for x := 0; x < w; x++ {
			fx := float64(x) / s
			xs[x] = int(fx)
			t := fx - float64(xs[x])
			xf[x] = t * t * (3 - 2*t)
		}
		for y := 0; y < h; y++ {
			fy := float64(y) / s
			y0 := int(fy)
			ty := fy - float64(y0)
			ty = ty * ty * (3 - 2*ty)
			r0, r1 := grid[y0*gw:], grid[(y0+1)*gw:]
			row := out[y*w : (y+1)*w]
			for x := 0; x < w; x++ {
				x0, tx := xs[x], xf[x]
				a := r0[x0] + (r0[x0+1]-r0[x0])*tx
				b := r1[x0] + (r1[x0+1]-r1[x0])*tx
				row[x] += amp * (a + (b-a)*ty)
			}
		}
		total += amp
		amp *= 0.5
		scale /= 2
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

// jag is a 1-D torn-edge profile in millimetres: a slow wander, a mid-frequency wobble and
// fine fibre noise. At(t) is defined for every t (mm along the tear).
type jag struct {
	amp   []float64
	freq  []float64
	phase []float64
	fine  []float64 // fine noise samples every fineStep mm, from fineT0
	t0    float64
}

const fineStep = 0.35

// newJag makes a profile over t in [t0, t0+length] with overall roughness rough (mm).
func newJag(rng *rand.Rand, t0, length, rough float64) *jag {
	j := &jag{t0: t0}
	// Wavelengths from 60 mm down to 2 mm, amplitude ~ wavelength^0.8.
	for _, wl := range []float64{70, 35, 18, 9, 4.5, 2.2} {
		wl *= 0.8 + 0.4*rng.Float64()
		j.freq = append(j.freq, 2*math.Pi/wl)
		j.amp = append(j.amp, rough*math.Pow(wl/70, 0.8)*(0.5+rng.Float64()))
		j.phase = append(j.phase, rng.Float64()*2*math.Pi)
	}
	n := int(length/fineStep) + 3
	j.fine = make([]float64, n)
	for i := range j.fine {
		j.fine[i] = rng.NormFloat64() * 0.12 * math.Min(1, rough)
	}
	return j
}

// At returns the offset of the tear line at t.
func (j *jag) At(t float64) float64 {
	v := 0.0
	for i := range j.amp {
		v += j.amp[i] * math.Sin(j.freq[i]*t+j.phase[i])
	}
	f := (t - j.t0) / fineStep
	i := int(math.Floor(f))
	if i >= 0 && i+1 < len(j.fine) {
		a := f - float64(i)
		v += j.fine[i]*(1-a) + j.fine[i+1]*a
	}
	return v
}

// ringJag is a closed tear profile: periodic in the angle, for bites and holes.
type ringJag struct {
	amp   []float64
	k     []float64
	phase []float64
	fine  []float64
}

func newRingJag(rng *rand.Rand, radius, rough float64) *ringJag {
	j := &ringJag{}
	circ := 2 * math.Pi * radius
	for _, wl := range []float64{60, 30, 15, 8, 4, 2} {
		k := math.Max(1, math.Round(circ/wl))
		j.k = append(j.k, k)
		j.amp = append(j.amp, rough*math.Pow(wl/60, 0.8)*(0.5+rng.Float64()))
		j.phase = append(j.phase, rng.Float64()*2*math.Pi)
	}
	n := int(circ/fineStep) + 1
	if n < 8 {
		n = 8
	}
	j.fine = make([]float64, n)
	for i := range j.fine {
		j.fine[i] = rng.NormFloat64() * 0.12 * math.Min(1, rough)
	}
	return j
}

// At returns the radial offset at angle th (radians).
func (j *ringJag) At(th float64) float64 {
	v := 0.0
	for i := range j.amp {
		v += j.amp[i] * math.Sin(j.k[i]*th+j.phase[i])
	}
	f := math.Mod(th/(2*math.Pi)+1, 1) * float64(len(j.fine))
	i := int(f) % len(j.fine)
	a := f - math.Floor(f)
	v += j.fine[i]*(1-a) + j.fine[(i+1)%len(j.fine)]*a
	return v
}
