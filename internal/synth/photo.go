package synth

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand"

	"gocv.io/x/gocv"
)

// PhotoSpec says how to photograph a sheet. Zero fields take defaults.
type PhotoSpec struct {
	Size image.Point // photo size in pixels; zero: 1600x1200
	// Table is the table top (same size as the photo); nil draws a fresh one of Background.
	Table      *image.RGBA
	Background string // table kind when Table is nil ("" picks one); recorded in the truth
	// CutOff lets part of the paper stick out of the frame (recorded in the truth).
	CutOff bool
	// MinFill and MaxFill bound how much of the frame the sheet spans; zero: 0.7 and 0.95.
	MinFill, MaxFill float64
	// Angle, when not nil, is the sheet's rotation in degrees; nil draws one (any angle).
	Angle       *float64
	JPEGQuality int // zero: 62..76
	File        string
}

// Photo is one photograph.
type Photo struct {
	JPEG  []byte      // the encoded file
	Image image.Image // JPEG decoded: exactly what a reader of the file sees
	Truth PhotoTruth
}

// Mat decodes the photo into a new BGR Mat the caller must Close.
func (p *Photo) Mat() (gocv.Mat, error) {
	m, err := gocv.IMDecode(p.JPEG, gocv.IMReadColor)
	if err != nil {
		return m, fmt.Errorf("decode photo: %w", err)
	}
	return m, nil
}

// Photograph photographs the current paper of st (see PhotographSheet).
func (st *State) Photograph(rng *rand.Rand, spec PhotoSpec) (*Photo, error) {
	p := st.Sheet.Paper
	return PhotographSheet(rng, st.Sheet.Image, st.Paper, st.Sheet.PxPerMM, p.WidthMM, p.HeightMM, spec)
}

