package ocr

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs Tesseract single-threaded (PITFALLS.md: OpenMP oversubscribes two cores) and
// fails the run when a test leaked a gocv Mat (built with -tags matprofile).
func TestMain(m *testing.M) {
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		fmt.Fprintln(os.Stderr, "ocr tests: set OMP_THREAD_LIMIT=1 (Tesseract oversubscribes the cores otherwise)")
	}
	code := m.Run()
	if n, trace := leakedMats(); n > 0 {
		fmt.Fprintf(os.Stderr, "ocr tests: %d gocv Mats not closed\n%s", n, trace)
		code = 1
	}
	os.Exit(code)
}
