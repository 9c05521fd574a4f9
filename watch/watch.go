package watch

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// Player is one player at the table: their declared skills and, for a scripted session
// (watch --session), the tears they will make, in order.
type Player struct {
	Name   string
	Skills []string
	Tears  []judge.Tear
}

// Frame is a settled frame handed to the Referee.
type Frame struct {
	No  int      // frame number in the source, from 0
	Mat gocv.Mat // the frame (BGR); owned by watch, valid during the call only
	PNG []byte   // its lossless encoding: the photo recorded, whose SHA-256 rulings carry
}

// Referee judges frames: the same pipeline `tearcam audit` runs on photos. Players are
// indexes into Config.Players. It is called from one goroutine only, and must have recorded
// (committed) each result before it returns it: watch prints it right after.
type Referee interface {
	// Fresh reads f as player p's untorn sheet. An error, or Found false, means the frame
	// was not usable as a fresh sheet; watch waits for the next settled sheet.
	Fresh(p int, f Frame) (judge.SheetResult, error)
	// Identify says which of the candidate players' sheets f shows (registration against
	// each fresh sheet), or -1 when it shows none of them.
	Identify(f Frame, candidates []int) (int, error)
	// Tear measures f as player p's sheet after tear t and rules it; f is nil for a
	// last_ditch tear. annotated is a JPEG of the ruling drawn on the sheet, or nil. An
	// error wrapping ErrCovered means something lies on the sheet in f (a hand): nothing is
	// recorded, and watch waits for the sheet to settle uncovered.
	Tear(p int, t judge.Tear, f *Frame) (r judge.TearRuling, annotated []byte, err error)
}

// ErrCovered is wrapped by a Referee's Tear error when something lies on the sheet in the
// frame (a hand resting on it): the frame shows no tear to rule, the tear waits for the next.
var ErrCovered = errors.New(coveredRefusal)

// coveredRefusal begins vision.Measure's refusal of a tear whose removed paper is mostly
// something lying on the sheet (vision/measure.go, coveredPieces), which vision says in the
// measurement's Refused text only. TestWatchHandOnSheet checks it on the real pipeline.
const coveredRefusal = "something covers the sheet"

// Retractor is a Referee that can take back player p's last tear: it was judged (and
// recorded) on a frame the sheet then moved away from (Config.Speculate), and was never
// reported. The next Tear of p replaces it.
type Retractor interface {
	Retract(p int)
}

// GMRuler is a Referee that takes the GM's ruling on a ruled tear ("gm N ..." on stdin or the
// page's form): RuleGM records g (already checked against the player's skills) as the GM's
// ruling on player p's tear n (from 1), re-rules the player's tears from n on with the state
// following it, commits them, and returns the player's tears (all of them, as ruled now).
type GMRuler interface {
	RuleGM(p, n int, g *judge.GMRuling) ([]judge.TearRuling, error)
}

// Rereader is a Referee that reports a tear's ruling before the OCR re-read of its photo
// (about a third of judging a tear) and does the re-read after: Reread does the re-reads
// left for later and returns player p's tears as ruled now and the last tear's annotated
// image when it was drawn again (tears nil when no re-read was left). A re-read's
// disagreements amend the ruling (in the store too); one that changes the verdict is
// reported as such.
type Rereader interface {
	Reread(p int) ([]judge.TearRuling, []byte, error)
}

// Event is something watch reports as it happens (to the page, the window, tests).
type Event struct {
	Player int
	Fresh  *judge.SheetResult // a fresh sheet was taken
	Ruling *judge.TearRuling  // a tear was ruled (or, with GM set, the GM ruled on it)
	// GM: the GM gave a ruling on the tear Ruling (its GMRuling); Reruled are the player's
	// later tears whose state changed with it, as ruled now.
	GM      bool
	Reruled []judge.TearRuling
	// Amended: the OCR re-read done after the tear Ruling was reported (Rereader) amended it;
	// Before is the ruling as it was reported.
	Amended   bool
	Before    *judge.TearRuling
	Annotated []byte // JPEG for Ruling, or nil
	Message   string // a status message
	// Latency is the time from reading the frame judged (the first in which the sheet lay
	// still) to the ruling being reported; Compute is the part of it spent judging (the
	// rest waited for the sheet to lie still for StillFor, or for earlier work).
	Latency, Compute time.Duration
	// Rulings is the whole rulings document after this event.
	Rulings judge.Rulings
	// Waiting says, one phrase per player, what watch waits for after this event: the
	// player's untorn sheet, or the next tear to be ruled and what it waits for, e.g.
	// "Lena's tear 2 (damage Etiquette): waiting for the torn sheet to settle".
	Waiting []string
}

