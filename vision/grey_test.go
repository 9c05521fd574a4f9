package vision

import (
	"image"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/template"
)

func TestToGreyAndIsGrey(t *testing.T) {
	// BGR (10, 200, 50): 0.114*10 + 0.587*200 + 0.299*50 = 133.49 -> 133.
	g := toGrey([]byte{10, 200, 50, 255, 255, 255, 0, 0, 0})
	want := []byte{133, 133, 133, 255, 255, 255, 0, 0, 0}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("toGrey = %v, want %v", g, want)
		}
	}
	c := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 90, 200, 0), 30, 40, gocv.MatTypeCV8UC3)
	defer c.Close()
	gr := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(90, 90, 90, 0), 30, 40, gocv.MatTypeCV8UC3)
	defer gr.Close()
	if isGrey(c) || !isGrey(gr) {
		t.Errorf("isGrey: colour %v, grey %v", isGrey(c), isGrey(gr))
	}
}

// TestGreyPhotoComparedInGrey: a greyscale copy of the fresh photo itself (nothing torn, a red
// marker stripe drawn on the sheet),
// against the colour fresh sheet, registers and measures no removed paper: the change test
// compares it in grey (in colour every pixel of a coloured sheet would have changed). And a
// greyscale later photo's measurement carries the greyscale doubt.
func TestGreyPhotoComparedInGrey(t *testing.T) {
	a4, err := template.ParsePaper("a4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"case-001/hana-0.jpg", "case-002", "case-003", "case-004", "case-010"} {
		name := c
		if !strings.HasSuffix(c, ".jpg") {
			ns, _ := filepath.Glob(filepath.Join("..", "testdata", "images", "synth", c, "*-0.jpg"))
			if len(ns) == 0 {
				t.Skipf("no %s", c)
			}
			name = ns[0]
		} else {
			name = filepath.Join("..", "testdata", "images", "synth", c)
		}
		photo := gocv.IMRead(name, gocv.IMReadColor)
		if photo.Empty() {
			photo.Close()
			t.Skipf("no %s", name)
		}
		fresh, err := Fresh(photo, a4)
		if err != nil {
			photo.Close()
			t.Fatal(err)
		}
		// A red marker stripe, 60 x 30 mm, on the sheet: in the grey photo it is as bright as
		// 0.299 R + ..., which matches no channel of the colour fresh sheet.
		{
			fresh.Close()
			h := homog(fresh.H)
			var ip []image.Point
			for _, p := range []pt{{70, 150}, {130, 150}, {130, 180}, {70, 180}} {
				q := h.apply(p)
				ip = append(ip, image.Pt(int(q.X+0.5), int(q.Y+0.5)))
			}
			pv := gocv.NewPointsVectorFromPoints([][]image.Point{ip})
			gocv.FillPoly(&photo, pv, color.RGBA{200, 30, 40, 0})
			pv.Close()
			if fresh, err = Fresh(photo, a4); err != nil {
				photo.Close()
				t.Fatal(err)
			}
		}
		g1, g3 := gocv.NewMat(), gocv.NewMat()
		gocv.CvtColor(photo, &g1, gocv.ColorBGRToGray)
		gocv.CvtColor(g1, &g3, gocv.ColorGrayToBGR)
		g1.Close()
		reg, err := Register(fresh, g3)
		g3.Close()
		photo.Close()
		if err != nil {
			fresh.Close()
			t.Errorf("%s in grey: %v", name, err)
			continue
		}
		r, err := Measure(fresh, reg, nil, template.Default())
		if err != nil {
			t.Fatal(err)
		}
		m := r.Measurement
		r.Close()
		reg.Close()
		fresh.Close()
		t.Logf("%s in grey: %d pieces, %.1f mm², doubts %v", filepath.Base(name), m.Pieces, m.RemovedAreaMM2, m.Doubts)
		if m.Pieces != 0 || m.RemovedAreaMM2 != 0 {
			t.Errorf("%s in grey: %d pieces, %.1f mm² removed; want none", name, m.Pieces, m.RemovedAreaMM2)
		}
		if len(m.Doubts) == 0 || !strings.Contains(m.Doubts[len(m.Doubts)-1], "greyscale") {
			t.Errorf("%s in grey: no greyscale doubt in %v", name, m.Doubts)
		}
	}
}
