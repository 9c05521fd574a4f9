// Package fake has stand-ins for vision/ and ocr/ that read "photos" written as JSON, so the
// referee's pipeline, the store and the CLI can be tested end to end without OpenCV or
// Tesseract, fast and exactly. They are for tests only.
//
// An untorn sheet's photo is a JSON Sheet; a tear's photo is a JSON Photo holding the
// measurement to return. Anything that is not JSON is "not a readable image".
package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/template"
	"tearcam/vision"
)

// ErrNotImage is returned for photos that are not fake JSON photos: vision's, so that the
// referee tells a bad file from a refused picture as it does with the real Eye.
var ErrNotImage = vision.ErrNotImage

// Sheet is a fake untorn sheet's photo.
type Sheet struct {
	Sheet     bool     `json:"sheet"`               // must be true
	NoSheet   bool     `json:"no_sheet,omitempty"`  // Fresh fails: no sheet found
	Words     []string `json:"words,omitempty"`     // what Discover finds
	Unlocated []string `json:"unlocated,omitempty"` // skills Locate cannot find
	// Weak gives the location confidence of skills located by a weak read (0.9 otherwise).
	Weak map[string]float64 `json:"weak,omitempty"`
}

// Photo is a fake photo of a sheet after a tear.
type Photo struct {
	RegisterError  string  `json:"register_error,omitempty"` // Register fails with this
	FreshError     string  `json:"fresh_error,omitempty"`    // Register to the fresh sheet (only) fails with this
	PaperMask      bool    `json:"paper_mask,omitempty"`     // Register fails with vision.ErrPaperMask
	SleepMS        int     `json:"sleep_ms,omitempty"`       // Measure takes this long
	RemovedAreaMM2 float64 `json:"removed_area_mm2"`
	Pieces         int     `json:"pieces"`
	EdgeToEdge     bool    `json:"edge_to_edge"`
	TemplateFits   bool    `json:"template_fits"`
	PaperFits      bool    `json:"paper_fits"`
	// Letters gives each skill's letter states, one character per letter: S on sheet,
	// R removed, C cut, G gone, U unknown, A ambiguous. A skill left out is all S.
	Letters map[string]string `json:"letters,omitempty"`
	Doubts  []string          `json:"doubts,omitempty"`
	Reread  []string          `json:"reread,omitempty"` // what Reread reports
}

// JSON encodes v for writing as a fake photo.
func JSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type sheet struct {
	fresh  *Sheet
	photo  *Photo
	closed *int
	// hist is what vision's letter history keeps: after Measure, the letters of this
	// after-sheet that are gone ('G') or in doubt ('A'), by skill and letter index.
	hist map[[2]int]rune
}

func (s *sheet) Close() error {
	if s.closed != nil {
		*s.closed++
	}
	return nil
}

type measured struct {
	m judge.Measurement
}

func (m *measured) Measurement() judge.Measurement { return m.m }
func (m *measured) Close() error                   { return nil }

// Eye is a fake referee.Eye. Opened and Closed count Sheets made and closed.
type Eye struct {
	Opened, Closed                          int
	FreshCalls, RegisterCalls, MeasureCalls int // calls, for tests of re-use
}

var _ referee.Eye = (*Eye)(nil)
var _ referee.Reader = Reader{}

// Fresh implements referee.Eye.
func (e *Eye) Fresh(photo []byte, paper template.Paper) (referee.Sheet, error) {
	e.FreshCalls++
	var s Sheet
	if err := json.Unmarshal(photo, &s); err != nil || !s.Sheet {
		return nil, ErrNotImage
	}
	if s.NoSheet {
		return nil, errors.New("no sheet of paper found")
	}
	e.Opened++
	return &sheet{fresh: &s, closed: &e.Closed}, nil
}

// Register implements referee.Eye.
func (e *Eye) Register(fresh referee.Sheet, photo []byte) (referee.Sheet, error) {
	e.RegisterCalls++
	var p Photo
	if err := json.Unmarshal(photo, &p); err != nil {
		return nil, ErrNotImage
	}
	if p.RegisterError != "" {
		return nil, errors.New(p.RegisterError)
	}
	if p.PaperMask {
		return nil, &vision.PaperMaskError{InkMM2: 12, AtMM: [2]float64{50, 60}}
	}
	if p.FreshError != "" && fresh.(*sheet).photo == nil {
		return nil, errors.New(p.FreshError)
	}
	e.Opened++
	return &sheet{fresh: fresh.(*sheet).fresh, photo: &p, closed: &e.Closed}, nil
}

