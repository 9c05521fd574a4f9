package synth

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand"

	"gocv.io/x/gocv"
)

// VideoShot is one appearance of a sheet in a video: the sheet as it is (fresh, or after a
// tear) and where it comes to rest on the table.
type VideoShot struct {
	// Image is the sheet raster (sheet frame at PxPerMM); Paper says where paper is left
	// (nil: everywhere). Pixels outside Paper are not drawn.
	Image   image.Image
	Paper   *Mask
	PxPerMM float64
	// Where the sheet rests: its centre in frame pixels, its rotation in degrees (clockwise
	// on screen) and how many frame pixels one millimetre spans. Zero Scale fits the sheet
	// to 90% of the frame height.
	CenterX, CenterY float64
	AngleDeg         float64
	Scale            float64
	// Keystone tilts the camera: the far (top) edge is shrunk by this fraction (0..0.2).
	Keystone float64
}

// VideoSpec is a table-top video: for each shot the sheet slides in, lies still, hands come
// over it, and it is lifted away (the table is empty while it is torn), except after the
// last shot, which ends the video still.
type VideoSpec struct {
	W, H int     // frame size; 0: 1280x720
	FPS  float64 // 0: 15
	Seed int64
	// Table is the table top (W x H); nil draws a plain wooden one.
	Table image.Image
	// Phase lengths in frames; 0 takes the default in brackets.
	Empty, Slide, Still, Hands, Lift int // [8, 6, 20, 8, 5]
	// HandsStill is how many frames the hands that laid the sheet down rest motionless on
	// it before they withdraw (0: they never rest). Such frames are not a settled sheet.
	HandsStill int
	// Pause stops the sliding sheet halfway for this many frames (shorter than a settle),
	// then it moves on.
	Pause int
	// ArmFrom, when positive, is the frame from which an arm rests, motionless, at the
	// table's bottom-right corner, away from the sheet, to the end.
	ArmFrom int
	// Light darkens the frame away from a lamp, by up to this fraction (0..0.6).
	Light float64
	Shots []VideoShot
}

// VideoTruth says where each shot lies still in the video written.
type VideoTruth struct {
	Frames int
	FPS    float64
	// Still[i] is the frame range [First, Last] in which shot i lies still and uncovered.
	Still []FrameRange
}

// FrameRange is an inclusive range of frame numbers (0-based, as read back).
type FrameRange struct{ First, Last int }

// Contains reports whether frame n is in the range.
func (r FrameRange) Contains(n int) bool { return n >= r.First && n <= r.Last }

