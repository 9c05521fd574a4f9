package watch

import (
	"fmt"
	"image"

	"gocv.io/x/gocv"
)

// Stats is the cheap per-frame analysis of one frame.
type Stats struct {
	// Motion is the fraction of pixels whose grey level changed by more than
	// AnalyzerConfig.MotionDelta since the previous frame (0 on the first frame).
	Motion float64
	// Paper is the fraction of pixels that are bright and unsaturated (paper-like).
	Paper float64
	// Skin is the fraction of pixels that have a skin tone.
	Skin float64
	// Change is the fraction of the reference's paper pixels that now differ from the
	// reference (grey level moved by more than ChangeDelta, or no longer paper-like); 0 when
	// there is no reference. It tells that the sheet left the table or was covered.
	Change float64
	// Hands is the fraction of pixels that are skin-coloured, differ from the empty table
	// (the background: the last still frame without paper) and lie on or near the paper
	// (within its bounding box, grown by a tenth of the frame): hands on the sheet. A
	// wooden table is skin-coloured too, but it is background; an arm resting at the edge
	// of the table, away from the sheet, does not count. 0 until an empty table was seen.
	Hands float64
}

func (s Stats) String() string {
	return fmt.Sprintf("motion %.4f paper %.3f skin %.3f change %.3f hands %.3f", s.Motion, s.Paper, s.Skin, s.Change, s.Hands)
}

// AnalyzerConfig holds the thresholds of the per-frame analysis. The zero value is not
// usable; start from DefaultAnalyzerConfig.
type AnalyzerConfig struct {
	Width       int // width of the downscaled frame the analysis runs on, in pixels
	MotionDelta int // grey-level change that counts a pixel as moving
	ChangeDelta int // grey-level change from the reference that counts a paper pixel as changed
	PaperMinV   int // minimum brightness (max of B, G, R) of a paper pixel
	PaperMaxS   int // maximum saturation (max-min of B, G, R) of a paper pixel
	// A still frame (Motion at most BackgroundMaxMotion) with at most BackgroundMaxPaper
	// paper becomes the background; a pixel differs from it by more than ForegroundDelta.
	BackgroundMaxPaper  float64
	BackgroundMaxMotion float64
	ForegroundDelta     int
}

// DefaultAnalyzerConfig works on a 160-pixel-wide copy of the frame.
func DefaultAnalyzerConfig() AnalyzerConfig {
	return AnalyzerConfig{Width: 160, MotionDelta: 14, ChangeDelta: 40, PaperMinV: 150, PaperMaxS: 45,
		BackgroundMaxPaper: 0.005, BackgroundMaxMotion: 0.003, ForegroundDelta: 30}
}

// Analyzer computes Stats frame after frame. It keeps the previous downscaled frame for
// motion and an optional reference (the last settled frame) for Change. Not safe for
// concurrent use. Close it when done.
type Analyzer struct {
	cfg   AnalyzerConfig
	small gocv.Mat
	w, h  int
	grey  []uint8 // current frame's grey levels, w*h
	prev  []uint8 // previous frame's grey levels, nil before the first frame
	paper []bool  // current frame's paper mask
	ref   []uint8 // reference grey levels, nil when there is none
	refP  []bool  // reference paper mask
	bg    []uint8 // background (empty table) grey levels, nil until one is seen
	hand  []bool  // current frame's skin-coloured foreground
}

// NewAnalyzer makes an Analyzer; Close it to free its downscaled Mat.
func NewAnalyzer(cfg AnalyzerConfig) *Analyzer {
	if cfg.Width <= 0 {
		cfg.Width = DefaultAnalyzerConfig().Width
	}
	return &Analyzer{cfg: cfg, small: gocv.NewMat()}
}

// Close frees the Analyzer's Mat.
func (a *Analyzer) Close() error { return a.small.Close() }