// Measure implements referee.Eye: the measurement written in after's photo.
func (e *Eye) Measure(before, after referee.Sheet, layouts []judge.SkillLayout, t template.Template) (referee.Measured, error) {
	e.MeasureCalls++
	p := after.(*sheet).photo
	if p.SleepMS > 0 {
		time.Sleep(time.Duration(p.SleepMS) * time.Millisecond)
	}
	m := judge.Measurement{RemovedAreaMM2: p.RemovedAreaMM2, Pieces: p.Pieces, EdgeToEdge: p.EdgeToEdge,
		TemplateFits: p.TemplateFits, PaperFitsTemplate: p.PaperFits, Doubts: p.Doubts}
	hist := map[[2]int]rune{}
	for si, l := range layouts {
		sl := judge.SkillLetters{Name: l.Name}
		if l.Located == 0 {
			m.Letters = append(m.Letters, sl)
			continue
		}
		code := p.Letters[l.Name]
		if code == "" {
			code = strings.Repeat("S", judge.Letters(l.Name))
		}
		if len(code) != judge.Letters(l.Name) {
			return nil, fmt.Errorf("fake photo: %d letter states for %s", len(code), l.Name)
		}
		for li, c := range []rune(code) {
			// As vision does: a letter gone before stays gone; one in doubt before is in doubt
			// still unless measured cut, unknown or gone.
			switch before.(*sheet).hist[[2]int{si, li}] {
			case 'G':
				c = 'G'
			case 'A':
				if c == 'S' || c == 'R' {
					c = 'A'
				}
			}
			switch c {
			case 'R', 'C', 'G':
				hist[[2]int{si, li}] = 'G'
			case 'A':
				hist[[2]int{si, li}] = 'A'
			}
			sl.States = append(sl.States, map[rune]judge.LetterState{'S': judge.LetterOnSheet, 'R': judge.LetterRemoved,
				'C': judge.LetterCut, 'G': judge.LetterGone, 'U': judge.LetterUnknown, 'A': judge.LetterAmbiguous}[c])
		}
		m.Letters = append(m.Letters, sl)
	}
	if after != before {
		after.(*sheet).hist = hist
	}
	return &measured{m: m}, nil
}

// Annotate implements referee.Eye: a few bytes naming the verdict.
func (e *Eye) Annotate(after referee.Sheet, m referee.Measured, layouts []judge.SkillLayout, verdict string, lines []string) ([]byte, error) {
	return []byte("annotated " + verdict), nil
}

// AnnotatePhoto implements referee.PhotoAnnotator: a few bytes naming the verdict and the
// first line, for a fake photo (JSON); anything else is not an image.
func (e *Eye) AnnotatePhoto(photo []byte, paper template.Paper, verdict string, lines []string) ([]byte, error) {
	if !json.Valid(photo) {
		return nil, ErrNotImage
	}
	first := ""
	if len(lines) > 0 {
		first = ": " + lines[0]
	}
	return []byte("photo " + verdict + first), nil
}

var _ referee.PhotoAnnotator = (*Eye)(nil)

// Reband implements referee.Rebander on what Annotate returns: "annotated VERDICT" for the new
// verdict; an error when annotated is not what Annotate returned for oldVerdict.
func (e *Eye) Reband(annotated []byte, oldVerdict string, oldLines []string, verdict string, lines []string) ([]byte, error) {
	if string(annotated) != "annotated "+oldVerdict {
		return nil, fmt.Errorf("fake reband: %q was not drawn for %q", annotated, oldVerdict)
	}
	return []byte("annotated " + verdict), nil
}

var _ referee.Rebander = (*Eye)(nil)

// Thumbnail implements referee.Eye: the image itself.
func (e *Eye) Thumbnail(image []byte, maxSide int) ([]byte, error) { return image, nil }

// Reader is a fake referee.Reader.
type Reader struct{}

// Locate implements referee.Reader: every letter of every skill, a 5 mm box each, except
// the skills the sheet lists as unlocated.
func (Reader) Locate(s referee.Sheet, skills []string) ([]judge.SkillLayout, error) {
	fs := s.(*sheet).fresh
	var out []judge.SkillLayout
	for i, name := range skills {
		l := judge.SkillLayout{Name: name, Letters: []judge.Letter{}}
		unlocated := false
		for _, u := range fs.Unlocated {
			unlocated = unlocated || u == name
		}
		if !unlocated {
			for j, r := range judge.LetterRunes(name) {
				x, y := 10+6*float64(j), 20+30*float64(i)
				l.Letters = append(l.Letters, judge.Letter{Char: string(r),
					Outline: []judge.Point{{X: x, Y: y}, {X: x + 5, Y: y}, {X: x + 5, Y: y + 5}, {X: x, Y: y + 5}}})
			}
			l.Located, l.Confidence = len(l.Letters), 0.9
			if c, ok := fs.Weak[name]; ok {
				l.Confidence = c
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// Discover implements referee.Reader.
func (Reader) Discover(s referee.Sheet) ([]referee.Word, error) {
	var out []referee.Word
	for _, w := range s.(*sheet).fresh.Words {
		out = append(out, referee.Word{Text: w, Confidence: 0.5})
	}
	return out, nil
}

// Reread implements referee.Reader: what the photo says.
func (Reader) Reread(s referee.Sheet, layouts []judge.SkillLayout, states []judge.SkillLetters) ([]string, error) {
	return s.(*sheet).photo.Reread, nil
}
