package ocr

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// TestDeslantedCrop draws five bars leaning right by a known slant (run over rise 0.4, like
// the dkgIt font's strokes) on a sheet at 4 px/mm and checks that estimateShear finds the
// slant, that the crop Tesseract reads draws each bar upright (a column as wide as the bar,
// where the crop as drawn spreads it over its lean), and that every ink pixel of the crop
// maps back (crop.toUV, region.fromUV) onto a bar of the sheet: the symbols of a read then
// place the letters where their ink is.
func TestDeslantedCrop(t *testing.T) {
	const (
		slant  = 0.4
		barW   = 3  // px
		barH   = 40 // px, 10 mm
		y0     = 100
		pxMM   = 4.0
		pitch  = 30
		x0     = 100
		nBars  = 5
		paper  = 235
		inkVal = 30
	)
	w, h := 400, 240
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	// onBar is how far (px, along the row, plus beyond its ends) (x, y) is from bar i's ink,
	// 0 inside.
	onBar := func(i int, x, y float64) float64 {
		yc := math.Max(y0, math.Min(y0+barH, y))
		left := float64(x0+i*pitch) + slant*(y0+barH-yc)
		return math.Abs(y-yc) + math.Max(0, math.Max(left-x, x-(left+barW)))
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := uint8(paper)
			for i := 0; i < nBars; i++ {
				if onBar(i, float64(x)+0.5, float64(y)+0.5) == 0 {
					c = inkVal
				}
			}
			img.Set(x, y, color.RGBA{c, c, c, 255})
		}
	}
	m, err := gocv.ImageToMatRGB(img)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	im, err := extractInk(m, empty, pxMM)
	if err != nil {
		t.Fatal(err)
	}
	var comps []int
	for i := range im.comps {
		comps = append(comps, i)
	}
	if len(comps) != nBars {
		t.Fatalf("%d ink marks, want %d bars", len(comps), nBars)
	}
	rg := im.newRegion(comps)
	rg.setAngle(0, im.w)
	s := estimateShear(im, rg)
	if math.Abs(s-slant) > 0.051 {
		t.Fatalf("estimated shear %.2f, want %.2f", s, slant)
	}
	// Each bar's columns in a crop: the spread of its dark pixels, in bar widths.
	spread := func(cr *crop) float64 {
		worst := 0.0
		for i := 0; i < nBars; i++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for oy := 0; oy < cr.h; oy++ {
				for ox := 0; ox < cr.w; ox++ {
					if cr.pix[oy*cr.w+ox] > 128 {
						continue
					}
					u, v := cr.toUV(float64(ox)+0.5, float64(oy)+0.5)
					x, y := rg.fromUV(u, v)
					if onBar(i, x+0.5, y+0.5) > 1.5 {
						continue
					}
					lo, hi = math.Min(lo, float64(ox)), math.Max(hi, float64(ox))
				}
			}
			worst = math.Max(worst, (hi-lo+1)/(barW*cr.scale))
		}
		return worst
	}
	upright := im.renderSheared(rg, 1, s)
	drawn := im.renderSheared(rg, 1, 0)
	// Every dark crop pixel lies on a bar of the sheet.
	for oy := 0; oy < upright.h; oy++ {
		for ox := 0; ox < upright.w; ox++ {
			if upright.pix[oy*upright.w+ox] > 128 {
				continue
			}
			u, v := upright.toUV(float64(ox)+0.5, float64(oy)+0.5)
			x, y := rg.fromUV(u, v)
			near := math.Inf(1)
			for i := 0; i < nBars; i++ {
				near = math.Min(near, onBar(i, x+0.5, y+0.5))
			}
			if near > 1.5 {
				t.Fatalf("crop pixel (%d,%d) maps to sheet (%.1f,%.1f), %.1f px from any bar", ox, oy, x, y, near)
			}
		}
	}
	su, sd := spread(upright), spread(drawn)
	t.Logf("bar columns in bar widths: upright %.2f, as drawn %.2f", su, sd)
	// As drawn, a bar spans its width plus its lean (0.4 * 10 mm = 16 px on a 3 px bar).
	if su > 2 {
		t.Errorf("sheared upright, a bar spans %.2f bar widths, want <= 2", su)
	}
	if sd < 4 {
		t.Errorf("as drawn, a bar spans %.2f bar widths: the test's bars do not lean", sd)
	}
	// The render used for reads takes out deslant of the slant.
	if got := im.readShear(rg); math.Abs(got-deslant*s) > 1e-9 {
		t.Errorf("readShear %.3f, want %.3f", got, deslant*s)
	}
}
