package synth

import (
	"errors"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// FitPxPerMM is the resolution template fits are computed at (0.25 mm).
const FitPxPerMM = 4

// FitMarginMM is the size band around the template within which a fit is called ambiguous:
// the template fits a region when grown by FitMarginMM in width and height (certain fit), does
// not fit when shrunk by it (certain misfit), and anything in between is too close to call.
const FitMarginMM = 1.0

// ErrTemplateShape is returned for templates that are not rectangles (the only shape the
// generator's exact fit supports).
var ErrTemplateShape = errors.New("synth: template fit supports rectangular templates only")

// templateRect returns the sides of a rectangular template (any rotation of the polygon).
func templateRect(t template.Template) (w, h float64, err error) {
	p := t.PolygonMM
	if len(p) != 4 {
		return 0, 0, ErrTemplateShape
	}
	q := make([]Pt, 4)
	for i := range p {
		q[i] = Pt{p[i][0], p[i][1]}
	}
	for i := 0; i < 4; i++ {
		a, b, c := q[i], q[(i+1)%4], q[(i+2)%4]
		if math.Abs(b.sub(a).dot(c.sub(b))) > 1e-6*b.sub(a).norm()*c.sub(b).norm()+1e-9 {
			return 0, 0, ErrTemplateShape
		}
	}
	w, h = q[1].sub(q[0]).norm(), q[2].sub(q[1]).norm()
	if w < h {
		w, h = h, w
	}
	return w, h, nil
}

// FitResult is whether a template fits a region, measured on the exact mask.
type FitResult struct {
	Fits      bool `json:"fits"`      // the template itself fits (rotation every 1 degree; flips are the same for a rectangle)
	Ambiguous bool `json:"ambiguous"` // fits when shrunk by FitMarginMM but not when grown by it
}

// FitTemplate reports whether the rectangular template fits inside the set pixels of m (a mask
// in a raster of pxPerMM pixels per millimetre), trying every whole degree.
func FitTemplate(m *Mask, pxPerMM float64, t template.Template) (FitResult, error) {
	w, h, err := templateRect(t)
	if err != nil {
		return FitResult{}, err
	}
	box := m.bounds()
	if box.Empty() {
		return FitResult{}, nil
	}
	if float64(m.Count())/(pxPerMM*pxPerMM) < (w-FitMarginMM)*(h-FitMarginMM) {
		return FitResult{}, nil
	}
	src, err := m.mat()
	if err != nil {
		return FitResult{}, err
	}
	defer src.Close()
	crop := src.Region(box)
	defer crop.Close()
	// Downsample to FitPxPerMM (area average, then majority), padded with zeros so that the
	// rotated region never touches the canvas border.
	s := FitPxPerMM / pxPerMM
	sw, sh := int(math.Ceil(float64(box.Dx())*s)), int(math.Ceil(float64(box.Dy())*s))
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(crop, &small, image.Pt(sw, sh), 0, 0, gocv.InterpolationArea)
	gocv.Threshold(small, &small, 127, 255, gocv.ThresholdBinary)
	diag := int(math.Ceil(math.Hypot(float64(sw), float64(sh)))) + 8
	canvas := gocv.NewMatWithSize(diag, diag, gocv.MatTypeCV8U)
	defer canvas.Close()
	canvas.SetTo(gocv.NewScalar(0, 0, 0, 0))
	ox, oy := (diag-sw)/2, (diag-sh)/2
	roi := canvas.Region(image.Rect(ox, oy, ox+sw, oy+sh))
	small.CopyTo(&roi)
	roi.Close()

	// Quick answer from the largest inscribed disc: a disc of radius half the diagonal holds
	// the template at any angle.
	dist := gocv.NewMat()
	defer dist.Close()
	labels := gocv.NewMat()
	defer labels.Close()
	gocv.DistanceTransform(canvas, &dist, &labels, gocv.DistL2, gocv.DistanceTransformMasks(5), gocv.DistanceTransformLabelTypes(0))
	_, maxD, _, _ := gocv.MinMaxLoc(dist)
	maxMM := float64(maxD) / FitPxPerMM

	fits := func(wmm, hmm float64) bool {
		if wmm <= 0 || hmm <= 0 {
			return true
		}
		if maxMM-0.5 >= math.Hypot(wmm, hmm)/2 {
			return true
		}
		if maxMM < hmm/2-0.5 {
			return false
		}
		kw, kh := int(math.Ceil(wmm*FitPxPerMM)), int(math.Ceil(hmm*FitPxPerMM))
		kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(kw, kh))
		defer kernel.Close()
		rot := gocv.NewMat()
		defer rot.Close()
		er := gocv.NewMat()
		defer er.Close()
		c := image.Pt(diag/2, diag/2)
		for a := 0; a < 180; a++ {
			if a == 0 {
				canvas.CopyTo(&rot)
			} else {
				r := gocv.GetRotationMatrix2D(c, float64(a), 1)
				gocv.WarpAffineWithParams(canvas, &rot, r, image.Pt(diag, diag), gocv.InterpolationNearestNeighbor, gocv.BorderConstant, color.RGBA{})
				r.Close()
			}
			gocv.ErodeWithParams(rot, &er, kernel, image.Pt(-1, -1), 1, int(gocv.BorderConstant))
			if gocv.CountNonZero(er) > 0 {
				return true
			}
		}
		return false
	}
	if fits(w+FitMarginMM, h+FitMarginMM) {
		return FitResult{Fits: true}, nil
	}
	if !fits(w-FitMarginMM, h-FitMarginMM) {
		return FitResult{}, nil
	}
	return FitResult{Fits: fits(w, h), Ambiguous: true}, nil
}

func templateDefault() template.Template { return template.Default() }
