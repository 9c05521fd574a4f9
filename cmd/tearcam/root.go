package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/otiai10/gosseract/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gocv.io/x/gocv"
)

// Version is tearcam's version, stamped into every ruling's provenance.
var Version = "0.1.0"

// Revision is the source revision the binary was built from, set by the Makefile's build
// (-ldflags "-X main.Revision=..."): the commit's first 12 hex digits, "+dirty" when the
// working tree had uncommitted changes. Empty otherwise; then revision falls back on what the
// Go toolchain recorded, if anything.
var Revision = ""

// IO carries the streams a command uses: data to Out, progress and errors to ErrOut.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY is true when ErrOut is a terminal (progress bars are drawn only then).
	ErrTTY bool
}

// DefaultIO is the process's standard streams.
func DefaultIO() *IO {
	return &IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrTTY: isatty.IsTerminal(os.Stderr.Fd())}
}

// UsageError is bad usage or a bad manifest: exit status 2 (DESIGN.md "Exit status").
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf makes a UsageError.
func usageErrorf(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// ExitCode maps an error to tearcam's exit status: 0 none, 2 usage or manifest, 1 otherwise.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}

// VersionString is tearcam's version, the source revision it was built from (when the build
// recorded one) and the OpenCV and Tesseract versions it runs on, e.g. "tearcam 0.1.0 (commit
// 9ee76a5c1a2b, OpenCV 4.6.0, Tesseract 5.3.0)". A tournament's audit names it, so that a
// ruling can be tied to the very code that made it.
func VersionString() string {
	rev := ""
	if r := revision(); r != "" {
		rev = "commit " + r + ", "
	}
	return fmt.Sprintf("tearcam %s (%sOpenCV %s, Tesseract %s)", Version, rev, gocv.OpenCVVersion(), gosseract.Version())
}

// revision is the version-control revision the running binary was built from: Revision, else
// what `go build` recorded in a git checkout (runtime/debug.BuildInfo, settings vcs.revision
// and vcs.modified, unless -buildvcs=false) as 12 hex digits and "+dirty", else "" (go run,
// go test, a build outside a git checkout).
func revision() string {
	if Revision != "" {
		return Revision
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	rev = rev[:min(len(rev), 12)]
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// NewRootCmd builds the cobra command tree on the given streams.
func NewRootCmd(iostreams *IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "tearcam",
		Short:         "An impartial referee for a paper-tearing role-playing game",
		Version:       VersionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(iostreams.In)
	root.SetOut(iostreams.Out)
	root.SetErr(iostreams.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.AddCommand(
		newAuditCmd(iostreams, nil),
		newJudgeCmd(iostreams, nil),
		newWatchCmd(iostreams, nil),
		newThrowCmd(iostreams, nil),
		newCheckCmd(iostreams, nil),
	)
	return root
}

// Main runs tearcam with args and returns the exit status. Errors are printed as one line.
func Main(args []string, iostreams *IO) int {
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		// Tesseract's OpenMP oversubscribes two cores (PITFALLS.md).
		os.Setenv("OMP_THREAD_LIMIT", "1")
	}
	if os.Getenv("OPENCV_FFMPEG_LOGLEVEL") == "" {
		// FFmpeg logs to stderr ("[mjpeg @ 0x…] No JPEG data found in image") beside
		// tearcam's one-line errors. OpenCV reads this when it first opens a video, so it is
		// set here, before: -8 is AV_LOG_QUIET.
		os.Setenv("OPENCV_FFMPEG_LOGLEVEL", "-8")
	}
	// A failed write of the data on standard output is an error (exit 1), never silent,
	// whichever command wrote it and whether or not it looked at the error.
	out := &stickyWriter{w: iostreams.Out}
	streams := *iostreams
	streams.Out = out
	root := NewRootCmd(&streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil && out.err != nil {
		err = fmt.Errorf("write standard output: %w", out.err)
	}
	if err != nil {
		if cmd != nil && isCobraUsage(err) {
			err = &UsageError{Err: fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())}
		}
		fmt.Fprintln(iostreams.ErrOut, "tearcam: "+oneLine(err.Error()))
		return ExitCode(err)
	}
	return 0
}

// refuseRepeats makes every single-value flag of f refuse a second value (pflag makes it a
// usage error naming the flag: --json a.json --json b.json), never silently taking the last.
// Bool flags and the flags meant to be repeated (slices, arrays: --player, --bonus) are left
// alone. Call it once all of a command's flags are defined.
func refuseRepeats(f *pflag.FlagSet) {
	f.VisitAll(func(fl *pflag.Flag) {
		if _, many := fl.Value.(pflag.SliceValue); many || fl.Value.Type() == "bool" {
			return
		}
		fl.Value = &onceValue{Value: fl.Value}
	})
}

// onceValue is a flag value that may be set once.
type onceValue struct {
	pflag.Value
	set bool
}

func (o *onceValue) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (first %q): give it once", o.Value.String())
	}
	o.set = true
	return o.Value.Set(v)
}

// stickyWriter passes writes on to w and keeps the first error.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// noArgs is cobra.Args for a command that takes flags only: an argument is refused as
// unexpected (cobra.NoArgs called it an "unknown command", as if a subcommand were misspelt).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes flags only", args[0], cmd.CommandPath())
	}
	return nil
}

// oneArg is cobra.Args for a command that takes one argument, named what: a second one is
// refused as unexpected.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return fmt.Errorf("accepts 1 arg(s), received 0: give %s", what)
		case len(args) > 1:
			return fmt.Errorf("unexpected argument %q: %s takes one %s", args[1], cmd.CommandPath(), what)
		}
		return nil
	}
}

func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.Contains(s, "unknown command") || strings.Contains(s, "unknown flag") || strings.Contains(s, "unexpected argument") ||
		strings.Contains(s, "accepts") || strings.Contains(s, "required flag")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
