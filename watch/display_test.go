package watch

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

// startXvfb starts a virtual X display and returns its DISPLAY value; the test skips
// without Xvfb.
func startXvfb(t *testing.T) string {
	t.Helper()
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("skipping the window test: Xvfb not found (apt-get install xvfb)")
	}
	for n := 90; n < 110; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		cmd := exec.Command(xvfb, fmt.Sprintf(":%d", n), "-screen", "0", "1280x800x24", "-nolisten", "tcp")
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
				return fmt.Sprintf(":%d", n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("Xvfb :%d did not start", n)
	}
	t.Skip("no free X display number")
	return ""
}

// TestDisplayWindow runs watch with --display's window on a virtual X display: the live view
// is shown with the phase and the last ruling drawn over it.
func TestDisplayWindow(t *testing.T) {
	t.Setenv("DISPLAY", startXvfb(t))
	t.Setenv("WAYLAND_DISPLAY", "")
	require.True(t, HaveDisplay())
	disp, err := NewDisplay()
	require.NoError(t, err)
	defer disp.Close()

	path, _ := writeTestVideo(t, 640, 480, nil, []image.Rectangle{image.Rect(0, 0, 60, 50)})
	src, err := OpenSource(path)
	require.NoError(t, err)
	defer src.Close()
	shown := 0
	var overlaid bool
	cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(),
		OnFrame: func(n int, f gocv.Mat, phase Phase, _ Stats) bool {
			ok := disp.Show(f, phase)
			shown++
			// The overlay changed the view: it is not the bare frame.
			diff := gocv.NewMat()
			gocv.AbsDiff(disp.view, f, &diff)
			grey := gocv.NewMat()
			gocv.CvtColor(diff, &grey, gocv.ColorBGRToGray)
			overlaid = overlaid || gocv.CountNonZero(grey) > 100
			grey.Close()
			diff.Close()
			return ok
		},
		OnEvent: func(e Event) {
			if e.Ruling != nil {
				disp.SetRuling("Ann", *e.Ruling)
			}
		},
	}
	res, err := Run(context.Background(), cfg, src, &fakeReferee{}, strings.NewReader("use A\n"))
	require.NoError(t, err)
	assert.Equal(t, res.Frames, shown)
	assert.True(t, overlaid)
	assert.Contains(t, strings.Join(disp.text, "\n"), "Ann #1 use A: valid")
}
