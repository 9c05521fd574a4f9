package ocr_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/ocr"
	"tearcam/template"
	"tearcam/vision"
)

// TestRefDiag (OCR_REFDIAG=1) locates the skills on every fresh photo of the synthetic photo
// set (testdata/images/synth, as the referee sees it: vision.Fresh, then Locate) and measures
// each tear with these layouts and with the truth's: it logs, per letter, how far the
// located outline is from the truth, and every letter whose measured state differs between
// the two layouts (what the OCR's outlines cost the rulings). $TEARCAM_SYNTH_DIR, when set,
// names another set. A diagnostic, skipped otherwise.
func TestRefDiag(t *testing.T) {
	if os.Getenv("OCR_REFDIAG") == "" {
		t.Skip("OCR_REFDIAG not set")
	}
	dir := filepath.Join("..", "testdata", "images", "synth")
	if d := os.Getenv("TEARCAM_SYNTH_DIR"); d != "" {
		dir = d
	}
	loc, err := ocr.NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	var hds []float64
	var diffs, undetOurs, undetTruth, letters int
	ocr.ForEachFreshSheet(t, dir, func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		var names []string
		for _, sk := range pt.Skills {
			names = append(names, sk.Name)
		}
		lays, err := loc.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		if err != nil {
			t.Fatal(err)
		}
		// The truth is in the generator's sheet frame; vision's frame may be turned: map
		// through the photo.
		hinv := inv3(fresh.H)
		toVis := func(p [2]float64) judge.Point {
			q := pt.Sheet.Homography.Apply(synth.Pt{X: p[0], Y: p[1]})
			w := hinv[6]*q.X + hinv[7]*q.Y + hinv[8]
			return judge.Point{X: (hinv[0]*q.X + hinv[1]*q.Y + hinv[2]) / w, Y: (hinv[3]*q.X + hinv[4]*q.Y + hinv[5]) / w}
		}
		truthLays := make([]judge.SkillLayout, len(pt.Skills))
		for k, sk := range pt.Skills {
			tl := judge.SkillLayout{Name: sk.Name, Located: len(sk.Letters), Confidence: 1}
			lay := lays[k]
			var errs []string
			for i, le := range sk.Letters {
				var q []judge.Point
				for _, p := range le.OutlineMM {
					q = append(q, toVis(p))
				}
				tl.Letters = append(tl.Letters, judge.Letter{Char: le.Char, Outline: q})
				if lay.Located == len(sk.Letters) {
					h := hd(lay.Letters[i].Outline, q)
					hds = append(hds, h)
					// Along the baseline: the centroid offset.
					f0, f1 := toVis(sk.Letters[0].OutlineMM[0]), toVis(sk.Letters[len(sk.Letters)-1].OutlineMM[0])
					a := math.Atan2(f1.Y-f0.Y, f1.X-f0.X)
					c1, c2 := cent(lay.Letters[i].Outline), cent(q)
					du := (c1.X-c2.X)*math.Cos(a) + (c1.Y-c2.Y)*math.Sin(a)
					errs = append(errs, fmt.Sprintf("%s:%+.1f/%.1f", le.Char, du, h))
				}
			}
			truthLays[k] = tl
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, le := range tl.Letters {
				for _, p := range le.Outline {
					x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
				}
			}
			t.Logf("%s %s %-14q %-24s cap %4.1f located %d/%d conf %.2f box %.0f,%.0f,%.0f,%.0f px %v %q", filepath.Base(caseDir), pt.Name, sk.Name, sk.Font, sk.CapHeightMM, lay.Located, len(sk.Letters), lay.Confidence,
				x0*fresh.PxPerMM, y0*fresh.PxPerMM, x1*fresh.PxPerMM, y1*fresh.PxPerMM, errs, lay.Notes)
		}
		if d := os.Getenv("OCR_REFDIAG_DUMP"); d != "" {
			gocv.IMWrite(filepath.Join(d, filepath.Base(caseDir)+"-"+pt.Name+"-fresh.png"), fresh.Image)
			img := fresh.Image.Clone()
			draw := func(q []judge.Point, c color.RGBA) {
				var pts []image.Point
				for _, p := range q {
					pts = append(pts, image.Pt(int(p.X*fresh.PxPerMM), int(p.Y*fresh.PxPerMM)))
				}
				pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
				gocv.Polylines(&img, pv, true, c, 1)
				pv.Close()
			}
			for k := range truthLays {
				for _, le := range truthLays[k].Letters {
					draw(le.Outline, color.RGBA{0, 180, 0, 0})
				}
				for i, le := range lays[k].Letters {
					draw(le.Outline, [3]color.RGBA{{0, 0, 255, 0}, {255, 0, 0, 0}, {200, 0, 200, 0}}[i%3])
				}
			}
			gocv.IMWrite(filepath.Join(d, filepath.Base(caseDir)+"-"+pt.Name+".png"), img)
			img.Close()
		}
		before := fresh
		for _, tt := range pt.Tears {
			m, err := vision.ReadImage(filepath.Join(caseDir, tt.Photo.File))
			if err != nil {
				t.Fatal(err)
			}
			after, err := vision.Register(fresh, m)
			m.Close()
			if err != nil {
				t.Logf("  tear %d: %v", tt.Index, err)
				continue
			}
			ro, err1 := vision.Measure(before, after, lays, template.Default())
			rt, err2 := vision.Measure(before, after, truthLays, template.Default())
			if err1 == nil && err2 == nil {
				for k := range pt.Skills {
					so, st := ro.Measurement.Letters[k].States, rt.Measurement.Letters[k].States
					if pt.Skills[k].Name == tt.Skill {
						var ex []judge.LetterState
						if k < len(tt.ExactLetters) {
							ex = tt.ExactLetters[k].States
						}
						t.Logf("  tear %d %s %q: ours %v truth layout %v exact %v", tt.Index, tt.Kind, tt.Skill, so, st, ex)
					}
					var ex []judge.LetterState
					if k < len(tt.ExactLetters) {
						ex = tt.ExactLetters[k].States
					}
					for i := range st {
						letters++
						if st[i].Undetermined() {
							undetTruth++
						}
						if i < len(so) && so[i].Undetermined() {
							undetOurs++
						}
						var o judge.LetterState
						if i < len(so) {
							o = so[i]
						}
						if o != st[i] {
							diffs++
							e := "?"
							if i < len(ex) {
								e = ex[i].String()
							}
							t.Logf("  tear %d %q letter %d %q: ours %s, truth layout %s, exact %s", tt.Index, pt.Skills[k].Name, i, pt.Skills[k].Letters[i].Char, o, st[i], e)
						}
					}
				}
			} else {
				t.Logf("  tear %d: measure %v %v", tt.Index, err1, err2)
			}
			if ro != nil {
				ro.Close()
			}
			if rt != nil {
				rt.Close()
			}
			if before != fresh {
				before.Close()
			}
			before = after
		}
		if before != fresh {
			before.Close()
		}
	})
	sort.Float64s(hds)
	within := 0
	for _, h := range hds {
		if h <= 1 {
			within++
		}
	}
	if len(hds) > 0 {
		t.Logf("letters %d: within 1 mm %.1f%%, median %.2f, p90 %.2f; letter states differing from the truth layout's %d of %d (undetermined: ours %d, truth layout %d)",
			len(hds), 100*float64(within)/float64(len(hds)), hds[len(hds)/2], hds[len(hds)*9/10], diffs, letters, undetOurs, undetTruth)
	}
}

