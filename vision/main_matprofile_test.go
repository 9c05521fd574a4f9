//go:build matprofile

package vision

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestMain fails the run when a test leaves a gocv Mat open (gocv's matprofile build tag).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := gocv.MatProfile.Count(); n != 0 {
		var b bytes.Buffer
		_ = gocv.MatProfile.WriteTo(&b, 1)
		fmt.Fprintf(os.Stderr, "vision: %d gocv Mats left open:\n%s", n, b.String())
		code = 1
	}
	os.Exit(code)
}
