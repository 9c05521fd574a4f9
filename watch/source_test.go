package watch

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

func TestOpenSourceErrors(t *testing.T) {
	dir := t.TempDir()
	notVideo := filepath.Join(dir, "notes.avi")
	require.NoError(t, os.WriteFile(notVideo, []byte("not a video at all"), 0o644))
	cases := []struct{ spec, want string }{
		{"97", "camera 97: /dev/video97 does not exist (no camera attached?)"},
		{"/dev/video97", "camera /dev/video97: /dev/video97 does not exist"},
		{filepath.Join(dir, "missing.mp4"), "no such file or directory"},
		{dir, "is a directory"},
		{notVideo, "OpenCV cannot decode it"},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.spec), func(t *testing.T) {
			src, err := OpenSource(tc.spec)
			if src != nil {
				src.Close()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrSourceMissing)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// unplugged is a live camera (a video file standing in) that stops after n frames.
type unplugged struct {
	*Capture
	n, read int
}

func (u *unplugged) Read(m *gocv.Mat) bool {
	if u.read >= u.n {
		return false
	}
	u.read++
	return u.Capture.Read(m)
}
func (u *unplugged) Live() bool { return true }

// FrameTime implements FrameTimer: the camera's clock at 15 frames/s.
func (u *unplugged) FrameTime() time.Duration { return time.Duration(u.read) * time.Second / 15 }

// TestCameraUnpluggedKeepsRulings: a camera that stops mid-session ends the session with
// ErrSourceStopped, a message, and every ruling made so far.
func TestCameraUnpluggedKeepsRulings(t *testing.T) {
	path, truth := writeTestVideo(t, 640, 480, nil, []image.Rectangle{image.Rect(0, 0, 60, 50)},
		[]image.Rectangle{image.Rect(0, 0, 60, 50), image.Rect(150, 250, 210, 297)})
	c, err := OpenSource(path)
	require.NoError(t, err)
	defer c.Close()
	// Unplugged while the second torn sheet is being put back.
	src := &unplugged{Capture: c, n: truth.Still[2].First - 2}
	var log strings.Builder
	cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log}
	res, err := Run(context.Background(), cfg, src, &fakeReferee{}, strings.NewReader("use A\ndamage A\n"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrSourceStopped), err)
	require.NotNil(t, res)
	tears := res.Rulings.Players[0].Tears
	require.Len(t, tears, 2, "the ruling made before the camera stopped is kept, the unseen tear listed")
	assert.Equal(t, 1, res.Ruled, "one ruling made and recorded")
	assert.NotEqual(t, judge.Undecided, tears[0].Verdict, "the first tear was judged on a frame")
	// The second announced tear ("damage A") was never seen: it is listed, undecided, with
	// the first tear's standing carried unchanged.
	assert.Equal(t, 2, tears[1].Index)
	assert.Equal(t, judge.KindDamage, tears[1].Kind)
	assert.Equal(t, "A", tears[1].Skill)
	assert.Equal(t, judge.Undecided, tears[1].Verdict)
	assert.Contains(t, tears[1].UndecidedReason, "never seen")
	assert.Equal(t, []judge.Fault{}, tears[1].Faults)
	assert.Equal(t, tears[0].Skills, tears[1].Skills)
	assert.Equal(t, tears[0].OwedTears, tears[1].OwedTears)
	assert.Contains(t, log.String(), "stopped delivering frames after")
	assert.Contains(t, log.String(), "1 tear announced but never seen on the table")
}

// TestEmptyVideo: a video in which no sheet ever settles gives no ruling, no error.
func TestVideoWithoutSheet(t *testing.T) {
	path, _ := writeTestVideo(t, 320, 240, nil)
	c, err := OpenSource(path)
	require.NoError(t, err)
	defer c.Close()
	// Only the first frames: the empty table.
	src := &unplugged{Capture: c, n: 5}
	var log strings.Builder
	cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log}
	res, err := Run(context.Background(), cfg, &fileOnly{src}, &fakeReferee{}, strings.NewReader(""))
	require.NoError(t, err)
	assert.Empty(t, res.Settled)
	assert.Contains(t, log.String(), "Ann's fresh sheet was never seen")
	assert.Contains(t, log.String(), "ended after 5 frames")

	// A one-frame source (a photo given as --source): "1 frame", not "1 frames".
	c1, err := OpenSource(path)
	require.NoError(t, err)
	defer c1.Close()
	log.Reset()
	cfg.Log = &log
	_, err = Run(context.Background(), cfg, &fileOnly{&unplugged{Capture: c1, n: 1}}, &fakeReferee{}, strings.NewReader(""))
	require.NoError(t, err)
	assert.Contains(t, log.String(), "ended after 1 frame\n")
}

// fileOnly makes a Source not live.
type fileOnly struct{ *unplugged }

func (f *fileOnly) Live() bool { return false }

func TestHaveDisplay(t *testing.T) {
	// A display number with no X socket on this machine (earlier Xvfb runs may leave some).
	free := 97
	for ; free < 1000; free++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", free)); os.IsNotExist(err) {
			break
		}
	}
	cases := []struct {
		display, wayland string
		want             bool
	}{
		{"", "", false},
		{fmt.Sprintf(":%d", free), "", false}, // no /tmp/.X11-unix/X<free> here
		{"garbage", "", false},
		{"otherhost:0", "", true},
		{"", "/nonexistent/wayland-0", false},
	}
	for _, tc := range cases {
		t.Run(tc.display+"|"+tc.wayland, func(t *testing.T) {
			t.Setenv("DISPLAY", tc.display)
			t.Setenv("WAYLAND_DISPLAY", tc.wayland)
			assert.Equal(t, tc.want, HaveDisplay())
		})
	}
}
