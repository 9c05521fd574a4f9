package vision

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/ocr"
	"tearcam/template"
)

// The synthetic set (testdata/images/synth, made by internal/synth) has exact truth for every
// photo and tear. TestSynthSet runs the whole vision pipeline on it and checks issue 3's
// numbers; with -v it prints one line per photo and a summary.

type synthStats struct {
	fresh, freshOK         int
	cornerErrs             []float64 // fraction of the diagonal
	regs, regOK, refused   int
	regErrs, residuals     []float64 // mm
	areaRel                []float64
	tears, geomChecked     int
	piecesBad, edgeBad     int
	fitBad, paperBad       int
	letters, lettersBad    int
	lettersAmb, lettersUnk int
	failures               []string
	confusion              [8][8]int // truth letter state x measured state (every letter, every tear measured)
	ocr                    *ocr.Locator
}

func synthDirs(t *testing.T) []string {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "images", "synth", "*", "truth.json"))
	if len(dirs) == 0 {
		t.Skip("no synthetic set in testdata/images/synth")
	}
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	sort.Strings(dirs)
	if testing.Short() && len(dirs) > 4 {
		dirs = dirs[:4]
	}
	return dirs
}

// truthPaper is the synthetic case's paper as template.Paper.
func truthPaper(tr *synth.Truth) template.Paper {
	return template.Paper{Name: tr.Paper.Name, WidthMM: tr.Paper.WidthMM, HeightMM: tr.Paper.HeightMM}
}

// synthFresh runs Fresh on a synthetic case's photo, which must show the whole sheet; the
// caller closes the sheet.
func synthFresh(t *testing.T, path string, paper template.Paper) *SheetImage {
	t.Helper()
	img, err := ReadImage(path)
	require.NoError(t, err)
	fresh, err := Fresh(img, paper)
	img.Close()
	require.NoError(t, err)
	return fresh
}

func TestSynthSet(t *testing.T) {
	var st synthStats
	if os.Getenv("VISION_SYNTH_OCR") != "" {
		// Letter outlines from ocr/ (as tearcam audit uses) instead of the truth's.
		loc, err := ocr.NewLocator(2)
		require.NoError(t, err)
		defer loc.Close()
		st.ocr = loc
	}
	for _, dir := range synthDirs(t) {
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		runSynthCase(t, dir, tr, &st)
	}
	sort.Float64s(st.cornerErrs)
	sort.Float64s(st.regErrs)
	sort.Float64s(st.residuals)
	sort.Float64s(st.areaRel)
	q := func(v []float64, p float64) float64 {
		if len(v) == 0 {
			return math.NaN()
		}
		return v[int(p*float64(len(v)-1))]
	}
	t.Logf("fresh: %d/%d found; corner error (%% of diagonal) median %.3f, max %.3f", st.freshOK, st.fresh, 100*q(st.cornerErrs, 0.5), 100*q(st.cornerErrs, 1))
	t.Logf("register: %d/%d registered, %d refused; true error (mm) median %.3f p95 %.3f max %.3f; residual p95 %.3f",
		st.regOK, st.regs, st.refused, q(st.regErrs, 0.5), q(st.regErrs, 0.95), q(st.regErrs, 1), q(st.residuals, 0.95))
	within := 0
	for _, r := range st.areaRel {
		if r <= 0.05 {
			within++
		}
	}
	t.Logf("area: %d/%d tears within 5%% (median rel error %.3f, p95 %.3f)", within, len(st.areaRel), q(st.areaRel, 0.5), q(st.areaRel, 0.95))
	t.Logf("geometry on %d/%d tears: pieces wrong %d, edge wrong %d, template fit wrong %d, paper fit wrong %d",
		st.geomChecked, st.tears, st.piecesBad, st.edgeBad, st.fitBad, st.paperBad)
	t.Logf("letters: %d compared, %d wrong, %d ambiguous, %d unknown", st.letters, st.lettersBad, st.lettersAmb, st.lettersUnk)
	t.Logf("letter states, truth (rows) x measured (columns):\n%s", confusionTable(st.confusion))
	for i, f := range st.failures {
		if i == 30 && os.Getenv("VISION_SYNTH_REPORT") == "" {
			t.Logf("... %d more", len(st.failures)-30)
			break
		}
		t.Log(f)
	}
	if os.Getenv("VISION_SYNTH_REPORT") != "" {
		return // measuring only
	}
	// Issue 3's numbers, where they hold on the committed set; regression floors (with the
	// target in the comment) where they do not yet. See vision/README.md for the figures.
	for _, e := range st.cornerErrs {
		assert.Less(t, e, 0.01, "corner error") // target: < 1% of the diagonal
	}
	assert.Equal(t, st.fresh, st.freshOK, "every wholly visible fresh sheet found")
	if len(st.regErrs) > 0 {
		assert.Less(t, q(st.residuals, 0.95), 1.0, "residual p95")                      // target: < 1 mm on 95%
		assert.Less(t, q(st.regErrs, 0.95), 1.0, "true error on paper p95")             // never silent
		assert.GreaterOrEqual(t, float64(st.regOK), 0.8*float64(st.regs), "registered") // floor; target: all
	}
	assert.GreaterOrEqual(t, float64(within), 0.95*float64(len(st.areaRel)), "areas within 5%") // target: 95%
	assert.LessOrEqual(t, st.piecesBad+st.edgeBad+st.fitBad+st.paperBad, 1, "geometry")         // floor; target 0
}