// WriteVideo writes spec as an MJPG .avi (gocv VideoWriter) to path and returns the truth
// of where each shot lies still.
func WriteVideo(path string, spec VideoSpec) (VideoTruth, error) {
	if spec.W == 0 || spec.H == 0 {
		spec.W, spec.H = 1280, 720
	}
	if spec.FPS == 0 {
		spec.FPS = 15
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&spec.Empty, 8)
	def(&spec.Slide, 6)
	def(&spec.Still, 20)
	def(&spec.Hands, 8)
	def(&spec.Lift, 5)
	if len(spec.Shots) == 0 {
		return VideoTruth{}, fmt.Errorf("write video %s: no shots", path)
	}
	rng := rand.New(rand.NewSource(spec.Seed))
	vw, err := gocv.VideoWriterFile(path, "MJPG", spec.FPS, spec.W, spec.H, true)
	if err != nil {
		return VideoTruth{}, fmt.Errorf("write video %s: %w", path, err)
	}
	defer vw.Close()
	if !vw.IsOpened() {
		return VideoTruth{}, fmt.Errorf("write video %s: cannot open an MJPG writer", path)
	}
	var table gocv.Mat
	if spec.Table != nil {
		if spec.Table.Bounds().Dx() != spec.W || spec.Table.Bounds().Dy() != spec.H {
			return VideoTruth{}, fmt.Errorf("write video %s: table is not %dx%d", path, spec.W, spec.H)
		}
		table, err = imageMat(spec.Table)
		if err != nil {
			return VideoTruth{}, fmt.Errorf("write video %s: %w", path, err)
		}
	} else {
		table = tableMat(rng, spec.W, spec.H)
	}
	defer table.Close()
	noise := gocv.NewMatWithSize(spec.H, spec.W, gocv.MatTypeCV8UC3)
	defer noise.Close()
	light := lightMat(rng, spec.W, spec.H, spec.Light)
	defer light.Close()
	lit := gocv.NewMat()
	defer lit.Close()
	frame := gocv.NewMat()
	defer frame.Close()

	truth := VideoTruth{FPS: spec.FPS}
	n := 0
	write := func(m gocv.Mat) error {
		if spec.ArmFrom > 0 && n >= spec.ArmFrom {
			arm := m.Clone()
			defer arm.Close()
			skin := color.RGBA{R: 205, G: 150, B: 120, A: 255}
			gocv.Ellipse(&arm, image.Pt(spec.W-spec.W/12, spec.H), image.Pt(spec.W/12, spec.H/3), -20, 0, 360, skin, -1)
			m = arm
		}
		// A little sensor noise, different in every frame.
		gocv.RandU(&noise, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(4, 4, 4, 0))
		if spec.Light > 0 {
			gocv.MultiplyWithParams(m, light, &lit, 1.0/255, -1)
			gocv.Add(lit, noise, &frame)
		} else {
			gocv.Add(m, noise, &frame)
		}
		if err := vw.Write(frame); err != nil {
			return fmt.Errorf("write video %s: frame %d: %w", path, n, err)
		}
		n++
		return nil
	}
	for i := 0; i < spec.Empty; i++ {
		if err := write(table); err != nil {
			return truth, err
		}
	}
	for si, shot := range spec.Shots {
		sh, err := newShotLayer(shot, spec.W, spec.H)
		if err != nil {
			return truth, fmt.Errorf("write video %s: shot %d: %w", path, si, err)
		}
		// Slide in from off the left or right edge, turning into place.
		from := -1.0
		if si%2 == 1 {
			from = 1
		}
		for i := 0; i < spec.Slide; i++ {
			f := 1 - float64(i+1)/float64(spec.Slide+1) // 1 .. >0
			m := sh.compose(table, from*f*float64(spec.W)*0.3, -f*40, f*25)
			reps := 1
			if i == spec.Slide/2 {
				reps += spec.Pause
			}
			var err error
			for r := 0; r < reps && err == nil; r++ {
				err = write(m)
			}
			m.Close()
			if err != nil {
				sh.close()
				return truth, err
			}
		}
		still := sh.compose(table, 0, 0, 0)
		// The hands that laid the sheet down may rest on it a while, then withdraw.
		for i := 0; i < spec.HandsStill+3 && spec.HandsStill > 0; i++ {
			m := still.Clone()
			if i < spec.HandsStill {
				drawHands(m, nil, sh.shot.CenterX, sh.shot.CenterY, float64(spec.H), 0.5)
			} else {
				k := float64(i - spec.HandsStill + 1)
				drawHands(m, nil, sh.shot.CenterX, sh.shot.CenterY+k*float64(spec.H)*0.25, float64(spec.H), 0.5)
			}
			err := write(m)
			m.Close()
			if err != nil {
				still.Close()
				sh.close()
				return truth, err
			}
		}
		first := n
		for i := 0; i < spec.Still; i++ {
			if err := write(still); err != nil {
				still.Close()
				sh.close()
				return truth, err
			}
		}
		truth.Still = append(truth.Still, FrameRange{First: first, Last: n - 1})
		if si == len(spec.Shots)-1 {
			still.Close()
			sh.close()
			break
		}
		// Hands come over the sheet, then lift it away to be torn.
		for i := 0; i < spec.Hands; i++ {
			m := still.Clone()
			drawHands(m, rng, sh.shot.CenterX, sh.shot.CenterY, float64(spec.H), float64(i)/float64(spec.Hands))
			err := write(m)
			m.Close()
			if err != nil {
				still.Close()
				sh.close()
				return truth, err
			}
		}
		still.Close()
		for i := 0; i < spec.Lift; i++ {
			f := float64(i+1) / float64(spec.Lift)
			m := sh.compose(table, 0, -f*float64(spec.H), -f*20)
			drawHands(m, rng, sh.shot.CenterX, sh.shot.CenterY-f*float64(spec.H), float64(spec.H), 1)
			err := write(m)
			m.Close()
			if err != nil {
				sh.close()
				return truth, err
			}
		}
		sh.close()
		for i := 0; i < spec.Empty; i++ {
			if err := write(table); err != nil {
				return truth, err
			}
		}
	}
	truth.Frames = n
	return truth, nil
}