func cent(q []judge.Point) judge.Point {
	var c judge.Point
	for _, p := range q {
		c.X += p.X
		c.Y += p.Y
	}
	return judge.Point{X: c.X / float64(len(q)), Y: c.Y / float64(len(q))}
}

// hd is the symmetric Hausdorff distance between two polygons' vertex sets and edges.
func hd(a, b []judge.Point) float64 {
	return math.Max(dirHD(a, b), dirHD(b, a))
}

func dirHD(a, b []judge.Point) float64 {
	m := 0.0
	for _, p := range a {
		d := math.Inf(1)
		if inside(p, b) {
			d = 0
		}
		for i := range b {
			d = math.Min(d, sd(p, b[i], b[(i+1)%len(b)]))
		}
		m = math.Max(m, d)
	}
	return m
}

func inside(p judge.Point, q []judge.Point) bool {
	in := false
	for i, j := 0, len(q)-1; i < len(q); j, i = i, i+1 {
		if (q[i].Y > p.Y) != (q[j].Y > p.Y) && p.X < (q[j].X-q[i].X)*(p.Y-q[i].Y)/(q[j].Y-q[i].Y)+q[i].X {
			in = !in
		}
	}
	return in
}

func sd(p, a, b judge.Point) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l2))
	}
	return math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy)
}

func inv3(m [9]float64) [9]float64 {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	A, B, C := e*i-f*h, -(d*i - f*g), d*h-e*g
	det := a*A + b*B + c*C
	return [9]float64{A / det, -(b*i - c*h) / det, (b*f - c*e) / det, B / det, (a*i - c*g) / det, -(a*f - c*d) / det, C / det, -(a*h - b*g) / det, (a*e - b*d) / det}
}
