package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
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

// versions are the versions stamped into stored rulings and their inputs' keys. tearcam's
// carries a hash of the running executable, so that a rebuilt binary (new vision or OCR code
// under the same version number) never re-uses rulings an older build made.
func versions() store.Versions {
	return store.Versions{Tearcam: Version + buildID(), OpenCV: gocv.OpenCVVersion(), Tesseract: gosseract.Version()}
}

// buildID is "+" and the first 12 hex digits of the executable's SHA-256, or "" when it
// cannot be read.
func buildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "+" + hex.EncodeToString(h.Sum(nil))[:12]
}