// tableMat is a wooden table top: warm brown with streaks, darker than paper and saturated.
func tableMat(rng *rand.Rand, w, h int) gocv.Mat {
	b := make([]byte, w*h*3)
	phase := rng.Float64() * 10
	for y := 0; y < h; y++ {
		streak := 0.8 + 0.12*math.Sin(float64(y)*0.09+phase) + 0.06*math.Sin(float64(y)*0.023+2*phase)
		for x := 0; x < w; x++ {
			k := streak * (0.9 + 0.1*math.Sin(float64(x)*0.004+float64(y)*0.001))
			i := 3 * (y*w + x)
			b[i] = uint8(45 * k)
			b[i+1] = uint8(85 * k)
			b[i+2] = uint8(135 * k)
		}
	}
	m, err := matFromBytes(h, w, gocv.MatTypeCV8UC3, b)
	if err != nil {
		panic(err) // only on a size mismatch, which the loop above rules out
	}
	return m
}

// lightMat is the lamp's light over the table: 255 under it, falling off by up to
// strength away from it (8UC3, multiplied into each frame / 255).
func lightMat(rng *rand.Rand, w, h int, strength float64) gocv.Mat {
	b := make([]byte, w*h*3)
	lx, ly := rng.Float64()*float64(w), rng.Float64()*float64(h)
	diag := math.Hypot(float64(w), float64(h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := math.Hypot(float64(x)-lx, float64(y)-ly) / diag
			v := uint8(255 * (1 - strength*math.Min(1, d)))
			i := 3 * (y*w + x)
			b[i], b[i+1], b[i+2] = v, v, v
		}
	}
	m, err := matFromBytes(h, w, gocv.MatTypeCV8UC3, b)
	if err != nil {
		panic(err) // only on a size mismatch, which the loop above rules out
	}
	return m
}

// imageMat copies an image into a new BGR Mat the caller closes.
func imageMat(img image.Image) (gocv.Mat, error) {
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	b := make([]byte, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBAModel.Convert(img.At(bd.Min.X+x, bd.Min.Y+y)).(color.NRGBA)
			i := 3 * (y*w + x)
			b[i], b[i+1], b[i+2] = c.B, c.G, c.R
		}
	}
	return matFromBytes(h, w, gocv.MatTypeCV8UC3, b)
}

// shotLayer is a sheet scaled near its video size, ready to be warped onto the table.
type shotLayer struct {
	bgr, alpha gocv.Mat
	shot       VideoShot
	scale      float64 // layer px per sheet mm
	w, h       int     // frame size
}

func newShotLayer(shot VideoShot, w, h int) (*shotLayer, error) {
	if shot.PxPerMM <= 0 || shot.Image == nil {
		return nil, fmt.Errorf("shot needs an image and its PxPerMM")
	}
	bd := shot.Image.Bounds()
	sw, sh := bd.Dx(), bd.Dy()
	if shot.Scale == 0 {
		shot.Scale = 0.9 * float64(h) / (float64(sh) / shot.PxPerMM)
	}
	if shot.CenterX == 0 && shot.CenterY == 0 {
		shot.CenterX, shot.CenterY = float64(w)/2, float64(h)/2
	}
	bgr := make([]byte, sw*sh*3)
	alpha := make([]byte, sw*sh)
	for y := 0; y < sh; y++ {
		for x := 0; x < sw; x++ {
			c := color.NRGBAModel.Convert(shot.Image.At(bd.Min.X+x, bd.Min.Y+y)).(color.NRGBA)
			i := y*sw + x
			bgr[3*i], bgr[3*i+1], bgr[3*i+2] = c.B, c.G, c.R
			if shot.Paper == nil || shot.Paper.At(x, y) {
				alpha[i] = 255
			}
		}
	}
	full, err := matFromBytes(sh, sw, gocv.MatTypeCV8UC3, bgr)
	if err != nil {
		return nil, err
	}
	defer full.Close()
	fullA, err := matFromBytes(sh, sw, gocv.MatTypeCV8U, alpha)
	if err != nil {
		return nil, err
	}
	defer fullA.Close()
	// Downscale once with area averaging (no aliasing), to 2x the video scale.
	layerScale := math.Min(shot.PxPerMM, 2*shot.Scale)
	lw := int(math.Round(float64(sw) / shot.PxPerMM * layerScale))
	lh := int(math.Round(float64(sh) / shot.PxPerMM * layerScale))
	l := &shotLayer{bgr: gocv.NewMat(), alpha: gocv.NewMat(), shot: shot, scale: layerScale, w: w, h: h}
	gocv.Resize(full, &l.bgr, image.Pt(lw, lh), 0, 0, gocv.InterpolationArea)
	gocv.Resize(fullA, &l.alpha, image.Pt(lw, lh), 0, 0, gocv.InterpolationArea)
	return l, nil
}

