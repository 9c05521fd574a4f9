//go:build !matprofile

package referee_test

func leakedMats() (int, string) { return 0, "" }
