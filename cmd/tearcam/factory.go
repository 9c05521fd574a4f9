package main

import (
	"runtime"

	"github.com/otiai10/gosseract/v2"
	"gocv.io/x/gocv"

	"tearcam/referee"
	"tearcam/store"
)

// pipeline is the vision and OCR that audit and judge rule with: referee.CV on gocv and
// gosseract, or a fake in tests.
type pipeline interface {
	referee.Eye
	referee.Reader
	Close() error
}

var _ pipeline = (*referee.CV)(nil)

// newCVPipeline starts the real pipeline: one Tesseract client per core (each single-threaded).
func newCVPipeline() (pipeline, error) {
	return referee.NewCV(min(runtime.NumCPU(), 4))
}

// versions are the versions stamped into stored rulings and their inputs' keys.
func versions() store.Versions {
	return store.Versions{Tearcam: Version, OpenCV: gocv.OpenCVVersion(), Tesseract: gosseract.Version()}
}