// Config is a watch session.
type Config struct {
	Players []Player
	// Scripted: the tears come from Players[i].Tears; otherwise from announcements.
	Scripted bool
	Paper    template.Paper
	Template template.Template
	Analyzer AnalyzerConfig
	Detector DetectorConfig
	// Speculate starts judging a tear as soon as the sheet stops moving, on that first
	// still frame, and reports the ruling once the sheet has lain still for StillFor (or
	// forgets it if the sheet moved again): the ruling is out max(StillFor, judging) after
	// the sheet stopped, not their sum. It needs a Referee that is a Retractor.
	Speculate bool
	// Realtime paces a video file at its frame rate, as a camera would deliver it (so that
	// latencies mean what they would live). Cameras are always real time.
	Realtime bool
	// Grace is how long to wait for announcements still to come after the source ended.
	Grace time.Duration
	// OnFrame, if set, sees every frame (live view) with the Detector's phase; it runs on the
	// capture goroutine and must be quick and not keep the Mat. Returning false stops the
	// session (the window's q key).
	OnFrame func(frameNo int, frame gocv.Mat, phase Phase, s Stats) bool
	// OnEvent, if set, sees every event after it was recorded. It runs on the judging goroutine.
	OnEvent func(Event)
	// Log receives one-line status messages (stderr).
	Log io.Writer
	// Now is the clock (tests may fix it); nil is time.Now.
	Now func() time.Time
	// Resume holds the frames an earlier watch of the session recorded (watch --resume after
	// a crash), in order: they are taken again, before the source is read, as they were then
	// (the referee re-uses its recorded rulings), so the session continues from the next
	// tear. FirstFrame numbers the source's frames from there, after the recorded ones.
	Resume     []Replayed
	FirstFrame int
	// Commands are more GM lines, as typed on stdin (the page's form: Page.Commands).
	Commands <-chan string
}

// Replayed is a frame an earlier watch of the session recorded (Config.Resume): player
// Player's fresh sheet (Tear nil) or the frame its tear Tear was ruled on (PNG nil for a
// last-ditch effort).
type Replayed struct {
	Player int
	No     int
	PNG    []byte
	Tear   *judge.Tear
	// GM is the GM's ruling on the tear recorded with it, applied again once it is ruled.
	GM *judge.GMRuling
}

// Result is what a watch session produced.
type Result struct {
	Rulings judge.Rulings
	// Ruled is how many of Rulings' tears the referee ruled and recorded; the others are
	// tears announced but never seen (undecided, not recorded).
	Ruled  int
	Frames int    // frames read
	End    string // why the session ended
	// Interrupted: ctx was cancelled (Ctrl-C). Rulings holds only the tears ruled before;
	// what was being judged, and tears announced but not ruled, are not in it but in NotRuled.
	// An interrupted Run logs none of this: the caller says it in one line.
	Interrupted bool
	// NotRuled says what an interruption left unruled, one phrase each, e.g.
	// "Ann's fresh sheet (frame 15, being read)", "Ann's 1 announced tear not yet seen".
	NotRuled []string
	// Settled is every frame number taken as a settled sheet, in order.
	Settled []int
	// Latencies are the stopped-moving-to-reported times of the tears ruled on a frame
	// (Event.Latency), and Computes the judging part of each.
	Latencies, Computes []time.Duration
}

