package ocr

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/template"
	"tearcam/vision"
)

// calibRow is one located skill: what its confidence was made of, and how it scored against
// the truth.
type calibRow struct {
	src   string
	name  string
	ev    evidence
	conf  float64
	id    float64 // identity confidence
	score synthScore
	exact bool // the read was the name exactly
}

// locateWithEvidence is l.Locate, also returning each located skill's evidence.
func locateWithEvidence(t testing.TB, l *Locator, sheet, mask gocv.Mat, pxPerMM float64, names []string) ([]judge.SkillLayout, []evidence) {
	t.Helper()
	evs := make([]evidence, len(names))
	evidenceHook = func(k int, ev evidence) { evs[k] = ev }
	defer func() { evidenceHook = nil }()
	lays, err := l.Locate(sheet, mask, pxPerMM, names)
	if err != nil {
		t.Fatal(err)
	}
	return lays, evs
}

// calibRendered locates the skills of n rendered sheets from seed on (photographed and
// rectified by their true corners when photo) and scores them.
func calibRendered(t testing.TB, l *Locator, seed int64, n int, photo bool) []calibRow {
	var rows []calibRow
	for i := 0; i < n; i++ {
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed+int64(i))), synth.SheetSpec{PxPerMM: 4})
		if err != nil {
			t.Fatal(err)
		}
		var m gocv.Mat
		src := fmt.Sprintf("seed%d", seed+int64(i))
		if photo {
			m, src = photographed(t, sh, seed+int64(i)), "photo"+src
		} else {
			m = sheetMat(t, sh)
		}
		empty := gocv.NewMat()
		lays, evs := locateWithEvidence(t, l, m, empty, sh.PxPerMM, sh.SkillNames())
		for k, sk := range sh.Skills {
			if lays[k].Located == 0 {
				continue
			}
			rows = append(rows, calibRow{src: src, name: sk.Name, ev: evs[k],
				conf: lays[k].Confidence, id: lays[k].Identity, score: scoreSkill(lays[k], sk), exact: evs[k].sim == 1})
		}
		// The same sheet with its last skill declared as a name not on it (as TestSynthSheets
		// does): located, it is on another word.
		names := sh.SkillNames()
		names[len(names)-1] = absentSkill(names, i)
		lays, evs = locateWithEvidence(t, l, m, empty, sh.PxPerMM, names)
		m.Close()
		empty.Close()
		if a := lays[len(names)-1]; a.Located > 0 {
			rows = append(rows, calibRow{src: "absent" + src, name: a.Name, ev: evs[len(names)-1], conf: a.Confidence, id: a.Identity})
		}
	}
	return rows
}

// ForEachFreshSheet calls fn for each player of each case of a generated audit set (dir
// holds case folders with truth.json) with the player's fresh sheet as the referee sees it
// (vision.Fresh), closed after fn returns; a sheet vision does not find is logged and skipped.
func ForEachFreshSheet(t testing.TB, dir string, fn func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage)) {
	t.Helper()
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	for i := range cases {
		cases[i] = filepath.Dir(cases[i])
	}
	forFreshSheetsOf(t, cases, fn)
}

// forFreshSheetsOf is ForEachFreshSheet over the given case folders.
func forFreshSheetsOf(t testing.TB, cases []string, fn func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage)) {
	t.Helper()
	for _, caseDir := range cases {
		truth, err := synth.LoadTruth(caseDir)
		if err != nil {
			t.Fatal(err)
		}
		paper := template.Paper{Name: truth.Paper.Name, WidthMM: truth.Paper.WidthMM, HeightMM: truth.Paper.HeightMM}
		for _, pt := range truth.Players {
			m, err := vision.ReadImage(filepath.Join(caseDir, pt.Sheet.File))
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := vision.Fresh(m, paper)
			m.Close()
			if err != nil {
				t.Logf("%s %s: %v", filepath.Base(caseDir), pt.Name, err)
				continue
			}
			fn(caseDir, pt, fresh)
			fresh.Close()
		}
	}
}

// truthNames is the player's declared skills, in order.
func truthNames(pt synth.PlayerTruth) []string {
	names := make([]string, len(pt.Skills))
	for i, sk := range pt.Skills {
		names[i] = sk.Name
	}
	return names
}

