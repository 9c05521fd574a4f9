package vision

import (
	"errors"
	"fmt"
)

// Errors about the photo's content. Test with errors.Is; each reads as one line.
var (
	// ErrNotImage: the file could not be decoded as an image.
	ErrNotImage = errors.New("not a readable image")
	// ErrTruncated: the image file ends before its end-of-image marker.
	ErrTruncated = errors.New("image file is truncated")
	// ErrCorrupt: the image's compressed data is damaged (a JPEG that decodes only in part).
	ErrCorrupt = errors.New("corrupt image data")
	// ErrBlankFrame: the frame is (nearly) uniform: black, white, or lens cap on.
	ErrBlankFrame = errors.New("blank frame: nothing to see")
	// ErrNoSheet: no sheet of paper was found.
	ErrNoSheet = errors.New("no sheet of paper found")
	// ErrSeveralSheets: more than one sheet-like object was found.
	ErrSeveralSheets = errors.New("several sheets of paper in the photo")
	// ErrSheetCutOff: the sheet touches the edge of the frame; part of it is not visible. Fresh
	// refuses such a photo always; Register only when less than half the sheet frame is seen or
	// the paper mask of the part seen cannot be trusted (otherwise the rest is unknown: cutoff.go).
	ErrSheetCutOff = errors.New("sheet cut off by the edge of the photo")
	// ErrPaperMask: the registered photo's paper mask contradicts the fresh sheet: some of the
	// sheet's writing or ruling, on what the mask calls paper, does not show in the photo (the
	// table taken for paper). The photo is not measured.
	ErrPaperMask = errors.New("the paper mask cannot be trusted")
	// ErrRegistration: the photo could not be aligned reliably with the fresh sheet.
	ErrRegistration = errors.New("cannot align photo with the fresh sheet")
	// ErrBadInput: an argument is unusable (empty Mat, wrong type, nil sheet).
	ErrBadInput = errors.New("bad input")
)

// RegistrationError says why Register refused an alignment. It wraps ErrRegistration.
type RegistrationError struct {
	Reason     string  // short, lowercase, e.g. "only 7 matching features"
	ResidualMM float64 // the residual when one was measured, else 0
}

func (e *RegistrationError) Error() string {
	if e.ResidualMM > 0 {
		return fmt.Sprintf("%v: %s (residual %.2f mm)", ErrRegistration, e.Reason, e.ResidualMM)
	}
	return fmt.Sprintf("%v: %s", ErrRegistration, e.Reason)
}

// Unwrap makes errors.Is(err, ErrRegistration) true.
func (e *RegistrationError) Unwrap() error { return ErrRegistration }

// PaperMaskError says why Register refused a registered photo's paper mask (the alignment
// itself was accepted). It wraps ErrPaperMask.
type PaperMaskError struct {
	InkMM2     float64 // the fresh sheet's ink (mm²) on what the mask calls paper, not shown
	AtMM       [2]float64
	ResidualMM float64 // the accepted alignment's residual
	Reason     string  // when set, the contradiction is another one, said here
}

func (e *PaperMaskError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%v: %s", ErrPaperMask, e.Reason)
	}
	return fmt.Sprintf("%v: %.0f mm² of the sheet's writing or ruling at (%.0f, %.0f) mm, on what it calls paper, does not show in the photo (the table taken for paper?)", ErrPaperMask, e.InkMM2, e.AtMM[0], e.AtMM[1])
}

// Unwrap makes errors.Is(err, ErrPaperMask) true.
func (e *PaperMaskError) Unwrap() error { return ErrPaperMask }