// Analyze computes the Stats of frame, a BGR image (8UC3), and remembers it as the previous
// frame for the next call's Motion.
func (a *Analyzer) Analyze(frame gocv.Mat) (Stats, error) {
	if frame.Empty() || frame.Type() != gocv.MatTypeCV8UC3 {
		return Stats{}, fmt.Errorf("analyze frame: want a non-empty 8-bit BGR image")
	}
	w := a.cfg.Width
	if w > frame.Cols() {
		w = frame.Cols()
	}
	h := (frame.Rows()*w + frame.Cols()/2) / frame.Cols()
	if h < 1 {
		h = 1
	}
	if w != a.w || h != a.h {
		// New geometry: forget the previous frame and the reference.
		a.w, a.h = w, h
		a.grey, a.prev, a.ref, a.refP, a.bg = make([]uint8, w*h), nil, nil, nil, nil
		a.paper, a.hand = make([]bool, w*h), make([]bool, w*h)
	}
	// cv::resize (INTER_AREA) averages the pixels of each cell: it also smooths sensor noise.
	gocv.Resize(frame, &a.small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	if !a.small.IsContinuous() {
		return Stats{}, fmt.Errorf("analyze frame: downscaled frame is not continuous")
	}
	px, err := a.small.DataPtrUint8()
	if err != nil {
		return Stats{}, fmt.Errorf("analyze frame: %w", err)
	}
	return a.stats(px), nil
}

// stats runs the one pass over the downscaled BGR pixels px.
func (a *Analyzer) stats(px []uint8) Stats {
	n := a.w * a.h
	var moving, paper, skin, refPaper, changed int
	minX, minY, maxX, maxY := a.w, a.h, -1, -1
	fgDelta := a.cfg.ForegroundDelta
	motionDelta, changeDelta := a.cfg.MotionDelta, a.cfg.ChangeDelta
	minV, maxS := a.cfg.PaperMinV, a.cfg.PaperMaxS
	for i := 0; i < n; i++ {
		b, g, r := int(px[3*i]), int(px[3*i+1]), int(px[3*i+2])
		hi, lo := max(b, g, r), min(b, g, r)
		// ITU-R BT.601 luma in integers, as cv::cvtColor(BGR2GRAY) computes it.
		y := (b*1868 + g*9617 + r*4899 + 8192) >> 14
		a.grey[i] = uint8(y)
		isPaper := hi >= minV && hi-lo <= maxS
		a.paper[i] = isPaper
		if isPaper {
			paper++
			px, py := i%a.w, i/a.w
			minX, maxX = min(minX, px), max(maxX, px)
			minY, maxY = min(minY, py), max(maxY, py)
		}
		// Kovac et al.'s daylight skin rule in RGB.
		isSkin := r > 95 && g > 40 && b > 20 && hi-lo > 15 && r-g > 15 && r > b
		a.hand[i] = false
		if isSkin {
			skin++
			a.hand[i] = a.bg != nil && absInt(y-int(a.bg[i])) > fgDelta
		}
		if a.prev != nil && absInt(y-int(a.prev[i])) > motionDelta {
			moving++
		}
		if a.ref != nil && a.refP[i] {
			refPaper++
			if !isPaper || absInt(y-int(a.ref[i])) > changeDelta {
				changed++
			}
		}
	}
	s := Stats{Paper: float64(paper) / float64(n), Skin: float64(skin) / float64(n)}
	hadPrev := a.prev != nil
	if hadPrev {
		s.Motion = float64(moving) / float64(n)
	} else {
		a.prev = make([]uint8, n)
	}
	if refPaper > 0 {
		s.Change = float64(changed) / float64(refPaper)
	}
	if maxX >= 0 {
		grow := a.w / 10
		x0, x1 := max(0, minX-grow), min(a.w-1, maxX+grow)
		y0, y1 := max(0, minY-grow), min(a.h-1, maxY+grow)
		hands := 0
		for y := y0; y <= y1; y++ {
			for _, h := range a.hand[y*a.w+x0 : y*a.w+x1+1] {
				if h {
					hands++
				}
			}
		}
		s.Hands = float64(hands) / float64(n)
	}
	copy(a.prev, a.grey)
	// An empty, still table becomes the background (following slow changes of light).
	if hadPrev && s.Paper <= a.cfg.BackgroundMaxPaper && s.Motion <= a.cfg.BackgroundMaxMotion {
		a.bg = append(a.bg[:0], a.grey...)
	}
	return s
}

// SetReference makes the last analysed frame the reference that Stats.Change compares with.
func (a *Analyzer) SetReference() {
	if a.grey == nil {
		return
	}
	a.ref = append(a.ref[:0], a.grey...)
	a.refP = append(a.refP[:0], a.paper...)
}

// ClearReference forgets the reference: Stats.Change is 0 until the next SetReference.
func (a *Analyzer) ClearReference() { a.ref, a.refP = nil, nil }

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
