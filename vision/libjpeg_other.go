//go:build !linux

package vision

import "gocv.io/x/gocv"

// imdecodeQuiet is gocv.IMDecode (libjpeg's warnings are kept off stderr on Linux only:
// libjpeg_linux.go).
func imdecodeQuiet(data []byte) (gocv.Mat, error) { return gocv.IMDecode(data, gocv.IMReadColor) }