// settled is a frame taken by the detector.
type settled struct {
	kind   settleKind
	no     int
	frame  gocv.Mat // empty for confirm and abort
	readAt time.Time
	png    []byte
	// more are later frames of the same still run (taken or confirmed frames only): a fresh
	// sheet is read on each, and the best read kept (controller.fresh).
	more []stillFrame
}

// stillFrame is a frame of a still run after its first (settled.more).
type stillFrame struct {
	no    int
	frame gocv.Mat
}

// settleKind is what a message from the capture goroutine says about a frame.
type settleKind int

const (
	// settleTaken: the sheet in this frame settled (lay still for StillFor).
	settleTaken settleKind = iota
	// settleCandidate: the sheet has just stopped moving in this frame (Config.Speculate);
	// a confirm or an abort of the same frame follows.
	settleCandidate
	// settleConfirm: the candidate frame lay still for StillFor: it is taken.
	settleConfirm
	// settleAbort: the candidate frame moved again before StillFor: it is not taken.
	settleAbort
)

func (s *settled) close() {
	s.frame.Close()
	s.dropMore()
}

// dropMore frees the later frames of the still run (needed only to read a fresh sheet).
func (s *settled) dropMore() {
	for _, m := range s.more {
		m.frame.Close()
	}
	s.more = nil
}

// asFrame encodes the settled frame as PNG (once) for the referee.
func (s *settled) asFrame() (Frame, error) {
	if s.png == nil {
		b, err := encodePNG(s.frame)
		if err != nil {
			return Frame{}, fmt.Errorf("frame %d: %w", s.no, err)
		}
		s.png = b
	}
	return Frame{No: s.no, Mat: s.frame, PNG: s.png}, nil
}

// PhotoName is the photo field of a ruling judged on frame n ("frame:N", DESIGN.md).
func PhotoName(n int) string { return fmt.Sprintf("frame:%d", n) }

