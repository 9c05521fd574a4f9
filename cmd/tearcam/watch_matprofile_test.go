//go:build matprofile

package main

import "gocv.io/x/gocv"

// openMats is the number of gocv Mats not yet closed (-tags matprofile).
func openMats() int { return gocv.MatProfile.Count() }
