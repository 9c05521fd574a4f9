package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/session"
	"tearcam/store"
	"tearcam/template"
	"tearcam/watch"
)

// watchOptions holds the parsed flags of `tearcam watch`.
type watchOptions struct {
	IO *IO

	Source    string
	Session   string
	JSON      string
	DB        string
	Display   bool
	HTTP      string
	Players   []string
	Skills    []string
	Paper     string
	Template  string
	Annotate  string
	Still     time.Duration
	Grace     time.Duration
	Realtime  bool
	Speculate bool
	Resume    bool
	// NoDeferReread runs the OCR re-read of each tear's frame before its ruling is printed,
	// as audit does (tests: the latency before and after deferring it).
	NoDeferReread bool

	// NewPipeline starts the vision and OCR (a fake in tests).
	NewPipeline func() (pipeline, error)
	// Ready, if set, is called with the HTTP server's address once it listens (tests).
	Ready func(addr string)
	// Result, if set, receives the session's result (tests), Timings the time spent in
	// each judging step.
	Result  func(*watch.Result)
	Timings func(map[string]time.Duration)
}

func newWatchCmd(iostreams *IO, runF func(*watchOptions) error) *cobra.Command {
	opts := &watchOptions{IO: iostreams, NewPipeline: newCVPipeline}
	cmd := &cobra.Command{
		Use:   "watch --source 0|/dev/videoN|FILE [--session SESSION.yaml | --player NAME --skills A,B,... ...]",
		Short: "Rule tears live through a camera (or a video file)",
		Long: `Read frames from a camera or a video file, take the first sheet that lies still on the
table as the fresh sheet and, each time the sheet has left the table (or been covered by hands)
and settled again, rule the tear the GM announced on it. Each ruling is printed as one line.

The GM announces tears on stdin, one per line:
  use SKILL | damage SKILL | penalty [SKILL] | last-ditch hit|miss | sheet NAME
optionally prefixed by "NAME:" when several players share the table. With --session, the tears
come from the manifest (DESIGN.md, without photos) in order instead.

Each ruling is committed to the session database (--db; the frames are kept as PNG files in a
folder beside it, with an audit manifest) before it is printed. A --db that already holds a
watch of the session (watch was killed, say) is refused; --resume continues it: the frames
recorded are taken again, then the source's.

Exit status: 0 when the source ended and the rulings were written (whatever they say), 2 for
bad usage or a bad manifest, 1 for anything else. Ctrl-C stops watching with exit status 1 and
one line: how many rulings were made and kept, and what was left not ruled.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWatch(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Source, "source", "", "`SOURCE` to watch: a camera number, /dev/videoN, or a video file")
	f.StringVar(&opts.Session, "session", "", "session manifest `FILE` without photos: players, skills and tears in order")
	f.StringVar(&opts.JSON, "json", "", "write the rulings document to `FILE`, rewritten after each ruling (- for stdout, once at the end)")
	f.StringVar(&opts.DB, "db", "", "session database `FILE` (default tearcam.db next to the --session manifest, or in the working folder); the frames judged are kept beside it")
	f.BoolVar(&opts.Display, "display", false, "show the live view and the last ruling in a window")
	f.StringVar(&opts.HTTP, "http", "", "serve a page with the live view and the rulings on `ADDR`, e.g. :8080")
	f.StringArrayVar(&opts.Players, "player", nil, "a player's `NAME` (repeat for each player, each with --skills)")
	f.StringArrayVar(&opts.Skills, "skills", nil, "a player's `SKILLS` (six in the game), comma-separated: \"A,B,C,D,E,F\"")
	f.StringVar(&opts.Paper, "paper", "a4", "paper size without --session: a4, letter or WxH in mm")
	f.StringVar(&opts.Template, "template", "default", "template JSON `FILE` without --session, or default: a 38.1 x 25.4 mm rectangle")
	f.StringVar(&opts.Annotate, "annotate", "", "write each ruling's annotated image into `DIR`")
	f.DurationVar(&opts.Still, "still", watch.DefaultDetectorConfig().StillFor, "how long the sheet must lie still before it is taken")
	f.BoolVar(&opts.Speculate, "speculate", true, "start judging a tear as soon as the sheet stops moving (the ruling is reported once it lay still; --speculate=false waits)")
	f.BoolVar(&opts.Realtime, "realtime", false, "play a video file at its frame rate, as a camera delivers frames")
	f.BoolVar(&opts.Resume, "resume", false, "continue the watch of this session that --db already holds (after a crash): its recorded frames are taken again, then the source")
	f.DurationVar(&opts.Grace, "grace", 2*time.Second, "after the source ends, how long to wait for announcements still to come")
	refuseRepeats(f) // a second --json (or any single-value flag) is refused, as judge does
	return cmd
}

// sourceInput is --source as an input file: a video file (or device) that exists, not a
// camera number.
func (o *watchOptions) sourceInput() []namedPath {
	if _, err := os.Stat(o.Source); err != nil {
		return nil
	}
	return []namedPath{{"the --source video", o.Source}}
}

// framesRoot is the folder beside the database that holds the frames judged.
func framesRoot(dbPath string) string {
	return strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + "-frames"
}

// watchPlan is what the flags or the manifest say the camera will see.
type watchPlan struct {
	Paper    template.Paper
	Template template.Template
	Players  []watch.Player
	Scripted bool
	Name     string // the session's name in its folder
	// Inputs are the files watch reads (the video file, the plan, the template file), which
	// no output may be.
	Inputs []namedPath
}

func (o *watchOptions) plan() (*watchPlan, error) {
	if o.Source == "" {
		return nil, usageErrorf("watch: --source is required (a camera number, /dev/videoN or a video file)")
	}
	if o.Still <= 0 {
		// 0 would take a sheet still for no time at all (and was silently read as the default).
		return nil, usageErrorf("watch: --still %v: want a positive duration, e.g. 400ms", o.Still)
	}
	if o.Grace < 0 {
		return nil, usageErrorf("watch: --grace %v: want a duration of 0 or more, e.g. 2s", o.Grace)
	}
	if o.Session != "" {
		if len(o.Players) > 0 || len(o.Skills) > 0 {
			return nil, usageErrorf("watch: --session and --player/--skills cannot be used together")
		}
		m, err := session.Load(o.Session, session.Plan)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		pl := &watchPlan{Paper: m.Paper, Template: m.Template, Scripted: true,
			Name:   strings.TrimSuffix(filepath.Base(o.Session), filepath.Ext(o.Session)),
			Inputs: append(o.sourceInput(), manifestInputs(m)...)}
		for _, p := range m.Players {
			if len(p.Skills) == 0 {
				return nil, usageErrorf("watch: %s: player %s declares no skills", o.Session, p.Name)
			}
			wp := watch.Player{Name: p.Name, Skills: p.Skills}
			for _, t := range p.Tears {
				wp.Tears = append(wp.Tears, t.Tear)
			}
			pl.Players = append(pl.Players, wp)
		}
		return pl, nil
	}
	if len(o.Players) == 0 && len(o.Skills) == 1 {
		o.Players = []string{"player"}
	}
	if len(o.Players) == 0 {
		return nil, usageErrorf("watch: say who plays: --session SESSION.yaml, or --player NAME --skills \"A,B,C,D,E,F\" per player")
	}
	if len(o.Players) != len(o.Skills) {
		return nil, usageErrorf("watch: %d --player but %d --skills: give --skills once per player", len(o.Players), len(o.Skills))
	}
	paper, err := template.ParsePaper(o.Paper)
	if err != nil {
		return nil, usageErrorf("watch: --paper: %w", err)
	}
	tmpl, err := template.Load(o.Template)
	if err != nil {
		return nil, usageErrorf("watch: --template: %w", err)
	}
	pl := &watchPlan{Paper: paper, Template: tmpl, Name: "watch", Inputs: o.sourceInput()}
	if o.Template != "default" {
		pl.Inputs = append(pl.Inputs, namedPath{"the template", o.Template})
	}
	seen := map[string]bool{}
	for i, name := range o.Players {
		name = session.Name(name)
		if name == "" || seen[strings.ToLower(name)] {
			return nil, usageErrorf("watch: --player %q: names must be given and distinct", o.Players[i])
		}
		seen[strings.ToLower(name)] = true
		skills, err := skillList("watch: --skills (for "+name+")", o.Skills[i])
		if err != nil {
			return nil, err
		}
		pl.Players = append(pl.Players, watch.Player{Name: name, Skills: skills})
	}
	return pl, nil
}

func runWatch(ctx context.Context, opts *watchOptions) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C (or SIGTERM) from the start stops the session the same way whenever it comes:
	// the rulings made are kept, nothing is ruled for what was in progress, exit status 1.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	pl, err := opts.plan()
	if err != nil {
		return err
	}
	errOut := opts.IO.ErrOut
	for _, p := range pl.Players {
		warnUnreadableSkills(errOut, p.Name, p.Skills)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(errOut, "tearcam watch: "+format+"\n", a...) }

	// A regular --json file holds the rulings so far at every moment; a device or a FIFO
	// (its reader takes one document) gets the rulings once, at the end.
	jsonSoFar := opts.JSON != "" && opts.JSON != "-" && !isSpecialFile(opts.JSON)
	// No output may be an input (as audit's): --json over the video or the plan destroyed it.
	outputs := func(db string) []namedPath {
		var outs []namedPath
		if db != "" {
			outs = append(outs, namedPath{"the frames folder", framesRoot(db)})
		}
		return append(outs, namedPath{"--db", db}, namedPath{"--json", opts.JSON})
	}
	if err := checkDistinct("watch", pl.Inputs, outputs(opts.DB)); err != nil {
		return err
	}
	// An output watch cannot write is an error (exit 1) before watching, as it always was.
	if err := checkOutputFile("--json", opts.JSON); err != nil {
		return errors.Unwrap(err)
	}
	if opts.DB != "" {
		if err := checkDBFile("--db", opts.DB); err != nil {
			return errors.Unwrap(err)
		}
	}
	opened, err := watch.OpenSource(opts.Source)
	if errors.Is(err, fs.ErrNotExist) {
		// A video file that is not there is bad usage, as a missing photo is for judge.
		return &UsageError{Err: err}
	} else if err != nil {
		return err
	}
	// A file FFmpeg opens but cannot decode (a photo of text, a truncated video) fails here,
	// in one line, before anything else is said or started.
	src, err := peekSource(opened)
	if err != nil {
		opened.Close()
		return err
	}
	defer src.Close()

	// The session database and, beside it, the folder of the frames judged.
	start := time.Now().UTC()
	dbPath := opts.DB
	if dbPath == "" {
		// As audit's: every ruling is kept, so a session watched live can be audited later
		// (beside the --session manifest, or in the working folder).
		dir := "."
		if opts.Session != "" {
			dir = filepath.Dir(opts.Session)
		}
		if dbPath, err = defaultDB(opts.IO, dir); err != nil {
			return err
		}
		if err := checkDistinct("watch", pl.Inputs, outputs(dbPath)); err != nil {
			return err
		}
	}
	framesDir := filepath.Join(framesRoot(dbPath), pl.Name+"-"+start.Format("20060102T150405Z"))
	// A watch of this session the database already holds (killed, say): a new one would take
	// the torn sheet for a fresh one. It is continued (--resume) or refused.
	earlier, err := earlierWatch(framesRoot(dbPath), pl)
	if err != nil {
		return err
	}
	var resume []watch.Replayed
	firstFrame := 0
	switch {
	case earlier != nil && !opts.Resume:
		return usageErrorf("watch: %s already holds a watch of this session (%s: %s); a new one would take the torn sheet for a fresh one: add --resume to continue it, or give another --db to start anew with an untorn sheet",
			dbPath, filepath.Dir(earlier.File), earlierSummary(earlier))
	case earlier == nil && opts.Resume:
		return usageErrorf("watch: --resume: %s holds no watch of this session to continue (%s)", dbPath, filepath.Join(framesRoot(dbPath), pl.Name+"-*"))
	case earlier != nil:
		if resume, firstFrame, err = replayOf(earlier, pl); err != nil {
			return err
		}
		framesDir = filepath.Dir(earlier.File)
		logf("resuming the watch recorded in %s (%s): its frames are taken again, then the source's, numbered from %d", framesDir, earlierSummary(earlier), firstFrame)
	}
	if jsonSoFar && resume == nil {
		// Fail before watching if the rulings cannot be written.
		empty := make([]judge.PlayerRulings, len(pl.Players))
		for i, p := range pl.Players {
			empty[i] = judge.PlayerRulings{Name: p.Name}
		}
		if err := writeJSONFile(opts.JSON, judge.NewRulings(pl.Paper.Name, pl.Template, empty)); err != nil {
			return err
		}
	}
	db, err := openDB(dbFlag(opts.DB), dbPath)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	pipe, err := opts.NewPipeline()
	if err != nil {
		return err
	}
	defer pipe.Close()
	manifestPath := filepath.Join(framesDir, "session.yaml")
	ref := &referee.Referee{Eye: pipe, Reader: pipe, DB: db, Session: store.SessionName(manifestPath, dbPath),
		Command: "watch", Versions: versions(), GMAdvice: watchGMAdvice(len(pl.Players) > 1, opts.HTTP != "")}
	aref, err := watch.NewAuditReferee(ctx, ref, framesDir, pl.Paper, pl.Template, pl.Players)
	if err != nil {
		return err
	}
	defer aref.Close()
	// Each ruling is printed before the OCR re-read of its frame, which amends it after.
	aref.DeferReread = !opts.NoDeferReread

	cfg := watch.Config{Players: pl.Players, Scripted: pl.Scripted, Paper: pl.Paper, Template: pl.Template,
		Analyzer: watch.DefaultAnalyzerConfig(), Detector: watch.DefaultDetectorConfig(), Grace: opts.Grace, Log: errOut, Realtime: opts.Realtime,
		Speculate: opts.Speculate}
	cfg.Detector.StillFor = opts.Still
	cfg.Resume, cfg.FirstFrame = resume, firstFrame

	// What people see: the page, the window.
	var page *watch.Page
	if opts.HTTP != "" {
		ln, err := net.Listen("tcp", opts.HTTP)
		if err != nil {
			return usageErrorf("watch: --http %s: %w", opts.HTTP, err)
		}
		page = watch.NewPage()
		defer page.Close()
		cfg.Commands = page.Commands()
		srv := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		logf("serving the live page on http://%s/", ln.Addr())
		if opts.Ready != nil {
			opts.Ready(ln.Addr().String())
		}
	}
	var disp *watch.Display
	if opts.Display {
		if disp, err = watch.NewDisplay(); err != nil {
			logf("--display ignored: %v", err)
			disp = nil
		} else {
			defer disp.Close()
		}
	}
	cfg.OnFrame = func(n int, f gocv.Mat, phase watch.Phase, _ watch.Stats) bool {
		if page != nil {
			page.SetFrame(n, f)
		}
		if disp != nil {
			return disp.Show(f, phase)
		}
		return true
	}

	rulingsOut := opts.IO.Out
	if opts.JSON == "-" {
		rulingsOut = errOut
	}
	var jsonErr error
	writeAnnotated := func(name string, e watch.Event) {
		if opts.Annotate != "" && len(e.Annotated) > 0 {
			if err := os.MkdirAll(opts.Annotate, 0o755); err == nil {
				path := filepath.Join(opts.Annotate, fmt.Sprintf("%s-%d.jpg", safeName(name), e.Ruling.Index))
				if err := os.WriteFile(path, e.Annotated, 0o644); err != nil {
					logf("%v", err)
				}
			}
		}
	}
	cfg.OnEvent = func(e watch.Event) {
		if page != nil {
			page.Update(e)
		}
		if e.Ruling == nil {
			if e.Fresh != nil && jsonSoFar {
				// The sheet taken is in the document at once: an interrupted or tearless watch
				// must not leave it "not found" after saying it was taken.
				if err := writeJSONFile(opts.JSON, e.Rulings); err != nil && jsonErr == nil {
					jsonErr = err
					logf("%v", err)
				}
			}
			return
		}
		name := pl.Players[e.Player].Name
		// The referee committed the ruling to the database before returning it: now report.
		if jsonSoFar {
			if err := writeJSONFile(opts.JSON, e.Rulings); err != nil && jsonErr == nil {
				jsonErr = err
				logf("%v", err)
			}
		}
		if e.Amended {
			// The OCR re-read, done after the ruling was printed, amended it.
			if disp != nil {
				disp.SetRuling(name, *e.Ruling)
			}
			writeAnnotated(name, e)
			fmt.Fprintln(rulingsOut, amendedLine(name, *e.Before, *e.Ruling))
			return
		}
		if e.GM {
			// The GM's ruling on a tear already printed: what it changes, then the later
			// tears whose state follows it.
			if disp != nil {
				disp.SetRuling(name, *e.Ruling)
			}
			fmt.Fprintln(rulingsOut, gmRulingLine(name, *e.Ruling))
			for _, r := range e.Reruled {
				fmt.Fprintln(rulingsOut, rulingLine(name, r)+" (re-ruled after the GM's ruling on tear "+strconv.Itoa(e.Ruling.Index)+")")
			}
			return
		}
		writeAnnotated(name, e)
		if disp != nil {
			disp.SetRuling(name, *e.Ruling)
		}
		fmt.Fprintln(rulingsOut, rulingLine(name, *e.Ruling))
		if e.Latency > 0 {
			logf("%s tear %d ruled %.2f s after the sheet stopped moving (%.2f s judging)", name, e.Ruling.Index, e.Latency.Seconds(), e.Compute.Seconds())
		}
	}

	logf("watching %s (%s; frames and manifest in %s)", src.Name(), count(len(pl.Players), "player", "players"), framesDir)
	res, runErr := watch.Run(ctx, cfg, src, aref, opts.IO.In)
	if res == nil {
		return runErr
	}
	if opts.Result != nil {
		opts.Result(res)
	}
	if opts.Timings != nil {
		opts.Timings(aref.Timings())
	}
	n := res.Ruled // the tears never seen are listed but not kept: nothing was judged
	if res.Interrupted {
		// As audit's: the rulings reported are committed; no document is written at the end
		// (a regular --json file holds the rulings made, written as each was made).
		kept := ""
		if jsonSoFar {
			kept = fmt.Sprintf(" and %s holds them", opts.JSON)
		}
		// One line (README): watch.Run logged nothing of the interruption.
		notRuled := ""
		if len(res.NotRuled) > 0 {
			notRuled = "; not ruled: " + strings.Join(res.NotRuled, ", ")
		}
		return fmt.Errorf("watch: interrupted after %s of %s: %s made and kept in %s (frames: %s)%s%s",
			count(res.Frames, "frame", "frames"), src.Name(), count(n, "ruling", "rulings"), dbPath, framesDir, kept, notRuled)
	}
	if opts.DB != "" {
		logf("%s kept in %s (frames: %s)", count(n, "ruling", "rulings"), opts.DB, framesDir)
	}
	switch {
	case opts.JSON == "-":
		b, err := json.MarshalIndent(res.Rulings, "", "  ")
		if err != nil {
			return err
		}
		opts.IO.Out.Write(append(b, '\n'))
	case opts.JSON != "":
		if err := writeJSONFile(opts.JSON, res.Rulings); err != nil {
			return err
		}
	}
	if runErr != nil {
		return fmt.Errorf("watch: %w; %s kept", runErr, count(n, "ruling", "rulings"))
	}
	return jsonErr
}

// gmRulingLine is the one line printed when the GM rules on a tear: "Ann tear 3: undecided →
// GM ruled faux_pas (no_full_letter); letters left: ...", with the state that follows it.
func gmRulingLine(player string, r judge.TearRuling) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s tear %d: %s", player, r.Index, judge.GMLine(r))
	stateSuffix(&b, r)
	return b.String()
}

// amendedLine is the one line printed when the OCR re-read of a tear's frame, done after its
// ruling was printed (was), amends it (r): "Ann tear 2, amended after the OCR re-read (was
// valid): ..." with the whole ruling when it changed what was ruled, else "Ann tear 2, after
// the OCR re-read: NOTES; the ruling stands". (Not "Ann tear 2: ", which starts a ruling's
// line: one such line per ruling.)
func amendedLine(player string, was, r judge.TearRuling) string {
	var notes []string
	for _, n := range r.Notes {
		if !slices.Contains(was.Notes, n) {
			notes = append(notes, strings.TrimPrefix(n, "ocr re-read: "))
		}
	}
	line := rulingLine(player, r)
	if rulingLine(player, was) != line || len(notes) == 0 {
		return fmt.Sprintf("%s tear %d, amended after the OCR re-read (was %s): %s", player, r.Index, verdictText(was),
			strings.TrimPrefix(line, fmt.Sprintf("%s tear %d: ", player, r.Index)))
	}
	return fmt.Sprintf("%s tear %d, after the OCR re-read: %s; the ruling stands", player, r.Index, strings.Join(notes, "; "))
}

// verdictText is a ruling's verdict and faults: "faux_pas [no_full_letter]".
func verdictText(r judge.TearRuling) string {
	s := string(r.Verdict)
	if len(r.Faults) > 0 {
		fs := make([]string, len(r.Faults))
		for i, f := range r.Faults {
			fs[i] = string(f)
		}
		s += " [" + strings.Join(fs, ", ") + "]"
	}
	return s
}

// rulingLine is the one line printed for a ruling.
func rulingLine(player string, r judge.TearRuling) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s tear %d: %s", player, r.Index, r.Kind)
	if r.Skill != "" {
		fmt.Fprintf(&b, " %s", r.Skill)
	}
	if r.Photo != "" {
		fmt.Fprintf(&b, " (%s)", r.Photo)
	}
	fmt.Fprintf(&b, ": %s", r.Verdict)
	if len(r.Faults) > 0 {
		fs := make([]string, len(r.Faults))
		for i, f := range r.Faults {
			fs[i] = string(f)
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(fs, ", "))
	}
	if r.UndecidedReason != "" {
		fmt.Fprintf(&b, " (%s)", r.UndecidedReason)
	}
	if r.Hit != nil {
		// As audit's table says it: "last_ditch: valid" alone did not say which (a tester).
		if *r.Hit {
			b.WriteString("; the ball hit the GM")
		} else {
			b.WriteString("; the ball missed the GM")
		}
	}
	if r.GMRuling != nil {
		fmt.Fprintf(&b, "; %s", judge.GMLine(r))
	}
	stateSuffix(&b, r)
	return b.String()
}

// stateSuffix adds the character's state after ruling r: letters left, tears owed, out.
func stateSuffix(b *strings.Builder, r judge.TearRuling) {
	if len(r.Skills) > 0 {
		// The same "?" as audit's table: live, the GM is the one who most needs it.
		fmt.Fprintf(b, "; %s: %s", judge.LettersLeftLabel(r), judge.LettersLeft(r.Skills))
	}
	if r.OwedTears > 0 {
		fmt.Fprintf(b, "; tears owed: %d", r.OwedTears)
	}
	if r.Out {
		fmt.Fprintf(b, "; OUT (%s)", r.OutReason)
	}
}

// peekedSource is a watch.Source whose first frame was read ahead.
type peekedSource struct {
	watch.Source
	first   gocv.Mat
	pending bool
}

// peekSource reads src's first frame, to fail at once when there is none; the returned
// Source delivers that frame first. Closing it closes src.
func peekSource(src watch.Source) (*peekedSource, error) {
	p := &peekedSource{Source: src, first: gocv.NewMat()}
	if !src.Read(&p.first) || p.first.Empty() {
		p.first.Close()
		return nil, fmt.Errorf("watch: %s: no frame could be read (not a video or camera OpenCV can decode): %w", src.Name(), watch.ErrSourceMissing)
	}
	p.pending = true
	return p, nil
}

// Read implements watch.Source.
func (p *peekedSource) Read(m *gocv.Mat) bool {
	if p.pending {
		p.pending = false
		p.first.CopyTo(m)
		p.first.Close()
		return true
	}
	return p.Source.Read(m)
}

// Close implements watch.Source.
func (p *peekedSource) Close() error {
	if p.pending {
		p.pending = false
		p.first.Close()
	}
	return p.Source.Close()
}

var _ watch.Source = (*peekedSource)(nil)

// writeJSONFile writes the rulings document (writeOutput: atomically for a regular file).
func writeJSONFile(path string, doc judge.Rulings) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode rulings: %w", err)
	}
	b = append(b, '\n')
	return writeOutput(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// safeName makes a player's name usable in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, s)
}

var _ io.Writer = (*os.File)(nil)

// earlierWatch is the manifest of the latest watch of plan pl recorded in the frames folder
// root (root/NAME-TIME/session.yaml) that took a fresh sheet, or nil.
func earlierWatch(root string, pl *watchPlan) (*session.Manifest, error) {
	found, _ := filepath.Glob(filepath.Join(root, pl.Name+"-*", "session.yaml"))
	slices.Sort(found) // NAME-TIME: the latest last
	for i := len(found) - 1; i >= 0; i-- {
		m, err := session.Load(found[i], session.Audit)
		if err != nil {
			return nil, fmt.Errorf("watch: an earlier watch of this session cannot be read: %w", err)
		}
		if len(m.Players) > 0 {
			return m, nil
		}
	}
	return nil, nil
}

// earlierSummary says what an earlier watch recorded: "Lena's fresh sheet and 2 tears ruled".
func earlierSummary(m *session.Manifest) string {
	var parts []string
	for _, p := range m.Players {
		parts = append(parts, fmt.Sprintf("%s's fresh sheet and %s ruled", p.Name, count(len(p.Tears), "tear", "tears")))
	}
	return strings.Join(parts, ", ")
}

// replayOf is what the earlier watch m recorded, as frames to take again (watch.Config.Resume),
// and the first frame number after them. The players and skills must be the plan's, and with
// --session the tears recorded the first of the plan's.
func replayOf(m *session.Manifest, pl *watchPlan) ([]watch.Replayed, int, error) {
	var out []watch.Replayed
	next := 0
	frame := func(p int, photo string, t *judge.Tear, gm *judge.GMRuling) error {
		r := watch.Replayed{Player: p, Tear: t, GM: gm}
		if photo != "" {
			var err error
			if r.PNG, err = os.ReadFile(m.Path(photo)); err != nil {
				return fmt.Errorf("watch: --resume: %w", err)
			}
			if _, err := fmt.Sscanf(filepath.Base(photo), "frame-%d.png", &r.No); err != nil {
				return fmt.Errorf("watch: --resume: %s: not a frame watch recorded", photo)
			}
			next = max(next, r.No+1)
		}
		out = append(out, r)
		return nil
	}
	for _, mp := range m.Players {
		p := slices.IndexFunc(pl.Players, func(w watch.Player) bool { return w.Name == mp.Name })
		if p < 0 || !slices.Equal(pl.Players[p].Skills, mp.Skills) {
			return nil, 0, usageErrorf("watch: --resume: %s records %s with skills %s, not a player of this session as given", m.File, mp.Name, strings.Join(mp.Skills, ", "))
		}
		if err := frame(p, mp.Sheet, nil, nil); err != nil {
			return nil, 0, err
		}
		for k, t := range mp.Tears {
			if pl.Scripted && (k >= len(pl.Players[p].Tears) || pl.Players[p].Tears[k] != t.Tear) {
				return nil, 0, usageErrorf("watch: --resume: %s's tear %d recorded in %s (%s %s) is not the session's", mp.Name, k+1, m.File, t.Kind, t.Skill)
			}
			tear := t.Tear
			if err := frame(p, t.Photo, &tear, t.GM); err != nil {
				return nil, 0, err
			}
		}
	}
	return out, next, nil
}

// watchGMAdvice is how the GM records a ruling in watch, where an undecided reason's advice
// ends: the line to type (named by the player when several play), and the live page's form
// with --http. (audit's says gm: in the manifest.)
func watchGMAdvice(named, page bool) judge.GMAdvice {
	return func(player string, index int) string {
		who := ""
		if named {
			who = player + ": "
		}
		s := fmt.Sprintf("types the ruling on this tear: %q or %q", fmt.Sprintf("%sgm %d valid", who, index),
			fmt.Sprintf("%sgm %d faux_pas FAULT...", who, index))
		if page {
			s += ", or uses the GM's form on the live page"
		}
		return s
	}
}
