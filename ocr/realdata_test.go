package ocr

import (
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/realdata"
	"tearcam/judge"
)

// realdataDir is the folder of the real photos (internal/realdata: TEARCAM_REALDATA, else
// shared/realdata above the working directory, else /work/shared/realdata).
func realdataDir(t *testing.T) string { return realdata.Dir(t) }

// realImages are the real photos with their width in millimetres as guessed by eye (the
// photos are not rectified, so the scale Locate is given is an estimate: a sheet photo is
// taken as a little wider than A4, a crop as the width of what it shows).
var realImages = []struct {
	path    string
	widthMM float64
}{
	{"sheets/breta_page01.jpg", 240},
	{"sheets/breta_test1.jpg", 225},
	{"sheets/breta_test5.jpg", 240},
	{"sheets/cc0_a4-on-dark-background.jpg", 260},
	{"sheets/cc0_a4-on-white-background.jpg", 260},
	{"sheets/cc0_inner-table.jpg", 260},
	{"sheets/docscan_doc-1.jpg", 180},
	{"sheets/docscan_doc-3.jpg", 300},
	{"sheets/jscanify_test10.jpg", 260},
	{"sheets/jscanify_test2.png", 260},
	{"handwriting/azure_handwritten_text.jpg", 250},
	{"handwriting/gcv_handwritten.jpg", 160},
	{"handwriting/noteshrink_graph-paper-ink-only.jpg", 150},
	{"handwriting/ossdocscanner_whiteboard_test11.jpg", 250},
	{"handwriting/simplehtr_line.png", 130},
	{"handwriting/simplehtr_word.png", 35},
	{"torn/antishredder_input_img_1.jpg", 350},
}

// gtWords are the distinct words (two letters or more) of a .gt.txt file.
func gtWords(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.Fields(text) {
		if judge.Letters(w) < 2 || seen[foldLetters(w)] {
			continue
		}
		seen[foldLetters(w)] = true
		out = append(out, w)
	}
	return out
}

// TestRealPhotos runs Locate (the known words declared as skills) and Discover on every real
// photo: none may fail or crash. It reports, over the photos with known text, the fraction
// of words located by Locate, found by Discover, and found by plain tesseract on the same
// whole photo (a word counts when a 75% match of it appears in the output).
func TestRealPhotos(t *testing.T) {
	dir := realdataDir(t)
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, cliErr := exec.LookPath("tesseract")
	var words, located, discovered, cli int
	for _, ri := range realImages {
		if testing.Short() && !strings.HasPrefix(ri.path, "handwriting/simplehtr") && !strings.HasPrefix(ri.path, "handwriting/noteshrink") {
			continue
		}
		// The printed pages (no handwriting, no known text, dense print: slow to discover)
		// run with OCR_REALDATA_ALL=1 only.
		if strings.Contains(ri.path, "/cc0_") && os.Getenv("OCR_REALDATA_ALL") == "" {
			continue
		}
		t.Run(filepath.Base(ri.path), func(t *testing.T) {
			path := filepath.Join(dir, ri.path)
			img := gocv.IMRead(path, gocv.IMReadColor)
			defer img.Close()
			if img.Empty() {
				t.Fatalf("cannot read %s", path)
			}
			ppm := float64(img.Cols()) / ri.widthMM
			empty := gocv.NewMat()
			defer empty.Close()
			found, err := l.Discover(img, empty, ppm)
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			var texts []string
			for _, w := range found {
				texts = append(texts, w.Text)
			}
			gt, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + ".gt.txt")
			if err != nil {
				t.Logf("no known text; discovered %d words", len(found))
				return
			}
			want := gtWords(string(gt))
			lays, err := l.Locate(img, empty, ppm, want)
			if err != nil {
				t.Fatalf("Locate: %v", err)
			}
			var cliOut string
			if cliErr == nil && !testing.Short() {
				cliOut = runTesseractCLI(t, path)
			}
			var loc, disc, c int
			for k, w := range want {
				if lays[k].Located > 0 {
					loc++
				}
				if cliFinds(strings.Join(texts, "\n"), w) {
					disc++
				}
				if cliFinds(cliOut, w) {
					c++
				}
			}
			words += len(want)
			located += loc
			discovered += disc
			cli += c
			t.Logf("%d known words: located %d, discovered %d, plain tesseract %d; discovered %q", len(want), loc, disc, c, texts)
		})
	}
	pct := func(a int) float64 { return 100 * float64(a) / math.Max(1, float64(words)) }
	t.Logf("real photos, %d known words: Locate %d (%.0f%%), Discover %d (%.0f%%), plain tesseract %d (%.0f%%)",
		words, located, pct(located), discovered, pct(discovered), cli, pct(cli))
}

// TestHandwrittenSheet locates the four words of breta_page09.jpg ("Text / written / by /
// hand", cursive) after warping the sheet to A4 at 4 px/mm by its corners, measured by hand
// on the photo. Expected centres were measured by eye on the same photo (±15 mm).
func TestHandwrittenSheet(t *testing.T) {
	dir := realdataDir(t)
	img := gocv.IMRead(filepath.Join(dir, "sheets/breta_page09.jpg"), gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Fatal("cannot read breta_page09.jpg")
	}
	src := gocv.NewPointVectorFromPoints([]image.Point{{252, 228}, {2320, 220}, {2352, 3200}, {232, 3212}})
	defer src.Close()
	dst := gocv.NewPointVectorFromPoints([]image.Point{{0, 0}, {840, 0}, {840, 1188}, {0, 1188}})
	defer dst.Close()
	h := gocv.GetPerspectiveTransform(src, dst)
	defer h.Close()
	sheet := gocv.NewMat()
	defer sheet.Close()
	gocv.WarpPerspective(img, &sheet, h, image.Pt(840, 1188))
	if d := os.Getenv("OCR_DEBUG"); d != "" {
		gocv.IMWrite(filepath.Join(d, "breta_page09_a4.png"), sheet)
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	skills := []string{"Text", "written", "by", "hand"}
	centres := []judge.Point{{X: 60, Y: 33}, {X: 68, Y: 89}, {X: 35, Y: 131}, {X: 72, Y: 185}}
	lays, err := l.Locate(sheet, empty, 4, skills)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for k, lay := range lays {
		t.Logf("%q located %d conf %.2f notes %q", lay.Name, lay.Located, lay.Confidence, lay.Notes)
		if lay.Located == 0 {
			continue
		}
		var all []judge.Point
		for _, le := range lay.Letters {
			all = append(all, le.Outline...)
		}
		c := centroid(all)
		if d := math.Hypot(c.X-centres[k].X, c.Y-centres[k].Y); d > 15 {
			t.Errorf("%q located at (%.0f, %.0f) mm, %.0f mm from where it is written", lay.Name, c.X, c.Y, d)
			continue
		}
		found++
	}
	t.Logf("breta_page09: %d of 4 handwritten words located at their place", found)
	if found < 3 {
		t.Errorf("only %d of 4 words located", found)
	}
}
