//go:build matprofile

package synth

import (
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestMain fails the run when a test leaks a gocv Mat (make test builds with -tags matprofile).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := gocv.MatProfile.Count(); n != 0 {
		fmt.Fprintf(os.Stderr, "synth: %d gocv Mats leaked\n", n)
		code = 1
	}
	os.Exit(code)
}