// newTestLocator is a Locator of two workers, closed when the test ends.
func newTestLocator(t testing.TB) *Locator {
	t.Helper()
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// calibAudit locates the skills on the fresh photos of a generated audit set and scores
// them against truth.json.
func calibAudit(t testing.TB, l *Locator, dir string) []calibRow {
	var rows []calibRow
	ForEachFreshSheet(t, dir, func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		var names []string
		for _, sk := range pt.Skills {
			names = append(names, sk.Name)
		}
		lays, evs := locateWithEvidence(t, l, fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		for k, sk := range pt.Skills {
			if lays[k].Located == 0 {
				continue
			}
			truthQ, chars := truthInFrame(pt, sk, fresh), letterChars(sk)
			rows = append(rows, calibRow{src: filepath.Base(dir) + "/" + filepath.Base(caseDir) + "/" + pt.Name, name: sk.Name,
				ev: evs[k], conf: lays[k].Confidence, id: lays[k].Identity, score: scoreLetters(lays[k], truthQ, chars, sk.CapHeightMM), exact: evs[k].sim == 1})
		}
	})
	return rows
}

// photoToFrame maps photo pixels to the sheet frame (mm) of a rectified sheet.
func photoToFrame(s *vision.SheetImage) func(x, y float64) judge.Point {
	w, h := float32(float64(s.Image.Cols())/s.PxPerMM), float32(float64(s.Image.Rows())/s.PxPerMM)
	from := gocv.NewPoint2fVectorFromPoints(s.Corners[:])
	defer from.Close()
	to := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}})
	defer to.Close()
	hm := gocv.GetPerspectiveTransform2f(from, to)
	defer hm.Close()
	var g [9]float64
	for i := range g {
		g[i] = hm.GetDoubleAt(i/3, i%3)
	}
	return func(x, y float64) judge.Point {
		d := g[6]*x + g[7]*y + g[8]
		return judge.Point{X: (g[0]*x + g[1]*y + g[2]) / d, Y: (g[3]*x + g[4]*y + g[5]) / d}
	}
}

