package watch

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/template"
)

// plainSheet is an A4 sheet raster at 4 px/mm with a few dark strokes, and a paper mask with
// the given rectangles (in mm) torn away.
func plainSheet(torn ...image.Rectangle) (image.Image, *synth.Mask) {
	const ppm = 4
	w, h := 210*ppm, 297*ppm
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	m := synth.NewMask(w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{245, 243, 236, 255}
			if (y/ppm)%40 > 30 && (y/ppm)%40 < 36 && (x/ppm)%30 < 20 && x/ppm > 20 && x/ppm < 190 {
				c = color.RGBA{30, 40, 140, 255}
			}
			img.Set(x, y, c)
			in := true
			for _, r := range torn {
				if image.Pt(x/ppm, y/ppm).In(r) {
					in = false
				}
			}
			if in {
				m.Pix[y*w+x] = 1
			}
		}
	}
	return img, m
}

// writeTestVideo writes a video of the fresh sheet then one shot per torn state.
func writeTestVideo(t testing.TB, w, h int, states ...[]image.Rectangle) (string, synth.VideoTruth) {
	t.Helper()
	return writeTestVideoSpec(t, synth.VideoSpec{W: w, H: h, FPS: 15, Seed: 1}, states...)
}

// writeTestVideoSpec is writeTestVideo with the video's other settings from spec.
func writeTestVideoSpec(t testing.TB, spec synth.VideoSpec, states ...[]image.Rectangle) (string, synth.VideoTruth) {
	t.Helper()
	w, h := spec.W, spec.H
	poses := []struct{ x, y, a float64 }{{0.5, 0.5, 3}, {0.45, 0.52, -12}, {0.55, 0.48, 20}, {0.5, 0.5, 180}}
	for i, torn := range states {
		img, m := plainSheet(torn...)
		p := poses[i%len(poses)]
		spec.Shots = append(spec.Shots, synth.VideoShot{Image: img, Paper: m, PxPerMM: 4,
			CenterX: p.x * float64(w), CenterY: p.y * float64(h), AngleDeg: p.a, Scale: 0.85 * float64(h) / 297, Keystone: 0.05})
	}
	path := filepath.Join(t.TempDir(), "table.avi")
	truth, err := synth.WriteVideo(path, spec)
	require.NoError(t, err)
	return path, truth
}

// fakeReferee rules every tear valid and records what it was asked.
type fakeReferee struct {
	annotated bool // return an annotated JPEG with each ruling
	fresh     []int
	tears     []judge.Tear
	frames    []int // rows of the frames it was given, to check they are real
}

func (f *fakeReferee) Fresh(p int, fr Frame) (judge.SheetResult, error) {
	f.fresh = append(f.fresh, p)
	return judge.SheetResult{Found: true, Skills: []judge.SkillResult{}}, nil
}

func (f *fakeReferee) Identify(fr Frame, cands []int) (int, error) { return cands[0], nil }

func (f *fakeReferee) Tear(p int, t judge.Tear, fr *Frame) (judge.TearRuling, []byte, error) {
	f.tears = append(f.tears, t)
	var ann []byte
	if fr != nil {
		f.frames = append(f.frames, fr.Mat.Rows())
		if f.annotated {
			buf, err := gocv.IMEncode(gocv.JPEGFileExt, fr.Mat)
			if err != nil {
				return judge.TearRuling{}, nil, err
			}
			ann = append(ann, buf.GetBytes()...)
			buf.Close()
		}
	}
	return judge.TearRuling{Kind: t.Kind, Skill: t.Skill, Verdict: judge.Valid, Faults: []judge.Fault{}}, ann, nil
}