// PhotographSheet lays the paper (sheet raster img where paper is set; both in the sheet
// frame at pxPerMM, covering at least widthMM x heightMM) on a table and photographs it: rotation, position, perspective, shadow,
// uneven light, blur, noise and JPEG. The truth's corners and homography are exact.
func PhotographSheet(rng *rand.Rand, img *image.RGBA, paper *Mask, pxPerMM, widthMM, heightMM float64, spec PhotoSpec) (*Photo, error) {
	if spec.Size == (image.Point{}) {
		spec.Size = image.Pt(1600, 1200)
	}
	if spec.MinFill == 0 {
		spec.MinFill = 0.7
	}
	if spec.MaxFill == 0 {
		spec.MaxFill = 0.95
	}
	if spec.JPEGQuality == 0 {
		spec.JPEGQuality = 62 + rng.Intn(15)
	}
	W, H := spec.Size.X, spec.Size.Y
	wmm, hmm := widthMM, heightMM
	rw, rh := img.Bounds().Dx(), img.Bounds().Dy()
	table, bg := spec.Table, spec.Background
	if table == nil {
		table, bg = NewTable(rng, spec.Background, spec.Size)
	}
	if table.Bounds().Size() != spec.Size {
		return nil, fmt.Errorf("photograph: table is %v, photo %v", table.Bounds().Size(), spec.Size)
	}

	// Placement: rotation, scale, position, then a perspective tilt of the corners.
	var theta float64
	if spec.Angle != nil {
		theta = *spec.Angle
	} else if rng.Float64() < 0.5 {
		theta = float64(rng.Intn(4))*90 + rng.NormFloat64()*6
	} else {
		theta = rng.Float64() * 360
	}
	th := theta * math.Pi / 180
	mmCorners := [4]Pt{{0, 0}, {wmm, 0}, {wmm, hmm}, {0, hmm}}
	var px [4]Pt
	var s float64
	cutOff := false
	for attempt := 0; ; attempt++ {
		if attempt > 200 {
			return nil, fmt.Errorf("photograph: cannot place the sheet in %dx%d", W, H)
		}
		cs, sn := math.Abs(math.Cos(th)), math.Abs(math.Sin(th))
		bw, bh := wmm*cs+hmm*sn, wmm*sn+hmm*cs
		smax := math.Min(float64(W)/bw, float64(H)/bh)
		s = smax * (spec.MinFill + (spec.MaxFill-spec.MinFill)*rng.Float64())
		slackX, slackY := float64(W)-bw*s, float64(H)-bh*s
		cx := float64(W)/2 + (rng.Float64()-0.5)*slackX*0.9
		cy := float64(H)/2 + (rng.Float64()-0.5)*slackY*0.9
		if spec.CutOff {
			// Push the sheet over one side of the frame by 3-12% of its size.
			push := (0.03 + 0.09*rng.Float64()) * math.Max(bw, bh) * s
			switch rng.Intn(4) {
			case 0:
				cx = bw*s/2 - push
			case 1:
				cx = float64(W) - bw*s/2 + push
			case 2:
				cy = bh*s/2 - push
			default:
				cy = float64(H) - bh*s/2 + push
			}
		}
		diag := math.Hypot(wmm, hmm) * s
		tilt := 0.015 + 0.03*rng.Float64()
		for i, c := range mmCorners {
			p := c.sub(Pt{wmm / 2, hmm / 2}).mul(s).rot(th).add(Pt{cx, cy})
			px[i] = p.add(Pt{rng.NormFloat64(), rng.NormFloat64()}.mul(tilt * diag / 2))
		}
		inside := true
		for _, p := range px {
			if p.X < 4 || p.Y < 4 || p.X > float64(W)-5 || p.Y > float64(H)-5 {
				inside = false
			}
		}
		if !convexQuad(px) {
			continue
		}
		if inside && !spec.CutOff {
			break
		}
		if spec.CutOff && !inside {
			cutOff = true
			break
		}
	}
	hmmToPx := homographyFrom4(mmCorners, px)

	// Paper with whitened, slightly fibrous torn edges, as RGBA with the paper as alpha.
	sheet, err := paperRGBA(rng, img, paper, pxPerMM, wmm, hmm)
	if err != nil {
		return nil, err
	}
	src, err := matFromBytes(sheet.Bounds().Dy(), sheet.Bounds().Dx(), gocv.MatTypeCV8UC4, sheet.Pix)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	sp := math.Min(pxPerMM, 1.6*s) // pre-shrink to limit aliasing in the warp
	small := gocv.NewMat()
	defer small.Close()
	sw, sh := int(math.Round(float64(rw)*sp/pxPerMM)), int(math.Round(float64(rh)*sp/pxPerMM))
	gocv.Resize(src, &small, image.Pt(sw, sh), 0, 0, gocv.InterpolationArea)
	// small px (centre convention) -> raster px -> mm -> photo px.
	fx, fy := float64(rw)/float64(sw)/pxPerMM, float64(rh)/float64(sh)/pxPerMM
	a := Homography{fx, 0, 0.5 * fx, 0, fy, 0.5 * fy, 0, 0, 1}
	m := hmmToPx.mul(a)
	mm := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	defer mm.Close()
	for i := 0; i < 9; i++ {
		mm.SetDoubleAt(i/3, i%3, m[i])
	}
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(small, &warped, mm, spec.Size, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	wb := warped.ToBytes()

	// Shadow of the sheet on the table.
	alpha := make([]byte, W*H)
	for i := range alpha {
		alpha[i] = wb[4*i+3]
	}
	am, err := matFromBytes(H, W, gocv.MatTypeCV8U, alpha)
	if err != nil {
		return nil, err
	}
	defer am.Close()
	shadow := gocv.NewMat()
	defer shadow.Close()
	sig := 4 + 10*rng.Float64()
	gocv.GaussianBlur(am, &shadow, image.Pt(0, 0), sig, sig, gocv.BorderConstant)
	sb := shadow.ToBytes()
	sdx, sdy := int(rng.NormFloat64()*5), int(3+rng.Float64()*8)
	sk := 0.25 + 0.3*rng.Float64()

	// Light: a gradient, a vignette and sometimes a soft shadow (a hand or a phone) across.
	gx, gy := rng.NormFloat64()*0.15/float64(W), rng.NormFloat64()*0.15/float64(H)
	bright := 0.88 + 0.2*rng.Float64()
	vig := 0.1 + 0.25*rng.Float64()
	cast := [3]float64{1 + 0.04*rng.NormFloat64(), 1, 1 + 0.05*rng.NormFloat64()}
	var blobC Pt
	blobR, blobK := 0.0, 0.0
	if rng.Float64() < 0.4 {
		blobC = Pt{rng.Float64() * float64(W), rng.Float64() * float64(H)}
		blobR = (0.15 + 0.25*rng.Float64()) * float64(W)
		blobK = 0.15 + 0.25*rng.Float64()
	}
	// Sometimes a lamp's soft glare on the (glossier) paper.
	var glareC Pt
	glareR, glareK := 0.0, 0.0
	if rng.Float64() < 0.25 {
		glareC = Pt{rng.Float64() * float64(W), rng.Float64() * float64(H)}
		glareR = (0.08 + 0.15*rng.Float64()) * float64(W)
		glareK = 20 + 30*rng.Float64()
	}
	out := make([]byte, W*H*3) // BGR for OpenCV
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			i := y*W + x
			ti := table.PixOffset(x, y)
			bgc := [3]float64{float64(table.Pix[ti]), float64(table.Pix[ti+1]), float64(table.Pix[ti+2])}
			if xs, ys := x-sdx, y-sdy; xs >= 0 && ys >= 0 && xs < W && ys < H {
				f := 1 - sk*float64(sb[ys*W+xs])/255
				bgc = [3]float64{bgc[0] * f, bgc[1] * f, bgc[2] * f}
			}
			al := float64(wb[4*i+3]) / 255
			var c [3]float64
			for k := 0; k < 3; k++ {
				// The warp interpolates colour and alpha alike: undo the premultiplication.
				fg := float64(wb[4*i+k])
				if al > 0 {
					fg /= al
				}
				c[k] = bgc[k]*(1-al) + fg*al
			}
			dx, dy := float64(x)-float64(W)/2, float64(y)-float64(H)/2
			l := bright * (1 + gx*dx + gy*dy) * (1 - vig*(dx*dx+dy*dy)/(float64(W*W+H*H)/4))
			if blobK > 0 {
				d := math.Hypot(float64(x)-blobC.X, float64(y)-blobC.Y) / blobR
				l *= 1 - blobK*math.Exp(-d*d)
			}
			g := 0.0
			if glareK > 0 && al > 0 {
				d := math.Hypot(float64(x)-glareC.X, float64(y)-glareC.Y) / glareR
				g = al * glareK * math.Exp(-d*d)
			}
			for k := 0; k < 3; k++ {
				out[3*i+2-k] = u8(c[k]*l*cast[k] + g)
			}
		}
	}
	om, err := matFromBytes(H, W, gocv.MatTypeCV8UC3, out)
	if err != nil {
		return nil, err
	}
	defer om.Close()
	blurred := gocv.NewMat()
	defer blurred.Close()
	bs := 0.5 + 0.9*rng.Float64()
	gocv.GaussianBlur(om, &blurred, image.Pt(0, 0), bs, bs, gocv.BorderReflect101)
	if rng.Float64() < 0.15 {
		// A little camera shake: a short line kernel.
		n := 3 + rng.Intn(5)
		a := rng.Float64() * math.Pi
		k := gocv.NewMatWithSize(n, n, gocv.MatTypeCV32F)
		defer k.Close()
		k.SetTo(gocv.NewScalar(0, 0, 0, 0))
		cnt := 0
		for t := 0; t < 4*n; t++ {
			f := (float64(t)/float64(4*n-1) - 0.5) * float64(n-1)
			x, y := int(math.Round(float64(n-1)/2+f*math.Cos(a))), int(math.Round(float64(n-1)/2+f*math.Sin(a)))
			if k.GetFloatAt(y, x) == 0 {
				k.SetFloatAt(y, x, 1)
				cnt++
			}
		}
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				k.SetFloatAt(y, x, k.GetFloatAt(y, x)/float32(cnt))
			}
		}
		shaken := gocv.NewMat()
		defer shaken.Close()
		gocv.Filter2D(blurred, &shaken, -1, k, image.Pt(-1, -1), 0, gocv.BorderReflect101)
		shaken.CopyTo(&blurred)
	}
	bb := blurred.ToBytes()
	noise := 1.5 + 3*rng.Float64()
	rgb := image.NewRGBA(image.Rect(0, 0, W, H))
	for i := 0; i < W*H; i++ {
		lum := rng.NormFloat64() * noise * 0.6
		for k := 0; k < 3; k++ {
			rgb.Pix[4*i+k] = u8(float64(bb[3*i+2-k]) + lum + rng.NormFloat64()*noise*0.6)
		}
		rgb.Pix[4*i+3] = 255
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, rgb, &jpeg.Options{Quality: spec.JPEGQuality}); err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	dec, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("decode jpeg: %w", err)
	}
	pt := PhotoTruth{
		File: spec.File, Size: [2]int{W, H}, Homography: hmmToPx, CutOff: cutOff, Background: bg,
		PxPerMM: round3(s), RotationDeg: round2(math.Mod(theta+360, 360)), JPEGQuality: spec.JPEGQuality,
	}
	for i, p := range px {
		pt.CornersPx[i] = [2]float64{round3(p.X), round3(p.Y)}
	}
	return &Photo{JPEG: buf.Bytes(), Image: dec, Truth: pt}, nil
}