// TestConfCalibDump (OCR_CALIB=FILE) writes one line per located skill, on OCR_SYNTH_N
// rendered sheets from OCR_SYNTH_SEED and on the audit sets named in OCR_CALIB_SETS
// (colon-separated), and on OCR_CALIB_PHOTOS photographed sheets from OCR_SYNTH_SEED+1000: its evidence, confidence and score against the truth. A diagnostic for
// calibrating the confidence; skipped otherwise.
func TestConfCalibDump(t *testing.T) {
	out := os.Getenv("OCR_CALIB")
	if out == "" {
		t.Skip("OCR_CALIB not set")
	}
	n, seed := 12, int64(100)
	if v, err := strconv.Atoi(os.Getenv("OCR_SYNTH_N")); err == nil {
		n = v
	}
	if v, err := strconv.ParseInt(os.Getenv("OCR_SYNTH_SEED"), 10, 64); err == nil {
		seed = v
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows := calibRendered(t, l, seed, n, false)
	if v, err := strconv.Atoi(os.Getenv("OCR_CALIB_PHOTOS")); err == nil {
		rows = append(rows, calibRendered(t, l, seed+1000, v, true)...)
	}
	for _, d := range strings.Split(os.Getenv("OCR_CALIB_SETS"), ":") {
		if d != "" {
			rows = append(rows, calibAudit(t, l, d)...)
		}
	}
	var b strings.Builder
	b.WriteString("src\tname\tsim\tmargin\tdiv\tcut\ttess\trival\treadlen\tnamelen\tconf\tlocated\tright\tworst\tidentity\tforced\tfconf\tfsim\tmarks\texact\tread\tsyms\tfsyms\n")
	for _, r := range rows {
		worst := 0.0
		for _, h := range r.score.hd {
			worst = math.Max(worst, h)
		}
		ftext, fconf, fsim := "-", 0.0, 0.0
		if f := r.ev.forced; f != nil {
			ftext, fconf, fsim = f.text, f.conf, similarity(f.folded(), foldLetters(r.name))
		}
		rtext := "-"
		if r.ev.read != nil {
			rtext = r.ev.read.text
		}
		fmt.Fprintf(&b, "%s\t%s\t%.3f\t%.3f\t%d\t%v\t%.1f\t%.3f\t%d\t%d\t%.3f\t%v\t%v\t%.2f\t%.3f\t%s\t%.1f\t%.3f\t%s\t%s\t%s\t%s\t%s\n", r.src, r.name, r.ev.sim, r.ev.margin,
			r.ev.div, r.ev.cut, r.ev.tess, r.ev.rival, r.ev.readLen, r.ev.nameLen, r.conf, r.score.located, r.score.lettersRight, worst, r.id, ftext, fconf, fsim, r.score.marks, exactOf(r.ev), rtext, symsOf(r.ev.read), symsOf(r.ev.forced))
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reliability logs the confidence bins against the fraction of skills right (on their own
// word with every letter's centre on its letter) and checks the calibration: at or above
// judge.WeakReadConfidence at least minRight of the skills are right; at most maxExactWeak
// of the exact reads fall under it; when strict, no skill on another word reaches it.
func reliability(t *testing.T, rows []calibRow, minRight, maxExactWeak float64, strict bool) {
	t.Helper()
	bins := []float64{0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01}
	for i := 0; i+1 < len(bins); i++ {
		var n, right, onWord int
		sum := 0.0
		for _, r := range rows {
			if r.conf >= bins[i] && r.conf < bins[i+1] {
				n++
				sum += r.conf
				if r.score.lettersRight {
					right++
				}
				if r.score.located {
					onWord++
				}
			}
		}
		if n > 0 {
			t.Logf("confidence [%.2f, %.2f): %3d skills, mean %.2f, right %.2f, on their word %.2f", bins[i], math.Min(1, bins[i+1]), n, sum/float64(n), float64(right)/float64(n), float64(onWord)/float64(n))
		}
	}
	for i := 0; i+1 < len(bins); i++ {
		var n, onWord int
		for _, r := range rows {
			if r.id >= bins[i] && r.id < bins[i+1] {
				n++
				if r.score.located {
					onWord++
				}
			}
		}
		if n > 0 {
			t.Logf("identity [%.2f, %.2f): %3d skills, on their word %.2f", bins[i], math.Min(1, bins[i+1]), n, float64(onWord)/float64(n))
		}
	}
	var strong, strongRight, exact, exactWeak int
	for _, r := range rows {
		if r.conf >= judge.WeakReadConfidence {
			strong++
			if r.score.lettersRight {
				strongRight++
			}
			if !r.score.located && strict {
				t.Errorf("%s %q: on another word, yet confidence %.2f (evidence %+v)", r.src, r.name, r.conf, r.ev)
			}
		}
		if r.exact {
			exact++
			if r.conf < judge.WeakReadConfidence {
				exactWeak++
			}
		}
	}
	t.Logf("at or above %.2f: %d of %d skills right; exact reads under it: %d of %d", judge.WeakReadConfidence, strongRight, strong, exactWeak, exact)
	if strong > 0 && float64(strongRight) < minRight*float64(strong) {
		t.Errorf("at or above %.2f only %d of %d skills right, want >= %.0f%%", judge.WeakReadConfidence, strongRight, strong, 100*minRight)
	}
	if float64(exactWeak) > maxExactWeak*float64(exact) {
		t.Errorf("%d of %d exact reads under %.2f, want <= %.0f%%", exactWeak, exact, judge.WeakReadConfidence, 100*maxExactWeak)
	}
}

// TestConfCalibration checks the location confidence against the truth on the fresh photos
// of the project's synthetic set (as the referee sees them: vision.Fresh, then Locate;
// $TEARCAM_SYNTH_DIR names another set): see reliability. Measured on the project's set:
// (see the README's OCR figures).
func TestConfCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: locates 25 sheets")
	}
	dir := filepath.Join("..", "testdata", "images", "synth")
	if d := os.Getenv("TEARCAM_SYNTH_DIR"); d != "" {
		dir = d
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows := calibAudit(t, l, dir)
	if len(rows) < 20 {
		t.Fatalf("only %d skills located in %s", len(rows), dir)
	}
	reliability(t, rows, 0.9, 0.05, true)
}

// exactOf names the read mode and zoom of the evidence's exact read ("-": none).
func exactOf(ev evidence) string {
	if ev.exact == nil {
		return "-"
	}
	return fmt.Sprintf("psm%s@%.2f/%.0f", ev.exact.psm, ev.exact.zoom, ev.exact.rd.conf)
}

// letterChars is the characters of the skill's letters (truth.json).
func letterChars(sk synth.SkillTruth) []rune {
	chars := make([]rune, len(sk.Letters))
	for i, le := range sk.Letters {
		chars[i] = []rune(le.Char)[0]
	}
	return chars
}

// symsOf is a reading's symbols as letter, confidence and box ("-" for none): "h99@3-17".
func symsOf(rd *reading) string {
	if rd == nil {
		return "-"
	}
	var syms []string
	for _, s := range rd.syms {
		syms = append(syms, fmt.Sprintf("%c%.0f@%d-%d", s.r, s.conf, s.box.Min.X, s.box.Max.X))
	}
	return strings.Join(syms, " ")
}
