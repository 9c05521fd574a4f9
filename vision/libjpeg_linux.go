package vision

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"
	"syscall"

	"gocv.io/x/gocv"
)

// stderrMu serialises imdecodeQuiet's redirections of the process's stderr.
var stderrMu sync.Mutex

// libjpegPadding is libjpeg's warning for bytes between a JPEG's compressed data and its next
// marker (padding before the end-of-image marker, which decoders skip).
var libjpegPadding = regexp.MustCompile(`^Corrupt JPEG data: \d+ extraneous bytes before marker 0x[0-9a-f]+$`)

// imdecodeQuiet is gocv.IMDecode with libjpeg's padding warning kept off the process's stderr.
// libjpeg, under OpenCV, prints "Corrupt JPEG data: N extraneous bytes before marker 0xd9" on
// file descriptor 2, naming no file, for a JPEG padded before its end marker: Go's decoder
// (jpegCorrupt) has already accepted the data, and both decoders skip the padding, so the
// warning says nothing about the photo worth a line. While OpenCV decodes, fd 2 goes to a
// pipe; once it is restored, every line written meanwhile but that warning (another
// goroutine's, another libjpeg warning) is passed on to stderr unchanged.
func imdecodeQuiet(data []byte) (gocv.Mat, error) {
	if len(data) < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF {
		return gocv.IMDecode(data, gocv.IMReadColor) // not a JPEG: libjpeg says nothing
	}
	stderrMu.Lock()
	defer stderrMu.Unlock()
	saved, err := syscall.Dup(2)
	if err != nil {
		return gocv.IMDecode(data, gocv.IMReadColor)
	}
	defer syscall.Close(saved)
	r, w, err := os.Pipe()
	if err != nil {
		return gocv.IMDecode(data, gocv.IMReadColor)
	}
	if err := dup3(int(w.Fd()), 2); err != nil {
		r.Close()
		w.Close()
		return gocv.IMDecode(data, gocv.IMReadColor)
	}
	said := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); said <- b }()

	m, derr := gocv.IMDecode(data, gocv.IMReadColor)

	restored := dup3(saved, 2)
	w.Close()
	if restored != nil {
		// fd 2 still holds the pipe: its reader goes on draining it (closing it would make
		// the next write to stderr kill the process with SIGPIPE), and nothing is waited for.
		return m, derr
	}
	out := <-said
	r.Close()
	var kept bytes.Buffer
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if !libjpegPadding.Match(bytes.TrimRight(line, "\n")) {
			kept.Write(line)
		}
	}
	if kept.Len() > 0 {
		os.Stderr.Write(kept.Bytes())
	}
	return m, derr
}

// dup3 makes newfd a copy of oldfd, retrying when a signal interrupts it.
func dup3(oldfd, newfd int) error {
	for {
		if err := syscall.Dup3(oldfd, newfd, 0); err != syscall.EINTR {
			return err
		}
	}
}
