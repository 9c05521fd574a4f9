package synth

import (
	"image"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// The dump tests write pictures to $SYNTH_DUMP for a look with an image viewer; they skip
// without it.

func dumpDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SYNTH_DUMP")
	if dir == "" {
		t.Skip("SYNTH_DUMP not set")
	}
	return dir
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func TestDumpSheet(t *testing.T) {
	dir := dumpDir(t)
	sh, err := RenderSheet(rand.New(rand.NewSource(3)), SheetSpec{})
	if err != nil {
		t.Fatal(err)
	}
	writePNG(t, filepath.Join(dir, "sheet.png"), sh.Image)
	for _, sk := range sh.Skills {
		t.Logf("%s font=%s cap=%.1f angle=%.0f ink=%s letters=%d", sk.Name, sk.Font, sk.CapHeightMM, sk.AngleDeg, sk.Ink, len(sk.Letters))
	}
}

func TestDumpTable(t *testing.T) {
	dir := dumpDir(t)
	for _, k := range Backgrounds {
		img, _ := NewTable(rand.New(rand.NewSource(5)), k, image.Pt(800, 600))
		writePNG(t, filepath.Join(dir, "table_"+k+".png"), img)
	}
}
