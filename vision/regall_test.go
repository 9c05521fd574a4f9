package vision

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/template"
)

// synthRegErr is the true registration error (mm) of after on the paper it keeps, against
// the synthetic truth (see runSynthCase).
func synthRegErr(fresh, after *SheetImage, th0, th homog, paper template.Paper) float64 {
	ours2photo := th.mul(th0.inv()).mul(homog(fresh.H))
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
			got := homog(after.H).inv().apply(want)
			if d := dist(got, pt{x, y}); d > e {
				e = d
			}
		}
	}
	return e
}

type regAllRow struct {
	name     string
	err      error
	trueErr  float64
	residual float64
	notes    []string
}

// registerAllSynth registers every visible later photo of the synthetic set against its
// fresh sheet (not stopping at a refusal) and returns, per photo, the outcome and true error.
func registerAllSynth(t *testing.T) []regAllRow { return registerAllDirs(t, synthDirs(t)) }

func TestRegisterAllSynthDump(t *testing.T) {
	if os.Getenv("VISION_REGALL") == "" {
		t.Skip("VISION_REGALL=1 to dump")
	}
	rows := registerAllSynth(t)
	for _, r := range rows {
		ref := errors.Is(r.err, ErrRegistration)
		t.Logf("%-28s refused=%v true=%.2f resid=%.2f %v %v", r.name, ref, r.trueErr, r.residual, r.notes, r.err)
	}
	regAllSummary(t, rows)
}

func TestRegisterAllSynthEdges(t *testing.T) {
	if os.Getenv("VISION_REGALL") == "" {
		t.Skip("VISION_REGALL=1 to dump")
	}
	edgeDump = func(offs []float64, keys []int, ref map[int]float64, spill, edge int) {
		var b [4]string
		for i, o := range offs {
			s := keys[i] >> 20
			r, ok := ref[keys[i]]
			c := fmt.Sprintf("%.0f", o*4)
			if ok && r*4 != -0.5 && r*4 != 0.5 && r*4 != 0 {
				c += fmt.Sprintf("(%.0f)", r*4)
			}
			b[s] += c + " "
		}
		t.Logf("spill %d edge %d", spill, edge)
		for s := range b {
			t.Logf("  side %d: %s", s, b[s])
		}
	}
	defer func() { edgeDump = nil }()
	for _, r := range registerAllSynth(t) {
		t.Logf("== %-28s refused=%v true=%.2f resid=%.2f %v", r.name, r.err != nil, r.trueErr, r.residual, r.notes)
	}
}

func TestRegisterOneDebug(t *testing.T) {
	f := os.Getenv("VISION_REGONE") // case-003/ines-4.jpg
	if f == "" {
		t.Skip()
	}
	dir := filepath.Join("..", "testdata", "images", "synth", filepath.Dir(f))
	tr, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	paper := truthPaper(tr)
	pl := tr.Players[0]
	fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), paper)
	defer fresh.Close()
	img, _ := ReadImage(filepath.Join("..", "testdata", "images", "synth", f))
	defer img.Close()
	debugDir = os.Getenv("VISION_REGONE_DIR")
	defer func() { debugDir = "" }()
	after, err := Register(fresh, img)
	t.Log(err)
	if after != nil {
		after.Close()
	}
}

func TestRegisterSampleEdges(t *testing.T) {
	if os.Getenv("VISION_REGALL") == "" {
		t.Skip("VISION_REGALL=1 to dump")
	}
	dir := filepath.Join("..", "testdata", "images", "sample")
	img, err := ReadImage(filepath.Join(dir, "breta-0.jpg"))
	require.NoError(t, err)
	fresh, err := Fresh(img, template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297})
	img.Close()
	require.NoError(t, err)
	defer fresh.Close()
	edgeDump = func(offs []float64, keys []int, ref map[int]float64, spill, edge int) {
		var b [4]string
		for i, o := range offs {
			s := keys[i] >> 20
			r, ok := ref[keys[i]]
			c := fmt.Sprintf("%.0f", o*4)
			if ok && r*4 != -0.5 && r*4 != 0.5 && r*4 != 0 {
				c += fmt.Sprintf("(%.0f)", r*4)
			}
			b[s] += c + " "
		}
		t.Logf("spill %d edge %d", spill, edge)
		for s := range b {
			t.Logf("  side %d: %s", s, b[s])
		}
	}
	defer func() { edgeDump = nil }()
	for _, f := range []string{"breta-1.jpg", "breta-4.jpg"} {
		img, err := ReadImage(filepath.Join(dir, f))
		require.NoError(t, err)
		t.Logf("#### %s", f)
		after, err := Register(fresh, img)
		img.Close()
		if after != nil {
			t.Log(after.Notes)
			after.Close()
		}
		t.Log(err)
	}
}

