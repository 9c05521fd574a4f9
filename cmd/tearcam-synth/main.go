// Command tearcam-synth generates realistic test photos of torn character sheets with their
// exact ground truth (package internal/synth):
//
//	tearcam-synth --out testdata/images/synth --seed 1 [--cases 10] [--size 1600x1200]
//
// Same flags, same bytes.
package main

import (
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }
