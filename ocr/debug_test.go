package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
)

// TestDebugDump writes, for synthetic sheet $OCR_DEBUG_SEED, every region's crops as Tesseract
// saw them and what it read, into $OCR_DEBUG. Skipped without it.
func TestDebugDump(t *testing.T) {
	dir := os.Getenv("OCR_DEBUG")
	if dir == "" {
		t.Skip("OCR_DEBUG not set")
	}
	seed, _ := strconv.ParseInt(os.Getenv("OCR_DEBUG_SEED"), 10, 64)
	t.Logf("seed %d", seed)
	sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{PxPerMM: 4})
	if err != nil {
		t.Fatal(err)
	}
	m := sheetMat(t, sh)
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	names := sh.SkillNames()
	if p := os.Getenv("OCR_DEBUG_IMAGE"); p != "" {
		m.Close()
		m = gocv.IMRead(p, gocv.IMReadColor)
		names = strings.Split(os.Getenv("OCR_DEBUG_SKILLS"), ",")
		sh.Skills = nil
	}
	im, err := extractInk(m, empty, 4)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLocator(1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f, _ := os.Create(filepath.Join(dir, "sheet.png"))
	png.Encode(f, sh.Image)
	f.Close()
	lab := image.NewGray(image.Rect(0, 0, im.w, im.h))
	for i, v := range im.label {
		if v != 0 {
			lab.Pix[i] = 255
		} else {
			lab.Pix[i] = im.dark[i] / 2
		}
	}
	f, _ = os.Create(filepath.Join(dir, "ink.png"))
	png.Encode(f, lab)
	f.Close()
	t.Logf("line level %d, %d components", im.lineLevel, len(im.comps))
	for _, sk := range sh.Skills {
		t.Logf("truth %q font=%s angle=%.1f cap=%.1f at (%.0f,%.0f)mm", sk.Name, sk.Font, sk.AngleDeg, sk.CapHeightMM, sk.Letters[0].Outline[0].X, sk.Letters[0].Outline[0].Y)
	}
	lays, err := l.Locate(m, empty, 4, names)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(image.Rect(0, 0, m.Cols(), m.Rows()))
	if gi, err := m.ToImage(); err == nil {
		draw.Draw(out, out.Bounds(), gi, image.Point{}, draw.Src)
	}
	poly := func(q []judge.Point, c color.RGBA) {
		for i := range q {
			a, b := q[i], q[(i+1)%len(q)]
			for k := 0; k <= 40; k++ {
				f := float64(k) / 40
				out.Set(int((a.X+(b.X-a.X)*f)*4), int((a.Y+(b.Y-a.Y)*f)*4), c)
			}
		}
	}
	for _, sk := range sh.Skills {
		for _, le := range sk.Letters {
			var q []judge.Point
			for _, p := range le.Outline {
				q = append(q, judge.Point{X: p.X, Y: p.Y})
			}
			poly(q, color.RGBA{0, 200, 0, 255})
		}
	}
	for _, lay := range lays {
		for _, le := range lay.Letters {
			poly(le.Outline, color.RGBA{255, 0, 0, 255})
		}
		t.Logf("%q: %v", lay.Name, lay.Notes)
	}
	f, _ = os.Create(filepath.Join(dir, "outlines.png"))
	png.Encode(f, out)
	f.Close()
	for i, rg := range im.groupWords(wordGap) {
		for j, o := range orientations(rg, im.w) {
			cr := im.render(o)
			rd, err := l.read(cr, whitelistFor(names), "7")
			if err != nil {
				t.Fatal(err)
			}
			g := image.NewGray(image.Rect(0, 0, cr.w, cr.h))
			for k, v := range cr.pix {
				g.Pix[k] = v
			}
			for _, s := range rd.syms {
				for x := s.box.Min.X; x < s.box.Max.X; x++ {
					g.Set(x, s.box.Min.Y, color.Gray{128})
					g.Set(x, s.box.Max.Y-1, color.Gray{128})
				}
			}
			f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("r%02d_%d.png", i, j)))
			png.Encode(f, g)
			f.Close()
			t.Logf("region %d view %d at (%.0f,%.0f)mm angle %.0f comps %d: read %q conf %.0f", i, j, rg.cx/4, rg.cy/4, o.angle()*180/3.14159, len(rg.comps), rd.text, rd.conf)
		}
	}
}
