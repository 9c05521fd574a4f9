package synth

import (
	"image"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestDumpSheet writes a rendered sheet to $SYNTH_DUMP for a look; skipped without it.
func TestDumpSheet(t *testing.T) {
	dir := os.Getenv("SYNTH_DUMP")
	if dir == "" {
		t.Skip("SYNTH_DUMP not set")
	}
	sh, err := RenderSheet(rand.New(rand.NewSource(3)), SheetSpec{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "sheet.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, sh.Image); err != nil {
		t.Fatal(err)
	}
	for _, sk := range sh.Skills {
		t.Logf("%s font=%s cap=%.1f angle=%.0f ink=%s letters=%d", sk.Name, sk.Font, sk.CapHeightMM, sk.AngleDeg, sk.Ink, len(sk.Letters))
	}
}

func TestDumpTable(t *testing.T) {
	dir := os.Getenv("SYNTH_DUMP")
	if dir == "" {
		t.Skip("SYNTH_DUMP not set")
	}
	for _, k := range Backgrounds {
		img, _ := NewTable(rand.New(rand.NewSource(5)), k, image.Pt(800, 600))
		f, _ := os.Create(filepath.Join(dir, "table_"+k+".png"))
		png.Encode(f, img)
		f.Close()
		t.Logf("%s %v", k, img.Pix[4*(800*590+10):4*(800*590+10)+4])
	}
}