func (l *shotLayer) close() {
	l.bgr.Close()
	l.alpha.Close()
}

// corners are where the layer's corners land in the frame, shifted by (dx, dy) pixels and
// turned dAngle more degrees.
func (l *shotLayer) corners(dx, dy, dAngle float64) [4]Pt {
	s := l.shot
	wmm := float64(l.bgr.Cols()) / l.scale
	hmm := float64(l.bgr.Rows()) / l.scale
	a := (s.AngleDeg + dAngle) * math.Pi / 180
	var out [4]Pt
	for i, c := range [4]Pt{{-wmm / 2, -hmm / 2}, {wmm / 2, -hmm / 2}, {wmm / 2, hmm / 2}, {-wmm / 2, hmm / 2}} {
		p := c.rot(a).mul(s.Scale)
		// Keystone: points higher in the frame are drawn closer to the vertical centre line.
		k := 1 - s.Keystone*(0.5-(s.CenterY+p.Y)/float64(l.h))
		p.X *= k
		out[i] = Pt{s.CenterX + dx + p.X, s.CenterY + dy + p.Y}
	}
	return out
}

// compose draws the sheet over table at its pose, moved by (dx, dy) px and dAngle degrees.
// The caller closes the result.
func (l *shotLayer) compose(table gocv.Mat, dx, dy, dAngle float64) gocv.Mat {
	dst := l.corners(dx, dy, dAngle)
	w, h := float64(l.bgr.Cols()), float64(l.bgr.Rows())
	srcV := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: float32(w), Y: 0}, {X: float32(w), Y: float32(h)}, {X: 0, Y: float32(h)}})
	defer srcV.Close()
	pts := make([]gocv.Point2f, 4)
	for i, p := range dst {
		pts[i] = gocv.Point2f{X: float32(p.X), Y: float32(p.Y)}
	}
	dstV := gocv.NewPoint2fVectorFromPoints(pts)
	defer dstV.Close()
	hm := gocv.GetPerspectiveTransform2f(srcV, dstV)
	defer hm.Close()
	sz := image.Pt(l.w, l.h)
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(l.bgr, &warped, hm, sz, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	wa := gocv.NewMat()
	defer wa.Close()
	gocv.WarpPerspectiveWithParams(l.alpha, &wa, hm, sz, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	out := table.Clone()
	tb, _ := out.DataPtrUint8()
	sb, _ := warped.DataPtrUint8()
	ab, _ := wa.DataPtrUint8()
	for i, a := range ab {
		if a == 0 {
			continue
		}
		af := int(a)
		for c := 0; c < 3; c++ {
			j := 3*i + c
			tb[j] = uint8((int(sb[j])*af + int(tb[j])*(255-af) + 127) / 255)
		}
	}
	return out
}

// drawHands draws two skin-coloured hands (a palm and fingers each) near (cx, cy), moving
// with phase 0..1 and trembling a little (not when rng is nil: resting hands).
func drawHands(m gocv.Mat, rng *rand.Rand, cx, cy, size, phase float64) {
	skin := color.RGBA{R: 215, G: 160, B: 130, A: 255}
	jitter := func() float64 {
		if rng == nil {
			return 0
		}
		return rng.Float64() * 6
	}
	for side := -1.0; side <= 1; side += 2 {
		x := cx + side*size*(0.28-0.12*phase) + jitter()
		y := cy + size*(0.25-0.2*phase) + jitter()
		palm := image.Pt(int(x), int(y))
		gocv.Ellipse(&m, palm, image.Pt(int(size*0.09), int(size*0.12)), side*20, 0, 360, skin, -1)
		for f := 0; f < 4; f++ {
			fx := x + side*(float64(f)-1.5)*size*0.04
			gocv.Ellipse(&m, image.Pt(int(fx), int(y-size*0.17)), image.Pt(int(size*0.018), int(size*0.07)), 0, 0, 360, skin, -1)
		}
		// The forearm, reaching in from the bottom edge.
		gocv.Ellipse(&m, image.Pt(int(x+side*size*0.05), int(y+size*0.3)), image.Pt(int(size*0.07), int(size*0.25)), side*10, 0, 360, skin, -1)
	}
}