// convexQuad reports whether the four points form a convex quadrilateral in order.
func convexQuad(p [4]Pt) bool {
	sign := 0.0
	for i := 0; i < 4; i++ {
		a, b, c := p[i], p[(i+1)%4], p[(i+2)%4]
		cr := (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
		if cr == 0 || (sign != 0 && cr*sign < 0) {
			return false
		}
		sign = cr
	}
	return true
}

// paperRGBA returns img with paper as a premultiplied alpha and torn edges whitened: torn
// paper shows a lighter, fibrous rim.
func paperRGBA(rng *rand.Rand, img *image.RGBA, paper *Mask, ppm, wmm, hmm float64) (*image.RGBA, error) {
	out := image.NewRGBA(img.Bounds())
	copy(out.Pix, img.Pix)
	// Torn edges: paper pixels near a missing pixel inside the raster.
	holes := NewMask(paper.W, paper.H)
	any := false
	for i, v := range paper.Pix {
		// Missing paper inside the sheet's own rectangle: torn away.
		x, y := i%paper.W, i/paper.W
		if v == 0 && (float64(x)+0.5)/ppm < wmm && (float64(y)+0.5)/ppm < hmm {
			holes.Pix[i] = 1
			any = true
		}
	}
	var rim *Mask
	if any {
		var err error
		if rim, err = holes.dilate(int(math.Max(1, 0.5*ppm))); err != nil {
			return nil, err
		}
	}
	// The paper is never quite flat: a soft shading over the sheet (a curl, a bend).
	bend := valueNoise(rng, paper.W, paper.H, 70*ppm, 2)
	bendK := 0.02 + 0.04*rng.Float64()
	for i, v := range paper.Pix {
		p := out.Pix[4*i : 4*i+4]
		if v == 0 {
			p[0], p[1], p[2], p[3] = 0, 0, 0, 0
			continue
		}
		if f := 1 + bendK*bend[i]; f != 1 {
			p[0], p[1], p[2] = u8(float64(p[0])*f), u8(float64(p[1])*f), u8(float64(p[2])*f)
		}
		if rim != nil && rim.Pix[i] != 0 {
			t := 0.35 + 0.4*rng.Float64()
			for k := 0; k < 3; k++ {
				p[k] = u8(float64(p[k])*(1-t) + 252*t)
			}
		}
	}
	return out, nil
}