// Run watches src until it ends, ctx is cancelled, or announcements (nil: none) end in a way
// that leaves nothing to do. Rulings are recorded as they are made; the Result holds them all.
// The returned error is nil for a normal end (file ended, cancelled: Result.Interrupted); a
// camera that stopped is reported in Result.End and as an error wrapping ErrSourceStopped.
func Run(ctx context.Context, cfg Config, src Source, ref Referee, announcements io.Reader) (*Result, error) {
	if len(cfg.Players) == 0 {
		return nil, errors.New("watch: no players")
	}
	if cfg.Analyzer.Width == 0 {
		cfg.Analyzer = DefaultAnalyzerConfig()
	}
	if cfg.Detector.StillFor == 0 {
		cfg.Detector = DefaultDetectorConfig()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	c := newController(cfg, ref)
	if err := c.replay(cfg.Resume); err != nil {
		c.finish(true)
		return nil, err
	}
	settles := make(chan settled, 4)
	anns := make(chan Announcement, 16)
	annDone := make(chan struct{})
	capDone := make(chan captureEnd, 1)
	// The controller asks the capture to take the next settled sheet even if it never left
	// the table (a frame refused because something covered the sheet).
	rearm := make(chan struct{}, 1)
	c.rearm = func() {
		select {
		case rearm <- struct{}{}:
		default:
		}
	}
	// A video file read as fast as it decodes waits for each taken frame to be dealt with
	// before it reads on, as if judging took no time: what is taken does not depend on the
	// machine's speed, and a re-arm applies to the frames right after the refused one.
	var ack chan struct{}
	if !cfg.Realtime && !src.Live() {
		ack = make(chan struct{}, 1)
	}

	if announcements != nil {
		go readAnnouncements(ctx, announcements, anns, annDone, cfg.Log)
	} else {
		close(annDone)
	}
	go func() { capDone <- capture(ctx, cfg, src, settles, rearm, ack) }()
	if cfg.Commands != nil {
		go func() {
			for {
				select {
				case line := <-cfg.Commands:
					if a, ok := parseLine(line, cfg.Log); ok {
						select {
						case anns <- a:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	var end captureEnd
	capturing := true
	annOpen := announcements != nil
	var grace <-chan time.Time
	for capturing || len(settles) > 0 {
		select {
		case s := <-settles:
			if parent.Err() != nil {
				s.close() // interrupted: frames still queued are not judged
				continue
			}
			c.onFrame(s)
			if ack != nil && (s.kind == settleTaken || s.kind == settleConfirm) {
				ack <- struct{}{}
			}
		case a := <-anns:
			c.onAnnouncement(a)
		case <-annDone:
			annDone = nil
			annOpen = false
		case end = <-capDone:
			capturing = false
		}
	}
	// The source ended: judge what is left, waiting a little for late announcements.
	if annOpen && c.waiting() {
		grace = time.After(cfg.Grace)
	waitLate:
		for c.waiting() {
			select {
			case a := <-anns:
				c.onAnnouncement(a)
			case <-annDone:
				break waitLate
			case <-grace:
				break waitLate
			case <-ctx.Done():
				break waitLate
			}
		}
	}
	// Drain announcements already read (last-ditch efforts need no frame).
	for {
		select {
		case a := <-anns:
			c.onAnnouncement(a)
			continue
		default:
		}
		break
	}
	interrupted := parent.Err() != nil
	c.finish(interrupted)
	res := c.result()
	res.Frames, res.End, res.Interrupted = end.frames, end.reason, interrupted
	if !interrupted {
		c.logf("%s", end.reason)
	}
	return res, end.err
}

// ErrSourceStopped means a camera stopped delivering frames (unplugged?) mid-session.
var ErrSourceStopped = errors.New("camera stopped delivering frames")

type captureEnd struct {
	frames int
	reason string
	err    error
}

// capture reads, analyses and detects on its own goroutine (gocv's VideoCapture is not safe
// to share), sending each settled frame (a clone the receiver closes) to settles. A message
// on rearm re-arms the detector (Detector.Rearm). With ack not nil, each taken frame waits
// for a message on ack (the receiver dealt with it) before the next frame is read.
func capture(ctx context.Context, cfg Config, src Source, settles chan<- settled, rearm <-chan struct{}, ack <-chan struct{}) captureEnd {
	// One OS thread for the capture device and HighGUI's window.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	an := NewAnalyzer(cfg.Analyzer)
	defer an.Close()
	det := NewDetector(cfg.Detector)
	frame := gocv.NewMat()
	defer frame.Close()
	// cand is the first frame of the current still run: the frame taken if it lasts.
	cand := gocv.NewMat()
	defer func() { cand.Close() }()
	var candNo int
	var candAt time.Time
	// prev is the previous frame while the sheet settles: with the frame taken, the still
	// run's last two frames, on which a fresh sheet is read again (settled.more).
	prev := gocv.NewMat()
	defer func() { prev.Close() }()
	prevNo := -1
	fps := src.FPS()
	if fps <= 0 || fps > 240 {
		fps = 30
	}
	start := cfg.Now()
	n := 0
	for {
		if ctx.Err() != nil {
			return captureEnd{frames: n, reason: fmt.Sprintf("%s: stopped after %s", src.Name(), count(n, "frame", "frames"))}
		}
		if !src.Read(&frame) {
			if n == 0 {
				return captureEnd{frames: n, reason: fmt.Sprintf("%s: no frame could be read", src.Name()),
					err: fmt.Errorf("%s: no frame could be read: %w", src.Name(), ErrSourceMissing)}
			}
			if src.Live() {
				return captureEnd{frames: n, reason: fmt.Sprintf("%s: stopped delivering frames after %s (unplugged?)", src.Name(), count(n, "frame", "frames")),
					err: fmt.Errorf("%s after %s: %w", src.Name(), count(n, "frame", "frames"), ErrSourceStopped)}
			}
			return captureEnd{frames: n, reason: fmt.Sprintf("%s: ended after %s", src.Name(), count(n, "frame", "frames"))}
		}
		readAt := cfg.Now()
		no := n + cfg.FirstFrame
		n++
		if cfg.Realtime && !src.Live() {
			if d := start.Add(time.Duration(float64(n-1) / fps * float64(time.Second))).Sub(readAt); d > 0 {
				time.Sleep(d)
				readAt = cfg.Now()
			}
		}
		if frame.Type() != gocv.MatTypeCV8UC3 {
			continue
		}
		t := time.Duration(float64(n-1) / fps * float64(time.Second))
		if ft, ok := src.(FrameTimer); ok {
			t = ft.FrameTime()
		} else if src.Live() {
			t = readAt.Sub(start)
		}
		st, err := an.Analyze(frame)
		if err != nil {
			continue
		}
		select {
		case <-rearm:
			det.Rearm()
		default:
		}
		before := det.Phase()
		taken := det.Update(t, st)
		after := det.Phase()
		send := func(s settled) {
			select {
			case settles <- s:
			case <-ctx.Done():
				s.close()
				return
			}
			if ack != nil && (s.kind == settleTaken || s.kind == settleConfirm) {
				select {
				case <-ack:
				case <-ctx.Done():
				}
			}
		}
		if before != Settling && (after == Settling || taken) {
			// The sheet stopped moving in this frame: the frame taken if it stays still.
			cand.Close()
			cand, candNo, candAt = frame.Clone(), no, readAt
			if cfg.Speculate {
				send(settled{kind: settleCandidate, no: no, frame: cand.Clone(), readAt: readAt})
			}
		}
		switch {
		case taken:
			an.SetReference()
			var more []stillFrame
			if prevNo > candNo && prevNo < no && !prev.Empty() {
				more = append(more, stillFrame{no: prevNo, frame: prev.Clone()})
			}
			if no > candNo {
				more = append(more, stillFrame{no: no, frame: frame.Clone()})
			}
			if cfg.Speculate {
				send(settled{kind: settleConfirm, no: candNo, frame: gocv.NewMat(), readAt: candAt, more: more})
				cand.Close()
			} else {
				send(settled{kind: settleTaken, no: candNo, frame: cand, readAt: candAt, more: more})
			}
			cand = gocv.NewMat()
		case before == Settling && after != Settling && cfg.Speculate:
			send(settled{kind: settleAbort, no: candNo, frame: gocv.NewMat(), readAt: candAt})
		}
		if det.Phase() == Settling {
			prev.Close()
			prev, prevNo = frame.Clone(), no
		} else {
			prevNo = -1
		}
		if cfg.OnFrame != nil && !cfg.OnFrame(no, frame, det.Phase(), st) {
			return captureEnd{frames: n, reason: fmt.Sprintf("%s: stopped by the user after %s", src.Name(), count(n, "frame", "frames"))}
		}
	}
}

// readAnnouncements parses lines from r into anns until EOF, then closes done.
func readAnnouncements(ctx context.Context, r io.Reader, anns chan<- Announcement, done chan<- struct{}, log io.Writer) {
	defer close(done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		a, ok := parseLine(sc.Text(), log)
		if !ok {
			continue
		}
		select {
		case anns <- a:
		case <-ctx.Done():
			return
		}
	}
}

// parseLine parses one GM line; a bad one is said in one line on log.
func parseLine(line string, log io.Writer) (Announcement, bool) {
	a, err := ParseAnnouncement(line)
	if errors.Is(err, ErrEmptyLine) {
		return a, false
	}
	if err != nil {
		fmt.Fprintf(log, "tearcam watch: %v\n", err)
		return a, false
	}
	return a, true
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// encodePNG encodes frame losslessly: the recorded photo is exactly the frame judged, so
// `tearcam audit` on the recorded photos sees the same pixels.
func encodePNG(frame gocv.Mat) ([]byte, error) {
	buf, err := gocv.IMEncodeWithParams(gocv.PNGFileExt, frame, []int{gocv.IMWritePngCompression, 1})
	if err != nil {
		return nil, fmt.Errorf("encode frame: %w", err)
	}
	defer buf.Close()
	return append([]byte(nil), buf.GetBytes()...), nil
}