func TestEveryShotSettlesOnce(t *testing.T) {
	cases := []struct {
		name string
		spec synth.VideoSpec
	}{
		{"640x480", synth.VideoSpec{W: 640, H: 480, FPS: 15, Seed: 1}},
		{"1280x720", synth.VideoSpec{W: 1280, H: 720, FPS: 15, Seed: 1}},
		// Hands resting on the sheet for a second, under a lamp: not a settled sheet.
		{"hands resting", synth.VideoSpec{W: 640, H: 480, FPS: 15, Seed: 2, HandsStill: 15, Light: 0.4}},
		// An arm comes to rest at the edge of the table, away from the sheet, as the torn sheet
		// is put back (frame 56; the empty table before it had no arm).
		{"arm beside the sheet", synth.VideoSpec{W: 640, H: 480, FPS: 15, Seed: 5, ArmFrom: 56}},
		{"10 fps", synth.VideoSpec{W: 640, H: 360, FPS: 10, Seed: 3, Still: 12, Hands: 5, Empty: 5, Slide: 4, Lift: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, truth := writeTestVideoSpec(t, tc.spec, nil,
				[]image.Rectangle{image.Rect(0, 0, 60, 50)},
				[]image.Rectangle{image.Rect(0, 0, 60, 50), image.Rect(150, 250, 210, 297)})
			src, err := OpenSource(path)
			require.NoError(t, err)
			defer src.Close()
			ref := &fakeReferee{}
			cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}},
				Paper: template.Paper{Name: "a4"}, Template: template.Default()}
			var log strings.Builder
			cfg.Log = &log
			res, err := Run(context.Background(), cfg, src, ref, strings.NewReader("use A\ndamage A\n"))
			require.NoError(t, err)
			t.Log(log.String())
			require.Len(t, res.Settled, len(truth.Still), "settled frames %v, still ranges %v", res.Settled, truth.Still)
			for i, n := range res.Settled {
				assert.True(t, truth.Still[i].Contains(n), "settle %d at frame %d, want in %v", i, n, truth.Still[i])
			}
			// The fresh sheet is read on the still run's last two frames, then its first (kept: no
			// read locates more).
			assert.Equal(t, []int{0, 0, 0}, ref.fresh)
			assert.Contains(t, log.String(), fmt.Sprintf("frame %d: Ann's fresh sheet taken (); read on 3 frames of the still sheet (%d: ", res.Settled[0], res.Settled[0]))
			assert.Equal(t, []judge.Tear{{Kind: judge.KindUse, Skill: "A"}, {Kind: judge.KindDamage, Skill: "A"}}, ref.tears)
			assert.Equal(t, []int{tc.spec.H, tc.spec.H}, ref.frames)
			assert.Equal(t, truth.Frames, res.Frames)
			require.Len(t, res.Rulings.Players[0].Tears, 2)
			assert.Equal(t, PhotoName(res.Settled[1]), res.Rulings.Players[0].Tears[0].Photo)
		})
	}
}

func TestDetectorPhases(t *testing.T) {
	d := NewDetector(DefaultDetectorConfig())
	ms := func(n int) time.Duration { return time.Duration(n) * 100 * time.Millisecond }
	empty := Stats{Paper: 0.001}
	still := Stats{Paper: 0.3}
	moving := Stats{Paper: 0.3, Motion: 0.05}
	covered := Stats{Paper: 0.2, Motion: 0.05, Skin: 0.1, Change: 0.5}
	var got []int
	seq := []Stats{empty, empty, moving, still, still, still, still, still, still, still, still, still,
		covered, covered, empty, empty, moving, still, still, still, still, still, still, still, still}
	for i, s := range seq {
		if d.Update(ms(i), s) {
			got = append(got, i)
		}
	}
	// Still from frame 3 (0.3 s): StillFor 0.4 s is reached at frame 7; again from 17: frame 21.
	assert.Equal(t, []int{7, 21}, got)
}

// specReferee is a fakeReferee that can retract (so watch speculates).
type specReferee struct {
	fakeReferee
	retracted int
}

func (s *specReferee) Retract(p int) { s.retracted++ }

