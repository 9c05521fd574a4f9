//go:build matprofile

package referee_test

import (
	"bytes"

	"gocv.io/x/gocv"
)

// leakedMats is the number of gocv Mats alive (built with -tags matprofile) and where they
// were made.
func leakedMats() (int, string) {
	var b bytes.Buffer
	n := gocv.MatProfile.Count()
	if n > 0 {
		gocv.MatProfile.WriteTo(&b, 1)
	}
	return n, b.String()
}
