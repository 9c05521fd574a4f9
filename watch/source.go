package watch

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"gocv.io/x/gocv"
)

// Source is where frames come from: a camera or a video file.
type Source interface {
	// Read reads the next frame into m; false when there is none (end of file, camera gone).
	Read(m *gocv.Mat) bool
	// Live is true for a camera: frame times come from the clock, and a failed read is a
	// camera that stopped (unplugged), not the end of a file.
	Live() bool
	// FPS is the frame rate the source announces (0 when unknown).
	FPS() float64
	// Name describes the source for messages.
	Name() string
	Close() error
}

// FrameTimer is a Source that knows when each frame was taken (from the start).
type FrameTimer interface {
	FrameTime() time.Duration
}

// ErrSourceMissing means the camera or file could not be opened.
var ErrSourceMissing = errors.New("cannot open video source")

// Capture is a Source on a gocv VideoCapture.
type Capture struct {
	vc   *gocv.VideoCapture
	live bool
	name string
	fps  float64
}

var devPath = regexp.MustCompile(`^/dev/video(\d+)$`)

// OpenSource opens "N" or "/dev/videoN" as V4L2 camera N (MJPG, 1280x720 requested), or
// anything else as a video file. The error wraps ErrSourceMissing and says which it was.
func OpenSource(spec string) (*Capture, error) {
	dev := -1
	if n, err := strconv.Atoi(spec); err == nil && n >= 0 {
		dev = n
	} else if m := devPath.FindStringSubmatch(spec); m != nil {
		dev, _ = strconv.Atoi(m[1])
	}
	if dev >= 0 {
		if _, err := os.Stat(fmt.Sprintf("/dev/video%d", dev)); err != nil {
			return nil, fmt.Errorf("camera %s: /dev/video%d does not exist (no camera attached?): %w", spec, dev, ErrSourceMissing)
		}
		vc, err := gocv.VideoCaptureDeviceWithAPI(dev, gocv.VideoCaptureV4L2)
		if err != nil || !vc.IsOpened() {
			if vc != nil {
				vc.Close()
			}
			return nil, fmt.Errorf("camera %s: cannot open it with V4L2 (busy or not a capture device?): %w", spec, ErrSourceMissing)
		}
		// PITFALLS.md: cameras default to 640x480; 720p at 30 fps usually needs MJPG.
		vc.Set(gocv.VideoCaptureFOURCC, vc.ToCodec("MJPG"))
		vc.Set(gocv.VideoCaptureFrameWidth, 1280)
		vc.Set(gocv.VideoCaptureFrameHeight, 720)
		vc.Set(gocv.VideoCaptureFPS, 30)
		return &Capture{vc: vc, live: true, name: "camera " + spec, fps: vc.Get(gocv.VideoCaptureFPS)}, nil
	}
	if st, err := os.Stat(spec); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("video %s: %w: %w", spec, err, ErrSourceMissing)
	} else if st.IsDir() {
		return nil, fmt.Errorf("video %s: is a directory: %w", spec, ErrSourceMissing)
	}
	// FFmpeg only: the other backends (GStreamer, image sequences) print noise for files
	// they cannot read, and FFmpeg reads every container a phone or webcam tool writes.
	vc, err := gocv.VideoCaptureFileWithAPI(spec, gocv.VideoCaptureFFmpeg)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("video %s: OpenCV cannot decode it: %w", spec, ErrSourceMissing)
	}
	return &Capture{vc: vc, name: "video " + spec, fps: vc.Get(gocv.VideoCaptureFPS)}, nil
}

// Read implements Source. A camera gets a few retries (about 1 s) before it counts as gone.
func (c *Capture) Read(m *gocv.Mat) bool {
	if c.vc.Read(m) && !m.Empty() {
		return true
	}
	if !c.live {
		return false
	}
	for i := 0; i < 10; i++ {
		time.Sleep(100 * time.Millisecond)
		if c.vc.Read(m) && !m.Empty() {
			return true
		}
	}
	return false
}

// Live implements Source.
func (c *Capture) Live() bool { return c.live }

// FPS implements Source.
func (c *Capture) FPS() float64 { return c.fps }

// Name implements Source.
func (c *Capture) Name() string { return c.name }

// Close implements Source.
func (c *Capture) Close() error { return c.vc.Close() }

var _ Source = (*Capture)(nil)
