package ocr

import (
	"image/png"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// cliFinds reports whether plain Tesseract's output holds the skill: some run of the
// output's letters (all lines joined, lower-cased) at least 75% like the skill's letters
// (similarity, the measure Locate matches with). Generous to the command line on purpose.
func cliFinds(out, skill string) bool {
	text := []rune(foldLetters(out))
	want := foldLetters(skill)
	n := len([]rune(want))
	for l := max(1, n-2); l <= n+2; l++ {
		for i := 0; i+l <= len(text); i++ {
			if similarity(string(text[i:i+l]), want) >= 0.75 {
				return true
			}
		}
	}
	return false
}

// runTesseractCLI runs the tesseract command line on an image file, as a user would
// (default page segmentation, one thread).
func runTesseractCLI(t testing.TB, path string) string {
	t.Helper()
	cmd := exec.Command("tesseract", path, "-", "--dpi", "300")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tesseract %s: %v", path, err)
	}
	return string(out)
}

// TestCompareTesseractCLI counts the declared skills found on the same rendered sheets by
// plain `tesseract` (whole sheet image, default settings, fuzzy 75% match anywhere in its
// output) and by Locate (skill located at its true place). OCR_COMPARE_N sheets (default 8);
// skipped with -short (plain Tesseract takes seconds per page).
func TestCompareTesseractCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: plain tesseract on whole pages")
	}
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract command not installed (Debian package tesseract-ocr)")
	}
	n := 8
	if v, err := strconv.Atoi(os.Getenv("OCR_COMPARE_N")); err == nil {
		n = v
	}
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	var skills, cli, ours int
	for i := 0; i < n; i++ {
		seed := int64(1000 + i)
		sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{PxPerMM: 4})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "sheet"+strconv.Itoa(i)+".png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, sh.Image); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out := runTesseractCLI(t, path)
		m := sheetMat(t, sh)
		empty := gocv.NewMat()
		lays, err := l.Locate(m, empty, sh.PxPerMM, sh.SkillNames())
		m.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
		for k, sk := range sh.Skills {
			skills++
			c := cliFinds(out, sk.Name)
			o := scoreSkill(lays[k], sk).located
			if c {
				cli++
			}
			if o {
				ours++
			}
			t.Logf("sheet %d %-16q angle %6.1f font %-26s tesseract CLI %-5v tearcam %v", i, sk.Name, sk.AngleDeg, sk.Font, c, o)
		}
	}
	t.Logf("declared skills found on %d rendered sheets (%d skills): plain tesseract CLI %d (%.0f%%), tearcam %d (%.0f%%)",
		n, skills, cli, 100*float64(cli)/float64(skills), ours, 100*float64(ours)/float64(skills))
	if ours < cli {
		t.Errorf("tearcam found fewer skills (%d) than plain tesseract (%d)", ours, cli)
	}
}