// registerSynthTear registers tear (1-based) of the first player of a synthetic case against
// the fresh sheet and returns the outcome and, when registered, the true error in mm.
func registerSynthTear(t *testing.T, cs string, tear int) (float64, error) {
	dir := filepath.Join("..", "testdata", "images", "synth", cs)
	if _, err := os.Stat(filepath.Join(dir, "truth.json")); err != nil {
		t.Skip("no synthetic set")
	}
	tr, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	paper := truthPaper(tr)
	pl := tr.Players[0]
	fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), paper)
	defer fresh.Close()
	tt := pl.Tears[tear-1]
	img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
	require.NoError(t, err)
	defer img.Close()
	after, err := Register(fresh, img)
	if err != nil {
		return -1, err
	}
	defer after.Close()
	return synthRegErr(fresh, after, homog(pl.Sheet.Homography), homog(tt.Photo.Homography), paper), nil
}

// Torn stretches near a side are left out of the untorn-edge check: case-003's fifth photo
// (a corner cut off, ink fitting within 0.03 mm) was refused with the edges "off by 2 mm",
// all of it the tear line; it registers now, truly within 1 mm. So do case-003 tear 1 (a
// pale desk: the colour test lost the shaded paper along two sides, and the ink patches
// skipped black ink) and case-007 tear 2 (a tear line meeting a side at a slant, and the desk
// where paper was torn away passing as paper). Where the ink patches lie in one word
// (case-010 tears 2 and 3: the patch homography was 1.20 and 1.05 mm off at the far corners,
// refused), ink and untorn edges fitted together register them truly within 0.3 mm; small
// remnants (case-009 tear 4, case-010 tear 4: 18.7 and 2.0 mm off with the regular ink
// patches, too few of which lie on them) register with the denser set.
func TestRegisterTornStretchesLeftOut(t *testing.T) {
	for _, c := range []struct {
		cs   string
		tear int
	}{{"case-003", 5}, {"case-003", 1}, {"case-007", 2}, {"case-010", 2}, {"case-010", 3}, {"case-009", 4}, {"case-010", 4}} {
		e, err := registerSynthTear(t, c.cs, c.tear)
		require.NoError(t, err, "%s tear %d (good alignment) registers", c.cs, c.tear)
		require.Less(t, e, 1.0, "%s tear %d true error", c.cs, c.tear)
	}
}

// A photo of another sheet is refused, never registered: every later photo of case-004,
// case-005 and case-008 against the fresh sheet of case-001 (other players, all A4).
func TestRegisterOtherSheetRefused(t *testing.T) {
	dir := filepath.Join("..", "testdata", "images", "synth")
	if _, err := os.Stat(filepath.Join(dir, "case-001", "truth.json")); err != nil {
		t.Skip("no synthetic set")
	}
	tr, err := synth.LoadTruth(filepath.Join(dir, "case-001"))
	require.NoError(t, err)
	paper := truthPaper(tr)
	fresh := synthFresh(t, filepath.Join(dir, "case-001", tr.Players[0].Sheet.File), paper)
	defer fresh.Close()
	n := 0
	for _, cs := range []string{"case-004", "case-005", "case-008"} {
		ot, err := synth.LoadTruth(filepath.Join(dir, cs))
		require.NoError(t, err)
		require.Equal(t, tr.Paper.WidthMM, ot.Paper.WidthMM)
		for _, tt := range ot.Players[0].Tears {
			n++
			img, err := ReadImage(filepath.Join(dir, cs, tt.Photo.File))
			require.NoError(t, err)
			after, err := Register(fresh, img)
			img.Close()
			if after != nil {
				after.Close()
			}
			require.Error(t, err, "%s %s registered to another sheet", cs, tt.Photo.File)
		}
	}
	require.Greater(t, n, 10)
}

func TestUntornSamples(t *testing.T) {
	var sg []float64
	var keys []int
	add := func(side int, v ...float64) {
		for _, x := range v {
			keys = append(keys, side<<20|len(sg))
			sg = append(sg, x)
		}
	}
	// Side 0: untorn at 0.25 mm, then a tear line coming in to 2 mm: left out.
	add(0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 1.5, 2, 2, 2, 2)
	// Side 1: wholly 2 mm inside (misregistration): its own level, kept.
	add(1, 2, 2, 2, 2, 2, 2)
	// Side 2: outward samples are never torn: kept.
	add(2, -1.25, -1.25, -1.25, -1.25, -1.25, 3, 4)
	kept, sideMed, _ := untornSamples(sg, keys, 1, [4]bool{})
	require.Len(t, kept, 7+6+5)
	require.Equal(t, 2.0, sideMed)
}
