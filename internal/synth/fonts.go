package synth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// FontFiles are the handwriting fonts RenderSheet picks from, as installed by Debian's
// fonts-dkg-handwriting, fonts-breip, fonts-femkeklaver, fonts-humor-sans, fonts-comic-neue,
// fonts-dancingscript and fonts-kaushanscript (the Makefile's deps target). Missing files are
// skipped; RenderSheet fails only when none is found.
var FontFiles = []string{
	"/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
	"/usr/share/fonts/truetype/fifthhorseman/dkgIt.ttf",
	"/usr/share/fonts/truetype/fifthhorseman/dkgBd.ttf",
	"/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",
	"/usr/share/fonts/truetype/breip/Breip.ttf",
	"/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf",
	"/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",
	"/usr/share/fonts/opentype/comic-neue/ComicNeue-Italic.otf",
	"/usr/share/fonts/opentype/comic-neue/ComicNeue-Light.otf",
	"/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf",
	"/usr/share/fonts/opentype/dancingscript/DancingScript-Bold.otf",
	"/usr/share/fonts/opentype/kaushanscript/KaushanScript-Regular.otf",
}

// ErrNoFonts is returned when none of FontFiles can be read.
var ErrNoFonts = errors.New("no handwriting font found (install the Debian font packages: make deps)")

// loadedFont is one parsed font with the measures the renderer needs, at unitPPEM.
type loadedFont struct {
	name      string
	f         *sfnt.Font
	capHeight float64 // in units of unitPPEM pixels
}

const unitPPEM = 1000

var fontCache struct {
	sync.Mutex
	m map[string]*loadedFont
}

// loadFont parses (once per process) and returns the font at path.
func loadFont(path string) (*loadedFont, error) {
	fontCache.Lock()
	defer fontCache.Unlock()
	if lf, ok := fontCache.m[path]; ok {
		return lf, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read font: %w", err)
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse font %s: %w", path, err)
	}
	var buf sfnt.Buffer
	ppem := fixed.I(unitPPEM)
	capH := 0.0
	if m, err := f.Metrics(&buf, ppem, font.HintingNone); err == nil && m.CapHeight > 0 {
		capH = float64(m.CapHeight) / 64
	}
	// Measure the ink of "H" when the OS/2 table has no cap height (or a doubtful one).
	if gi, err := f.GlyphIndex(&buf, 'H'); err == nil && gi != 0 {
		if b, _, err := f.GlyphBounds(&buf, gi, ppem, font.HintingNone); err == nil {
			h := -float64(b.Min.Y) / 64
			if capH <= 0 || capH > 1.5*h || capH < 0.6*h {
				capH = h
			}
		}
	}
	if capH <= 0 {
		capH = 0.7 * unitPPEM
	}
	lf := &loadedFont{name: filepath.Base(path), f: f, capHeight: capH}
	if fontCache.m == nil {
		fontCache.m = map[string]*loadedFont{}
	}
	fontCache.m[path] = lf
	return lf, nil
}

// availableFonts loads every readable font of paths.
func availableFonts(paths []string) ([]*loadedFont, error) {
	var out []*loadedFont
	for _, p := range paths {
		lf, err := loadFont(p)
		if err != nil {
			continue
		}
		out = append(out, lf)
	}
	if len(out) == 0 {
		return nil, ErrNoFonts
	}
	return out, nil
}

// hasRunes reports whether the font has a glyph for every rune of s (spaces aside).
func (lf *loadedFont) hasRunes(s string) bool {
	var buf sfnt.Buffer
	for _, r := range s {
		if r == ' ' {
			continue
		}
		gi, err := lf.f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 {
			return false
		}
	}
	return true
}
