package ocr

import (
	"fmt"

	"image"
	"image/png"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// TestCandDiag (OCR_CANDDIAG=image, OCR_CANDDIAG_SKILLS=a,b,c) reads every candidate of the
// image in every view and logs each read's similarity to each skill. A diagnostic.
func TestCandDiag(t *testing.T) {
	p := os.Getenv("OCR_CANDDIAG")
	if p == "" {
		t.Skip("OCR_CANDDIAG not set")
	}
	skills := strings.Split(os.Getenv("OCR_CANDDIAG_SKILLS"), ",")
	if f, err := strconv.ParseFloat(os.Getenv("OCR_CANDDIAG_SCALE"), 64); err == nil {
		defer func(a, b float64) { coreTarget, targetHeight = a, b }(coreTarget, targetHeight)
		coreTarget *= f
		targetHeight *= f
	}
	m := gocv.IMRead(p, gocv.IMReadColor)
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	if os.Getenv("OCR_CANDDIAG_MASK") == "full" {
		// Paper over the whole image, as vision's mask is for a sheet filling the frame.
		empty.Close()
		empty = gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), m.Rows(), m.Cols(), gocv.MatTypeCV8U)
	}
	im, err := extractInk(m, empty, 4)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	regions := im.groupWords(wordGap)
	wl := whitelistFor(skills)
	if os.Getenv("OCR_CANDDIAG_LIST") != "" {
		n := 0
		for i, rg := range regions {
			cs := im.pieceRuns(rg, i)
			n += len(cs)
			t.Logf("region %d at (%.0f,%.0f)mm %.0fx%.0fpx comps %d: %d candidates", i, rg.cx/4, rg.cy/4, rg.u1-rg.u0, rg.v1-rg.v0, len(rg.comps), len(cs))
		}
		t.Logf("%d regions, %d candidates", len(regions), n)
		return
	}
	for i, rg := range regions {
		for _, c := range im.pieceRuns(rg, i) {
			var views []*view
			c.addViews(im, &views)
			l.readAll(im, views, wl)
			for k, s := range skills {
				v, sim := c.bestView(foldLetters(s))
				if v == nil || sim < 0.3 {
					continue
				}
				t.Logf("region %d parts %v at (%.0f,%.0f)mm %.0fx%.0fpx: %q best %q psm %s sim %.2f", i, c.parts[:1], c.rg.cx/4, c.rg.cy/4, c.rg.u1-c.rg.u0, c.rg.v1-c.rg.v0, skills[k], v.rd.text, v.psm, sim)
			}
			var all []string
			if d := os.Getenv("OCR_CANDDIAG_DUMP"); d != "" {
				for j, v := range views {
					if v.psm != "7" {
						continue
					}
					g := image.NewGray(image.Rect(0, 0, v.cr.w, v.cr.h))
					copy(g.Pix, v.cr.pix)
					f, _ := os.Create(fmt.Sprintf("%s/r%02d_p%d_%d.png", d, i, c.parts[0], j))
					png.Encode(f, g)
					f.Close()
				}
			}
			for _, v := range views {
				all = append(all, v.psm+":"+v.rd.text)
			}
			t.Logf("  region %d (%.0f,%.0f)mm reads %v", i, c.rg.cx/4, c.rg.cy/4, all)
		}
	}
}

// TestGroupDiag (OCR_GROUPDIAG=image, OCR_GROUPDIAG_BOX=x0,y0,x1,y1 mm) logs the fragments
// and the joins of word grouping inside the box. A diagnostic.
func TestGroupDiag(t *testing.T) {
	p := os.Getenv("OCR_GROUPDIAG")
	if p == "" {
		t.Skip("OCR_GROUPDIAG not set")
	}
	var bx [4]float64
	fmt.Sscanf(os.Getenv("OCR_GROUPDIAG_BOX"), "%g,%g,%g,%g", &bx[0], &bx[1], &bx[2], &bx[3])
	m := gocv.IMRead(p, gocv.IMReadColor)
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	im, err := extractInk(m, empty, 4)
	if err != nil {
		t.Fatal(err)
	}
	in := func(f *frag) bool {
		return f.cx/4 >= bx[0] && f.cx/4 <= bx[2] && f.cy/4 >= bx[1] && f.cy/4 <= bx[3]
	}
	desc := func(f *frag) string {
		return fmt.Sprintf("[comps %v at (%.0f,%.0f)mm size %.0f el %v ang %.0f len %.0f]", f.comps, f.cx/4, f.cy/4, f.size, f.elongated, math.Atan2(f.uy, f.ux)*180/math.Pi, f.u1-f.u0)
	}
	for _, c := range im.comps {
		if c.cx/4 >= bx[0] && c.cx/4 <= bx[2] && c.cy/4 >= bx[1] && c.cy/4 <= bx[3] {
			t.Logf("comp at (%.0f,%.0f)mm box %d,%d-%d,%d scale %.1f area %d", c.cx/4, c.cy/4, c.x0, c.y0, c.x1, c.y1, c.scale, len(c.pix))
		}
	}
	for i := range im.comps {
		for j := i + 1; j < len(im.comps); j++ {
			a, b := &im.comps[i], &im.comps[j]
			if a.cx/4 < bx[0] || a.cx/4 > bx[2] || a.cy/4 < bx[1] || a.cy/4 > bx[3] {
				continue
			}
			gx := max(0, b.x0-a.x1, a.x0-b.x1)
			gy := max(0, b.y0-a.y1, a.y0-b.y1)
			if math.Hypot(float64(gx), float64(gy)) < 20 {
				t.Logf("pair %d %d: box gap %.0f ink %.1f scales %.1f %.1f", i, j, math.Hypot(float64(gx), float64(gy)), im.inkDist(a, b), a.scale, b.scale)
			}
		}
	}
	var frags []*frag
	for _, g := range im.fragments(wordGap) {
		f := im.newFrag(g)
		frags = append(frags, f)
		if in(f) {
			t.Logf("fragment %s", desc(f))
		}
	}
	for {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := range frags {
			for j := i + 1; j < len(frags); j++ {
				if g, ok := im.joinGap(frags[i], frags[j]); ok && g < best {
					bi, bj, best = i, j, g
				}
			}
		}
		if bi < 0 {
			break
		}
		if in(frags[bi]) || in(frags[bj]) {
			t.Logf("join %s + %s gap %.2f", desc(frags[bi]), desc(frags[bj]), best)
		}
		nf := im.newFrag(append(append([]int{}, frags[bi].comps...), frags[bj].comps...))
		frags[bi] = nf
		frags = append(frags[:bj], frags[bj+1:]...)
	}
}

// inkDist is the least distance between the two components' pixels (near each other's box).
func (im *inkMap) inkDist(a, b *component) float64 {
	best := math.Inf(1)
	for _, p := range a.pix {
		x, y := int(p)%im.w, int(p)/im.w
		if x < b.x0-60 || x > b.x1+60 || y < b.y0-60 || y > b.y1+60 {
			continue
		}
		for _, q := range b.pix {
			d := math.Hypot(float64(int(q)%im.w-x), float64(int(q)/im.w-y))
			best = math.Min(best, d)
		}
	}
	return best
}
