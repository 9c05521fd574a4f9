package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
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
// carries the source revision (when the build recorded one) and a hash of the running
// executable, so that a rebuilt binary (new vision or OCR code under the same version number)
// never re-uses rulings an older build made: "0.1.0+9ee76a5c1a2b+exe.055b6f38b3f9".
func versions() store.Versions {
	v := Version
	if r := revision(); r != "" {
		v += "+" + r
	}
	return store.Versions{Tearcam: v + buildID(), OpenCV: gocv.OpenCVVersion(), Tesseract: gosseract.Version() + languageModel()}
}

// debianTessdata is where Debian's tesseract-ocr-eng installs the English model, Tesseract's
// compiled-in default when TESSDATA_PREFIX is not set.
const debianTessdata = "/usr/share/tesseract-ocr/5/tessdata"

// languageModel is " (eng.traineddata " and the first 12 hex digits of the English model's
// SHA-256 ")", for the model Tesseract loads (under TESSDATA_PREFIX, else Debian's), or ""
// when it cannot be read: the same Tesseract reads differently with another model.
func languageModel() string {
	dirs := []string{debianTessdata}
	if p := os.Getenv("TESSDATA_PREFIX"); p != "" {
		dirs = []string{p, filepath.Join(p, "tessdata")}
	}
	for _, d := range dirs {
		if h := fileSHA(filepath.Join(d, "eng.traineddata")); h != "" {
			return " (eng.traineddata " + h + ")"
		}
	}
	return ""
}

// buildID is "+exe." and the first 12 hex digits of the executable's SHA-256, or "" when it
// cannot be read.
func buildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if h := fileSHA(exe); h != "" {
		return "+exe." + h
	}
	return ""
}

// fileSHA is the first 12 hex digits of the SHA-256 of the file at path, or "" when it cannot
// be read.
func fileSHA(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