// TestSpeculation: with Config.Speculate, a tear is judged on the frame where the sheet
// stopped, reported once it lay still long enough, and retracted when the sheet moved on
// (a pause while it was being put back).
func TestSpeculation(t *testing.T) {
	spec := synth.VideoSpec{W: 640, H: 480, FPS: 15, Seed: 4, Pause: 3}
	path, truth := writeTestVideoSpec(t, spec, nil,
		[]image.Rectangle{image.Rect(0, 0, 60, 50)},
		[]image.Rectangle{image.Rect(0, 0, 60, 50), image.Rect(150, 250, 210, 297)})
	src, err := OpenSource(path)
	require.NoError(t, err)
	defer src.Close()
	ref := &specReferee{}
	var log strings.Builder
	cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Speculate: true}
	res, err := Run(context.Background(), cfg, src, ref, strings.NewReader("use A\ndamage A\n"))
	require.NoError(t, err)
	require.Len(t, res.Settled, len(truth.Still), "settled %v, still ranges %v", res.Settled, truth.Still)
	for i, n := range res.Settled {
		assert.True(t, truth.Still[i].Contains(n), "settle %d at frame %d, want in %v", i, n, truth.Still[i])
	}
	// Each torn sheet paused on its way back: judged there, retracted, judged again.
	assert.Equal(t, 2, ref.retracted)
	assert.Len(t, ref.tears, 4)
	tears := res.Rulings.Players[0].Tears
	require.Len(t, tears, 2)
	for i, r := range tears {
		assert.Equal(t, i+1, r.Index)
		assert.Equal(t, PhotoName(res.Settled[i+1]), r.Photo)
	}
	assert.Equal(t, judge.KindDamage, tears[1].Kind)
}

// TestDetectorRearm: a taken frame refused (something lay on the sheet) re-arms the detector:
// the sheet is taken again once something moved and it lay still for StillFor, never the
// same still view again.
func TestDetectorRearm(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * 100 * time.Millisecond }
	still := Stats{Paper: 0.3}
	moving := Stats{Paper: 0.3, Motion: 0.05}
	cases := []struct {
		name    string
		seq     []Stats
		rearmAt int // Rearm before the Update of this frame
		want    []int
	}{
		// Taken at 4 (still from 0); re-armed at 6 while still: nothing moved, nothing taken
		// until the motion at 9; still again from 10: taken at 14.
		{"re-armed before the motion", []Stats{still, still, still, still, still, still, still, still, still, moving,
			still, still, still, still, still, still}, 6, []int{4, 14}},
		// The motion (at 6) came before the re-arm (at 8): still from 7, re-armed at 8, so
		// the still run starts at 8 and is taken at 12.
		{"re-armed after the motion", []Stats{still, still, still, still, still, still, moving, still,
			still, still, still, still, still, still}, 8, []int{4, 12}},
		// Never re-armed: a motion without the sheet leaving is not a new settling.
		{"not re-armed", []Stats{still, still, still, still, still, still, moving, still,
			still, still, still, still, still, still}, -1, []int{4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDetector(DefaultDetectorConfig())
			var got []int
			for i, s := range tc.seq {
				if i == tc.rearmAt {
					d.Rearm()
				}
				if d.Update(ms(i), s) {
					got = append(got, i)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// coverReferee is a specReferee that finds something lying on the sheet in a frame whose
// pixel at (coverX, coverY) is dark (the cover drawn by writeCoverVideo).
type coverReferee struct {
	specReferee
	judged []int // frame numbers of the tears judged
}

const coverX, coverY = 170, 150

func (c *coverReferee) Tear(p int, t judge.Tear, f *Frame) (judge.TearRuling, []byte, error) {
	if f != nil {
		c.judged = append(c.judged, f.No)
		if f.Mat.GetVecbAt(coverY, coverX)[0] < 100 {
			return judge.TearRuling{}, nil, fmt.Errorf("%w at (130, 200) mm", ErrCovered)
		}
	}
	return c.specReferee.Tear(p, t, f)
}

// writeCoverVideo writes a 320x240 video at 15 frames/s: the empty table (frames 0-7), the
// fresh sheet (8-27), the table (28-35), the torn sheet with something dark lying on it
// (36-55), then the same torn sheet with it gone (56-80), never lifted.
func writeCoverVideo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cover.avi")
	vw, err := gocv.VideoWriterFile(path, "MJPG", 15, 320, 240, true)
	require.NoError(t, err)
	defer vw.Close()
	frame := func(sheet, torn, cover bool) gocv.Mat {
		m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 80, 140, 0), 240, 320, gocv.MatTypeCV8UC3)
		if sheet {
			gocv.Rectangle(&m, image.Rect(100, 40, 220, 210), color.RGBA{235, 235, 235, 0}, -1)
		}
		if torn {
			gocv.Rectangle(&m, image.Rect(100, 40, 140, 80), color.RGBA{140, 80, 40, 0}, -1)
		}
		if cover {
			gocv.Rectangle(&m, image.Rect(coverX-20, coverY-20, coverX+20, coverY+20), color.RGBA{60, 60, 60, 0}, -1)
		}
		return m
	}
	for i := 0; i <= 80; i++ {
		var m gocv.Mat
		switch {
		case i < 8, i >= 28 && i < 36:
			m = frame(false, false, false)
		case i < 28:
			m = frame(true, false, false)
		case i < 56:
			m = frame(true, true, true)
		default:
			m = frame(true, true, false)
		}
		require.NoError(t, vw.Write(m))
		m.Close()
	}
	return path
}

// TestCoveredFrameWaits: a torn sheet with something lying on it is not ruled and does not
// use up the announcement: the tear is ruled on the sheet once it lies still uncovered.
func TestCoveredFrameWaits(t *testing.T) {
	path := writeCoverVideo(t)
	for _, speculate := range []bool{false, true} {
		t.Run(fmt.Sprintf("speculate=%v", speculate), func(t *testing.T) {
			src, err := OpenSource(path)
			require.NoError(t, err)
			defer src.Close()
			ref := &coverReferee{}
			var log strings.Builder
			cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}}, Paper: template.Paper{Name: "a4"},
				Template: template.Default(), Log: &log, Speculate: speculate}
			res, err := Run(context.Background(), cfg, src, ref, strings.NewReader("use A\n"))
			require.NoError(t, err)
			t.Log(log.String())
			require.Len(t, res.Settled, 3, "fresh, covered, uncovered: %v", res.Settled)
			assert.True(t, res.Settled[1] >= 36 && res.Settled[1] < 56, "covered frame %d", res.Settled[1])
			assert.True(t, res.Settled[2] >= 56, "uncovered frame %d", res.Settled[2])
			assert.Equal(t, res.Settled[1:], ref.judged)
			tears := res.Rulings.Players[0].Tears
			require.Len(t, tears, 1)
			assert.Equal(t, judge.Valid, tears[0].Verdict)
			assert.Equal(t, PhotoName(res.Settled[2]), tears[0].Photo)
			assert.Equal(t, 1, strings.Count(log.String(), "waiting for the sheet to settle uncovered"))
			assert.Contains(t, log.String(), "frame "+fmt.Sprint(res.Settled[1])+": something covers the sheet at (130, 200) mm; Ann's tear 1 (use A) is not ruled on it")
		})
	}
}

