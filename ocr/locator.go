package ocr

import (
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/otiai10/gosseract/v2"
)

// ErrNoLanguageData is returned by NewLocator when Tesseract's English model is missing.
var ErrNoLanguageData = errors.New("tesseract english language data (eng.traineddata) not found: install the Debian package tesseract-ocr-eng or set TESSDATA_PREFIX")

// recycleAfter bounds the memory gosseract v2.4.1 leaks per GetBoundingBoxes call (it never
// frees the result iterator): a client is replaced after this many recognitions.
const recycleAfter = 300

// Locator finds declared skills on a rectified sheet. It owns a small pool of gosseract
// clients (one per goroutine, reused across words; never shared concurrently). Close it.
// A Locator is safe for concurrent use.
type Locator struct {
	workers int
	pool    chan *tessClient
	mu      sync.Mutex
	all     []*tessClient
	closed  bool
	reads   atomic.Int64 // Tesseract recognitions made, for tests and benchmarks
}

type tessClient struct {
	c    *gosseract.Client
	uses int
}

// NewLocator starts a Locator with workers Tesseract clients (at least 1). It fails with
// ErrNoLanguageData when the eng language data is missing.
func NewLocator(workers int) (*Locator, error) {
	workers = max(1, workers)
	if err := checkLanguageData(); err != nil {
		return nil, err
	}
	l := &Locator{workers: workers, pool: make(chan *tessClient, workers)}
	for i := 0; i < workers; i++ {
		tc, err := newTessClient()
		if err != nil {
			l.Close()
			return nil, err
		}
		l.all = append(l.all, tc)
		l.pool <- tc
	}
	return l, nil
}

func checkLanguageData() error {
	// TESSDATA_PREFIX, when set, is where Tesseract looks: the data must be there.
	if p := os.Getenv("TESSDATA_PREFIX"); p != "" {
		for _, d := range []string{p, filepath.Join(p, "tessdata")} {
			if _, err := os.Stat(filepath.Join(d, "eng.traineddata")); err == nil {
				return nil
			}
		}
		return fmt.Errorf("%w (TESSDATA_PREFIX=%s)", ErrNoLanguageData, p)
	}
	langs, _ := gosseract.GetAvailableLanguages()
	if slices.Contains(langs, "eng") {
		return nil
	}
	return ErrNoLanguageData
}

// newTessClient makes a client and initialises it on a blank image so that a broken
// installation fails here, not in the middle of a sheet.
func newTessClient() (*tessClient, error) {
	c := gosseract.NewClient()
	c.Trim = true
	_ = c.SetVariable("debug_file", os.DevNull)
	_ = c.SetVariable("user_defined_dpi", "300")
	_ = c.SetVariable("tessedit_pageseg_mode", "7")
	blank := &crop{w: 32, h: 32, pix: make([]uint8, 32*32)}
	for i := range blank.pix {
		blank.pix[i] = 255
	}
	if err := c.SetImageFromBytes(blank.pgm()); err != nil {
		c.Close()
		return nil, fmt.Errorf("init tesseract: %w", err)
	}
	if _, err := c.Text(); err != nil {
		c.Close()
		if strings.Contains(err.Error(), "initialize") {
			return nil, fmt.Errorf("%w (%v)", ErrNoLanguageData, err)
		}
		return nil, fmt.Errorf("init tesseract: %w", err)
	}
	return &tessClient{c: c}, nil
}

// Close frees the Tesseract clients. It is safe to call twice.
func (l *Locator) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var first error
	for _, tc := range l.all {
		if err := tc.c.Close(); err != nil && first == nil {
			first = err
		}
	}
	l.all = nil
	return first
}

// symbol is one character Tesseract read, with its box in crop pixels.
type symbol struct {
	r    rune
	box  image.Rectangle
	conf float64 // 0..100
}

// reading is what Tesseract read from one crop.
type reading struct {
	syms []symbol
	text string // the symbols' letters and digits, as read
	conf float64
}

// folded is the reading's letters, lower-cased (the form matched against skills).
func (r *reading) folded() string { return foldLetters(r.text) }

// read runs Tesseract on a crop as one line of text, restricted to whitelist when not empty.
func (l *Locator) read(cr *crop, whitelist, psm string) (*reading, error) {
	tc, ok := <-l.pool
	if !ok || tc == nil {
		return nil, errors.New("locator closed")
	}
	defer func() { l.pool <- tc }()
	if tc.uses >= recycleAfter {
		nc, err := newTessClient()
		if err == nil {
			tc.c.Close()
			*tc = *nc // same *tessClient in l.all and the pool, fresh gosseract client
		}
	}
	tc.uses++
	l.reads.Add(1)
	c := tc.c
	_ = c.SetVariable("tessedit_char_whitelist", whitelist)
	_ = c.SetVariable("tessedit_pageseg_mode", psm)
	if err := c.SetImageFromBytes(cr.pgm()); err != nil {
		return nil, fmt.Errorf("tesseract image: %w", err)
	}
	boxes, err := c.GetBoundingBoxes(gosseract.RIL_SYMBOL)
	if err != nil {
		return nil, fmt.Errorf("tesseract read: %w", err)
	}
	rd := &reading{}
	var b strings.Builder
	sum := 0.0
	for _, bx := range boxes {
		rs := []rune(bx.Word)
		if len(rs) == 0 {
			continue
		}
		for _, r := range rs {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				continue
			}
			rd.syms = append(rd.syms, symbol{r: r, box: bx.Box, conf: bx.Confidence})
			b.WriteRune(r)
			sum += bx.Confidence
		}
	}
	rd.text = b.String()
	if len(rd.syms) > 0 {
		rd.conf = sum / float64(len(rd.syms))
	}
	return rd, nil
}

// whitelistFor is every letter of the skills, in both cases.
func whitelistFor(skills []string) string {
	set := map[rune]bool{}
	for _, s := range skills {
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				set[unicode.ToLower(r)] = true
				set[unicode.ToUpper(r)] = true
			}
		}
	}
	var rs []rune
	for r := range set {
		if r < 128 {
			rs = append(rs, r)
		}
	}
	slices.Sort(rs)
	return string(rs)
}
