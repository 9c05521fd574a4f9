package referee

import (
	"errors"
	"fmt"
	"image"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/ocr"
	"tearcam/template"
	"tearcam/vision"
)

// JPEGQuality is the quality of the annotated images and thumbnails tearcam writes.
const JPEGQuality = 85

// CV is the real Eye (vision/, gocv) and Reader (ocr/, gosseract). Close it.
type CV struct {
	loc *ocr.Locator
}

var (
	_ Eye    = (*CV)(nil)
	_ Reader = (*CV)(nil)
	_ Filler = (*CV)(nil)
)

// NewCV starts the OCR with workers Tesseract clients (one per core is right; each runs
// single-threaded, OMP_THREAD_LIMIT=1).
func NewCV(workers int) (*CV, error) {
	loc, err := ocr.NewLocator(workers)
	if err != nil {
		return nil, fmt.Errorf("start ocr: %w", err)
	}
	return &CV{loc: loc}, nil
}

// Close stops the OCR.
func (c *CV) Close() error {
	if c == nil || c.loc == nil {
		return nil
	}
	err := c.loc.Close()
	c.loc = nil
	return err
}

// cvSheet is a vision.SheetImage as a Sheet.
type cvSheet struct{ s *vision.SheetImage }

func (s cvSheet) Close() error { return s.s.Close() }

// cvMeasured is a vision.TearResult as a Measured.
type cvMeasured struct{ r *vision.TearResult }

func (m cvMeasured) Measurement() judge.Measurement { return m.r.Measurement }
func (m cvMeasured) Close() error                   { return m.r.Close() }

func sheetOf(s Sheet) (*vision.SheetImage, error) {
	cs, ok := s.(cvSheet)
	if !ok || cs.s == nil {
		return nil, fmt.Errorf("%w: not a vision sheet", vision.ErrBadInput)
	}
	return cs.s, nil
}

// Fresh implements Eye with vision.DecodeImage and vision.Fresh.
func (c *CV) Fresh(photo []byte, paper template.Paper) (Sheet, error) {
	m, err := vision.DecodeImage(photo)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	s, err := vision.Fresh(m, paper)
	if err != nil {
		return nil, err
	}
	return cvSheet{s}, nil
}

// Register implements Eye with vision.DecodeImage and vision.Register.
func (c *CV) Register(fresh Sheet, photo []byte) (Sheet, error) {
	f, err := sheetOf(fresh)
	if err != nil {
		return nil, err
	}
	m, err := vision.DecodeImage(photo)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	s, err := vision.Register(f, m)
	if err != nil {
		return nil, err
	}
	return cvSheet{s}, nil
}

// Measure implements Eye with vision.Measure.
func (c *CV) Measure(before, after Sheet, layouts []judge.SkillLayout, t template.Template) (Measured, error) {
	b, err := sheetOf(before)
	if err != nil {
		return nil, err
	}
	a, err := sheetOf(after)
	if err != nil {
		return nil, err
	}
	r, err := vision.Measure(b, a, layouts, t)
	if err != nil {
		return nil, err
	}
	// Paper only shrinks: paper on the after-photo that the before-photo lacked means the
	// photos are out of order or of another sheet, and the removed paper measured is not
	// what this tear removed.
	g, err := vision.RegrownDetail(b, a)
	if err != nil {
		r.Close()
		return nil, err
	}
	if g.AreaMM2 > 0 && r.Measurement.Refused == "" {
		at := fmt.Sprintf("%.0f mm² at (%.0f, %.0f) mm", g.AreaMM2, g.CentreMM[0], g.CentreMM[1])
		switch {
		case g.BeforeMissedPaper:
			// The sheet before this tear is the one whose mask was wrong: this photo's
			// measurement stands, in doubt, and the next tear is measured against it.
			r.Measurement.Uncertain = append(r.Measurement.Uncertain, judge.Doubt{About: judge.AboutRemoved,
				Text: fmt.Sprintf("the photo shows paper that the sheet before this tear lacked (%s), on what that tear removed and in the colour of paper in that tear's photo too: that photo's paper mask missed paper there, and the tear before this one was measured with paper it did not remove; what this tear removed there cannot be told", at)})
		case g.TableTakenForPaper:
			r.Measurement.Refused = fmt.Sprintf("the photo's paper mask shows paper where the sheet before this tear had none (%s), but the photo looks like the table there: its paper mask cannot be trusted", at)
		default:
			r.Measurement.Refused = fmt.Sprintf("the photo shows paper that the sheet before this tear lacked (%s), and paper only shrinks: the photos may be out of order or of another sheet, or one of the two paper masks is wrong there", at)
		}
	}
	return cvMeasured{r}, nil
}