// TestDetectorTornInPlace: a sheet torn where it lies (hands over it, then gone; or a cut
// in a video from one photo to the next) never leaves the table, so Change stays under
// MinChange; once something has moved and the sheet lies still, uncovered and changed by at
// least MinTornChange, it is taken again. A hand passing over an untouched sheet, which
// leaves it as it was, is not (a tester: tear 2 of breta-1 then breta-4 was never seen).
func TestDetectorTornInPlace(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * 100 * time.Millisecond }
	still := Stats{Paper: 0.3}
	hands := Stats{Paper: 0.28, Motion: 0.05, Hands: 0.1, Change: 0.12}
	torn := Stats{Paper: 0.27, Change: 0.06} // 6% of the taken sheet's paper changed
	same := Stats{Paper: 0.3, Change: 0.002} // the same sheet, noise
	cut := Stats{Paper: 0.27, Motion: 0.2, Change: 0.06}
	run := func(seq []Stats) []int {
		d := NewDetector(DefaultDetectorConfig())
		var got []int
		for i, s := range seq {
			if d.Update(ms(i), s) {
				got = append(got, i)
			}
		}
		return got
	}
	// Taken at frame 4 (still from 0, StillFor 0.4 s); torn in place from frame 8: taken at 12.
	assert.Equal(t, []int{4, 12}, run([]Stats{still, still, still, still, still, still, hands, hands, torn, torn, torn, torn, torn, torn}))
	// A video cut from one photo to the next: one frame of motion, then the torn sheet.
	assert.Equal(t, []int{4, 10}, run([]Stats{still, still, still, still, still, cut, torn, torn, torn, torn, torn, torn}))
	// A hand over the sheet that tears nothing: not taken again.
	assert.Equal(t, []int{4}, run([]Stats{still, still, still, still, still, hands, hands, same, same, same, same, same, same}))
	// A changed sheet without anything having moved (light drifting): not taken again.
	assert.Equal(t, []int{4}, run([]Stats{still, still, still, still, still, torn, torn, torn, torn, torn, torn}))
}
