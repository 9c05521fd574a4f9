//go:build !matprofile

package main

// openMats is 0 without -tags matprofile: the leak check is off.
func openMats() int { return 0 }
