//go:build matprofile

package ocr

import (
	"bytes"

	"gocv.io/x/gocv"
)

func leakedMats() (int, string) {
	var b bytes.Buffer
	n := gocv.MatProfile.Count()
	if n > 0 {
		gocv.MatProfile.WriteTo(&b, 1)
	}
	return n, b.String()
}
