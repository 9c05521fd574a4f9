package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"

	"tearcam/internal/synth"
)

// options are the command's flags.
type options struct {
	out   string
	seed  int64
	cases int
	size  image.Point
	// sample, when set, is the real photo the sample session is made from (breta_page09.jpg);
	// --out then receives the sample session instead of a set.
	sample string
}

// parse reads the flags.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	var size string
	fs := flag.NewFlagSet("tearcam-synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "", "folder to write the cases into (required)")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the set: same seed, same bytes")
	fs.IntVar(&o.cases, "cases", 10, "number of cases")
	fs.StringVar(&size, "size", "1600x1200", "photo size WxH in pixels")
	fs.StringVar(&o.sample, "sample", "", "make the sample session from this real photo (breta_page09.jpg) instead of a set")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.out == "" {
		return o, errors.New("--out is required")
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.cases < 1 {
		return o, fmt.Errorf("--cases %d: want at least 1", o.cases)
	}
	w, h, ok := strings.Cut(size, "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi < 320 || hi < 240 || wi > 8000 || hi > 8000 {
		return o, fmt.Errorf("--size %q: want WxH in pixels, e.g. 1600x1200", size)
	}
	o.size = image.Pt(wi, hi)
	return o, nil
}

// run is the command; it returns the exit status (2 for bad usage).
func run(args []string, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "tearcam-synth:", err)
		}
		return 2
	}
	if o.sample != "" {
		t, err := synth.GenerateSample(o.out, synth.BretaSample(o.sample))
		if err != nil {
			fmt.Fprintln(stderr, "tearcam-synth:", err)
			return 1
		}
		for _, tt := range t.Players[0].Tears {
			fmt.Fprintf(stderr, "tear %d %s %s (%s): %s %v\n", tt.Index, tt.Kind, tt.Skill, tt.Intent, tt.Expected.Verdict, tt.Expected.Faults)
		}
		return 0
	}
	err = synth.GenerateSet(o.out, synth.SetOptions{
		Seed: o.seed, Cases: o.cases, PhotoSize: o.size,
		Progress: func(c *synth.Case) { fmt.Fprintln(stderr, c.Summary()) },
	})
	if err != nil {
		fmt.Fprintln(stderr, "tearcam-synth:", err)
		return 1
	}
	return 0
}