// Partial implements Filler with vision.SheetImage.Partial.
func (c *CV) Partial(s Sheet) bool {
	v, err := sheetOf(s)
	return err == nil && v.Partial()
}

// FillFrom implements Filler with vision.SheetImage.FillFrom.
func (c *CV) FillFrom(s, later Sheet) float64 {
	v, err := sheetOf(s)
	if err != nil {
		return 0
	}
	l, err := sheetOf(later)
	if err != nil {
		return 0
	}
	return v.FillFrom(l)
}

// Annotate implements Eye with vision.Annotate, encoded as JPEG.
func (c *CV) Annotate(after Sheet, m Measured, layouts []judge.SkillLayout, verdict string, lines []string) ([]byte, error) {
	a, err := sheetOf(after)
	if err != nil {
		return nil, err
	}
	cm, ok := m.(cvMeasured)
	if !ok {
		return nil, errors.New("annotate: not a vision measurement")
	}
	img, err := vision.Annotate(a, cm.r, layouts, verdict, lines)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	return encodeJPEG(img)
}

// AnnotatePhoto implements PhotoAnnotator with vision.AnnotatePhoto, at the width of the
// annotated images of paper (its width at vision.DefaultPxPerMM), encoded as JPEG.
func (c *CV) AnnotatePhoto(photo []byte, paper template.Paper, verdict string, lines []string) ([]byte, error) {
	m, err := vision.DecodeImage(photo)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	img, err := vision.AnnotatePhoto(m, int(math.Round(paper.WidthMM*vision.DefaultPxPerMM)), verdict, lines)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	return encodeJPEG(img)
}

var _ PhotoAnnotator = (*CV)(nil)

// Reband implements Rebander with vision.Reband on an image Annotate made (the sheet at
// vision.DefaultPxPerMM under its band), encoded as JPEG.
func (c *CV) Reband(annotated []byte, oldVerdict string, oldLines []string, verdict string, lines []string) ([]byte, error) {
	m, err := vision.DecodeImage(annotated)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	img, err := vision.Reband(m, oldVerdict, oldLines, verdict, lines, vision.DefaultPxPerMM)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	return encodeJPEG(img)
}

var _ Rebander = (*CV)(nil)

// Thumbnail implements Eye: decode, shrink with area interpolation, encode as JPEG.
func (c *CV) Thumbnail(data []byte, maxSide int) ([]byte, error) {
	m, err := vision.DecodeImage(data)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	w, h := m.Cols(), m.Rows()
	if s := max(w, h); s > maxSide && maxSide > 0 {
		small := gocv.NewMat()
		defer small.Close()
		nw, nh := max(1, w*maxSide/s), max(1, h*maxSide/s)
		gocv.Resize(m, &small, image.Pt(nw, nh), 0, 0, gocv.InterpolationArea)
		return encodeJPEG(small)
	}
	return encodeJPEG(m)
}

func encodeJPEG(m gocv.Mat) ([]byte, error) {
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, m, []int{gocv.IMWriteJpegQuality, JPEGQuality})
	if err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	defer buf.Close()
	return append([]byte(nil), buf.GetBytes()...), nil
}

// Locate implements Reader with ocr.Locator.Locate on the rectified fresh sheet.
func (c *CV) Locate(s Sheet, skills []string) ([]judge.SkillLayout, error) {
	f, err := sheetOf(s)
	if err != nil {
		return nil, err
	}
	return c.loc.Locate(f.Image, f.Mask, f.PxPerMM, skills)
}

// Discover implements Reader with ocr.Locator.Discover.
func (c *CV) Discover(s Sheet) ([]Word, error) {
	f, err := sheetOf(s)
	if err != nil {
		return nil, err
	}
	ws, err := c.loc.Discover(f.Image, f.Mask, f.PxPerMM)
	if err != nil {
		return nil, err
	}
	out := make([]Word, 0, len(ws))
	for _, w := range ws {
		if t := strings.TrimSpace(w.Text); t != "" {
			out = append(out, Word{Text: t, Confidence: round(w.Confidence, 100)})
		}
	}
	return out, nil
}

// Reread implements Reader with ocr.Locator.Reread on the registered sheet after a tear.
func (c *CV) Reread(s Sheet, layouts []judge.SkillLayout, states []judge.SkillLetters) ([]string, error) {
	f, err := sheetOf(s)
	if err != nil {
		return nil, err
	}
	return c.loc.Reread(f.Image, f.Mask, f.PxPerMM, layouts, states)
}