func runSynthCase(t *testing.T, dir string, tr *synth.Truth, st *synthStats) {
	paper := truthPaper(tr)
	tpl := template.Template{Name: tr.Template.Name, PolygonMM: tr.Template.PolygonMM}
	fail := func(format string, a ...any) {
		st.failures = append(st.failures, fmt.Sprintf("%s: ", filepath.Base(dir))+fmt.Sprintf(format, a...))
	}
	for _, pl := range tr.Players {
		img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
		require.NoError(t, err)
		fresh, err := Fresh(img, paper)
		img.Close()
		if pl.Sheet.CutOff {
			if !errors.Is(err, ErrSheetCutOff) {
				fail("%s: cut-off fresh sheet: got %v", pl.Sheet.File, err)
			}
			if fresh != nil {
				fresh.Close()
			}
			continue
		}
		st.fresh++
		if err != nil {
			fail("%s: fresh: %v", pl.Sheet.File, err)
			continue
		}
		st.freshOK++
		th0 := homog(pl.Sheet.Homography)
		diag := dist(ptOf2(pl.Sheet.CornersPx[0]), ptOf2(pl.Sheet.CornersPx[2]))
		worst := 0.0
		for _, c := range fresh.Corners {
			best := math.Inf(1)
			for _, q := range pl.Sheet.CornersPx {
				best = math.Min(best, dist(ptOf(c), ptOf2(q)))
			}
			worst = math.Max(worst, best)
		}
		st.cornerErrs = append(st.cornerErrs, worst/diag)
		if worst/diag > 0.01 {
			fail("%s: corner error %.2f%%", pl.Sheet.File, 100*worst/diag)
		}
		// Truth sheet frame -> our frame.
		toOurs := homog(fresh.H).inv().mul(th0)
		layouts := make([]judge.SkillLayout, len(pl.Skills))
		for i, sk := range pl.Skills {
			layouts[i].Name = sk.Name
			for _, le := range sk.Letters {
				var o []judge.Point
				for _, v := range le.OutlineMM {
					q := toOurs.apply(pt{v[0], v[1]})
					o = append(o, judge.Point{X: q.X, Y: q.Y})
				}
				layouts[i].Letters = append(layouts[i].Letters, judge.Letter{Char: le.Char, Outline: o})
			}
			layouts[i].Located = len(layouts[i].Letters)
		}
		if st.ocr != nil {
			var names []string
			for _, sk := range pl.Skills {
				names = append(names, sk.Name)
			}
			ls, err := st.ocr.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, names)
			require.NoError(t, err)
			layouts = ls
		}
		before := fresh
		for _, tt := range pl.Tears {
			st.tears++
			img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
			require.NoError(t, err)
			st.regs++
			after, err := Register(fresh, img)
			img.Close()
			if tt.Photo.CutOff {
				// Registered on what it shows, the rest unknown (TestCutOffSynth measures it).
				if err != nil {
					fail("%s: cut-off photo: %v", tt.Photo.File, err)
				} else {
					if !after.Partial() {
						fail("%s: cut-off photo registered without an unknown region", tt.Photo.File)
					}
					after.Close()
				}
				break // the rest of this player's tears: see TestCutOffSynth
			}
			if err != nil {
				st.refused++
				fail("%s (%s): register: %v", tt.Photo.File, tt.Intent, err)
				break
			}
			st.regOK++
			st.residuals = append(st.residuals, after.ResidualMM)
			// True error: our frame point -> truth mm (via fresh) -> photo (truth) vs after.H.
			th := homog(tt.Photo.Homography)
			ours2photo := th.mul(th0.inv()).mul(homog(fresh.H))
			// Where it matters: on the paper left (every 10 mm of the after-mask), the largest
			// distance between where the truth and our homography put the same photo point.
			e := 0.0
			am := after.Mask.ToBytes()
			cols := after.Mask.Cols()
			for y := 5.0; y < paper.HeightMM; y += 10 {
				for x := 5.0; x < paper.WidthMM; x += 10 {
					q := mmToPx(pt{x, y}, after.PxPerMM).img()
					if am[q.Y*cols+q.X] == 0 {
						continue
					}
					want := ours2photo.apply(pt{x, y})
					got := homog(after.H).inv().apply(want) // back into our frame
					if d := dist(got, pt{x, y}); d > e {
						e = d
						if d > 1 && os.Getenv("VISION_DEBUG") != "" {
							t.Logf("%s: error %.2f mm at (%.0f, %.0f) mm", tt.Photo.File, d, x, y)
						}
					}
				}
			}
			st.regErrs = append(st.regErrs, e)
			if e > 1 {
				fail("%s (%s): registration error %.2f mm, residual %.2f mm %v", tt.Photo.File, tt.Intent, e, after.ResidualMM, after.Notes)
			}
			r, err := Measure(before, after, layouts, tpl)
			require.NoError(t, err)
			wantArea := 0.0
			for _, pc := range tt.Pieces {
				wantArea += pc.AreaMM2
			}
			rel := math.Abs(r.AreaMM2-wantArea) / math.Max(wantArea, 100)
			st.areaRel = append(st.areaRel, rel)
			if rel > 0.05 {
				fail("%s (%s): area %.0f want %.0f", tt.Photo.File, tt.Intent, r.AreaMM2, wantArea)
			}
			if !tt.Ambiguous {
				st.geomChecked++
				if r.Pieces != len(tt.Pieces) {
					st.piecesBad++
					fail("%s (%s): pieces %d want %d %v", tt.Photo.File, tt.Intent, r.Pieces, len(tt.Pieces), pieceAreas(tt.Pieces))
				}
				if r.EdgeToEdge != tt.EdgeToEdge && len(tt.Pieces) > 0 {
					st.edgeBad++
					fail("%s (%s): edge %v want %v", tt.Photo.File, tt.Intent, r.EdgeToEdge, tt.EdgeToEdge)
				}
				if r.TemplateFits != tt.TemplateFits {
					st.fitBad++
					fail("%s (%s): template fits %v want %v", tt.Photo.File, tt.Intent, r.TemplateFits, tt.TemplateFits)
				}
				if r.PaperFits != tt.PaperFits.Fits {
					st.paperBad++
					fail("%s (%s): paper fits %v want %v", tt.Photo.File, tt.Intent, r.PaperFits, tt.PaperFits.Fits)
				}
			}
			for si, sk := range tt.Letters {
				if si >= len(r.Measurement.Letters) {
					break
				}
				got := r.Measurement.Letters[si].States
				for li, want := range sk.States {
					if li >= len(got) {
						break
					}
					st.confusion[want][got[li]]++
					if want == judge.LetterAmbiguous {
						continue
					}
					st.letters++
					switch got[li] {
					case want:
					case judge.LetterAmbiguous:
						st.lettersAmb++
					case judge.LetterOnSheetOrCut:
						// Right when the truth is on the sheet or cut (or gone: cut by an
						// earlier tear in doubt), but not decided.
						if want != judge.LetterOnSheet && want != judge.LetterCut && want != judge.LetterGone {
							st.lettersBad++
							fail("%s (%s): %s letter %d %v want %v", tt.Photo.File, tt.Intent, sk.Name, li+1, got[li], want)
						} else {
							st.lettersAmb++
						}
					case judge.LetterRemovedOrCut:
						if want != judge.LetterRemoved && want != judge.LetterCut && want != judge.LetterGone {
							st.lettersBad++
							fail("%s (%s): %s letter %d %v want %v", tt.Photo.File, tt.Intent, sk.Name, li+1, got[li], want)
						} else {
							st.lettersAmb++
						}
					case judge.LetterUnknown:
						st.lettersUnk++
					default:
						st.lettersBad++
						fail("%s (%s): %s letter %d %v want %v", tt.Photo.File, tt.Intent, sk.Name, li+1, got[li], want)
					}
				}
			}
			if os.Getenv("VISION_DEBUG") != "" {
				a, err := Annotate(after, r, layouts, string(tt.Intent), []string{fmt.Sprintf("area %.0f (truth %.0f) pieces %d (%d) edge %v fits %v", r.AreaMM2, wantArea, r.Pieces, len(tt.Pieces), r.EdgeToEdge, r.TemplateFits)})
				if err == nil {
					gocv.IMWrite(filepath.Join("/tmp/v", "ann_"+filepath.Base(dir)+"_"+strings.TrimSuffix(tt.Photo.File, ".jpg")+".jpg"), a)
					a.Close()
				}
			}
			r.Close()
			if before != fresh {
				before.Close()
			}
			before = after
		}
		if before != fresh {
			before.Close()
		}
		fresh.Close()
	}
}

func ptOf2(p [2]float64) pt { return pt{p[0], p[1]} }

func confusionTable(c [8][8]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s", "truth\\got")
	for j := 0; j < 8; j++ {
		fmt.Fprintf(&b, "%16s", judge.LetterState(j))
	}
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "\n%-10s", judge.LetterState(i))
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&b, "%16d", c[i][j])
		}
	}
	return b.String()
}

func pieceAreas(ps []synth.PieceTruth) []float64 {
	var a []float64
	for _, p := range ps {
		a = append(a, p.AreaMM2)
	}
	return a
}
