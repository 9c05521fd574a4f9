package watch

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// ErrNoDisplay means there is no X11 or Wayland display to open a window on.
var ErrNoDisplay = errors.New("no display (DISPLAY and WAYLAND_DISPLAY name no display that is there)")

// Display is the --display window: the live view with the detector's phase and the last
// ruling drawn over it. Show must be called from the capture goroutine (OpenCV's HighGUI
// wants one thread); SetRuling from anywhere.
type Display struct {
	win  *gocv.Window
	view gocv.Mat
	mu   sync.Mutex
	text []string
	col  color.RGBA
	quit bool
}

// HaveDisplay reports whether a window can be opened: a local X11 display whose socket
// exists, a remote one (host:N, not checked), or a Wayland socket. OpenCV's GTK backend
// aborts the process when it cannot open the display, so this is checked first.
func HaveDisplay() bool {
	if w := os.Getenv("WAYLAND_DISPLAY"); w != "" {
		if filepath.IsAbs(w) {
			if _, err := os.Stat(w); err == nil {
				return true
			}
		} else if _, err := os.Stat(filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), w)); err == nil {
			return true
		}
	}
	d := os.Getenv("DISPLAY")
	if d == "" {
		return false
	}
	host, num, ok := strings.Cut(d, ":")
	if !ok {
		return false
	}
	if host != "" && host != "unix" {
		return true // a remote display (e.g. ssh -X): trust it
	}
	num, _, _ = strings.Cut(num, ".")
	_, err := os.Stat("/tmp/.X11-unix/X" + num)
	return err == nil
}

// NewDisplay checks for a display; the window itself opens at the first Show.
func NewDisplay() (*Display, error) {
	if !HaveDisplay() {
		return nil, ErrNoDisplay
	}
	return &Display{view: gocv.NewMat(), text: []string{"waiting for the sheet"}, col: color.RGBA{255, 255, 255, 0}}, nil
}

// SetRuling shows r (of player name) from now on.
func (d *Display) SetRuling(name string, r judge.TearRuling) {
	line := fmt.Sprintf("%s #%d %s %s: %s", name, r.Index, r.Kind, r.Skill, r.Verdict)
	var more []string
	if len(r.Faults) > 0 {
		fs := make([]string, len(r.Faults))
		for i, f := range r.Faults {
			fs[i] = string(f)
		}
		more = append(more, strings.Join(fs, ", "))
	}
	if r.UndecidedReason != "" {
		more = append(more, r.UndecidedReason)
	}
	if r.Out {
		more = append(more, "OUT: "+string(r.OutReason))
	}
	col := color.RGBA{40, 200, 40, 0}
	switch r.Verdict {
	case judge.FauxPas:
		col = color.RGBA{230, 40, 40, 0}
	case judge.Undecided:
		col = color.RGBA{240, 160, 0, 0}
	}
	d.mu.Lock()
	d.text, d.col = append([]string{line}, more...), col
	d.mu.Unlock()
}

// Show draws frame with the overlay and pumps the window's events. It reports false once
// the user pressed q or Esc.
func (d *Display) Show(frame gocv.Mat, phase Phase) bool {
	if d.win == nil {
		d.win = gocv.NewWindow("tearcam watch")
	}
	frame.CopyTo(&d.view)
	d.mu.Lock()
	text, col := d.text, d.col
	d.mu.Unlock()
	scale := float64(d.view.Cols()) / 1280
	y := int(40 * scale)
	gocv.PutText(&d.view, "phase: "+phase.String(), image.Pt(int(20*scale), y), gocv.FontHersheySimplex, scale, color.RGBA{255, 255, 0, 0}, 2)
	for _, t := range text {
		y += int(36 * scale)
		gocv.PutText(&d.view, t, image.Pt(int(20*scale), y), gocv.FontHersheySimplex, scale, col, 2)
	}
	d.win.IMShow(d.view)
	k := d.win.WaitKey(1)
	if k == 'q' || k == 27 {
		d.quit = true
	}
	return !d.quit
}

// Close closes the window.
func (d *Display) Close() error {
	var err error
	if d.win != nil {
		err = d.win.Close()
	}
	if e := d.view.Close(); err == nil {
		err = e
	}
	return err
}
