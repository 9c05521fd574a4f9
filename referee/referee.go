package referee

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"

	"tearcam/judge"
	"tearcam/report"
	"tearcam/session"
	"tearcam/store"
	"tearcam/template"
	"tearcam/vision"
)

// Sheet is a photo rectified or registered into the sheet frame. Its content is the Eye's
// business; the referee only passes it back and closes it.
type Sheet interface {
	Close() error
}

// Measured is what the Eye measured of one tear.
type Measured interface {
	Measurement() judge.Measurement
	Close() error
}

// Eye is what the referee needs of vision/. Photos are passed as the file's bytes, so that
// errors never carry a path: the referee names the file as the manifest does.
type Eye interface {
	// Fresh finds the untorn sheet in a photo and rectifies it. The caller closes the Sheet.
	Fresh(photo []byte, paper template.Paper) (Sheet, error)
	// Register registers a later photo of the sheet into fresh's frame. The caller closes it.
	Register(fresh Sheet, photo []byte) (Sheet, error)
	// Measure measures the tear between two registered sheets. The caller closes the result.
	Measure(before, after Sheet, layouts []judge.SkillLayout, t template.Template) (Measured, error)
	// Annotate draws a ruling on the sheet after the tear and returns it as JPEG.
	Annotate(after Sheet, m Measured, layouts []judge.SkillLayout, verdict string, lines []string) ([]byte, error)
	// Thumbnail decodes an image and re-encodes it as JPEG, its longest side at most maxSide.
	Thumbnail(image []byte, maxSide int) ([]byte, error)
}

// Filler is implemented by an Eye whose registered sheets can be partial: a photo that cut the
// sheet off leaves part of the sheet frame unknown. The referee then fills that part from the
// next tear's photo before measuring (paper only shrinks: paper a later photo shows was there).
type Filler interface {
	// Partial reports whether part of s's paper is unknown.
	Partial(s Sheet) bool
	// FillFrom fills s's unknown part where later (a later photo of the same sheet, registered
	// into the same frame) shows paper, and returns the area filled in mm².
	FillFrom(s, later Sheet) float64
}

// PhotoAnnotator is implemented by an Eye that can show a tear whose measurement was refused
// (something over the sheet, registration refused), which has no registered sheet to draw on:
// the photo itself, as wide as the annotated images of paper, under the ruling's text band,
// as JPEG.
type PhotoAnnotator interface {
	AnnotatePhoto(photo []byte, paper template.Paper, verdict string, lines []string) ([]byte, error)
}

// Rebander is implemented by an Eye that can redraw the text band of an image Annotate made
// (drawn for oldVerdict and oldLines) for another ruling on the same measurement, without
// registering the photo again: a GM's ruling given or changed since the image was drawn.
type Rebander interface {
	Reband(annotated []byte, oldVerdict string, oldLines []string, verdict string, lines []string) ([]byte, error)
}

// Keeper is implemented by an Eye that keeps the sheets it registered between audits (watch's
// cache): Kept returns photo's sheet as registered into fresh's frame and measured, when it
// is kept (the caller closes it as any Sheet). A deferred OCR re-read (DeferReread) reads it
// instead of registering and measuring the photo again.
type Keeper interface {
	Kept(fresh Sheet, photo []byte) (Sheet, bool)
}

// Word is a word found on a sheet whose skills were not declared (discovery mode).
type Word struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
}

// Reader is what the referee needs of ocr/.
type Reader interface {
	// Locate finds each declared skill's letters on the fresh sheet.
	Locate(s Sheet, skills []string) ([]judge.SkillLayout, error)
	// Discover lists the words on a fresh sheet, for the GM to confirm.
	Discover(s Sheet) ([]Word, error)
	// Reread compares a later sheet's ink with the letter states the geometry gives and
	// returns the disagreements.
	Reread(s Sheet, layouts []judge.SkillLayout, states []judge.SkillLetters) ([]string, error)
}

// MaxPhotoBytes is the largest photo file read; a phone photo is a few megabytes.
const MaxPhotoBytes = 64 << 20

// DefaultThumbSide is the longest side of the photos kept for a report, in pixels.
const DefaultThumbSide = 720

// Referee rules sessions. Eye and Reader are required; the rest is optional.
type Referee struct {
	Eye    Eye
	Reader Reader

	// DB, when set, receives every layout and ruling (committed before it is reported) and
	// supplies the measurements of unchanged tears on a re-run. Session names the session
	// (store.SessionName), Command the run ("audit").
	DB      *store.DB
	Session string
	Command string

	// Versions are stamped into every stored ruling and into the inputs' keys: a new
	// version re-measures everything.
	Versions store.Versions

	// Images keeps thumbnails of the photos and the annotated images for a report or
	// --annotate; ThumbSide bounds the thumbnails (DefaultThumbSide when 0).
	Images    bool
	ThumbSide int

	// RereadDoubts makes an OCR re-read that disagrees with the geometry a doubt (the
	// ruling is undecided) rather than a note.
	RereadDoubts bool

	// DeferReread leaves the OCR re-read of a tear it measures for later (watch: the ruling
	// is out first): the measurement is stored as pending, and the next audit without
	// DeferReread does the re-read on the re-used measurement, re-rules the tear with its
	// disagreements and stores it (Result.Pending, Result.Reread). A deferred re-read is
	// never lost: any audit of the session without the flag does it.
	DeferReread bool

	// GMAdvice, when set, says how the GM records a ruling at the end of an undecided
	// reason's advice (judge.Character.SetGMAdvice; default: gm: in the manifest).
	GMAdvice judge.GMAdvice

	// OnSheet and OnRuling are called as each fresh sheet and each ruling is done (and
	// committed): for progress and streamed output.
	OnSheet  func(player string, s judge.SheetResult, words []Word)
	OnRuling func(player string, r judge.TearRuling, reused bool)
}

// Result is a whole audit: the rulings document and, with Images, the pictures for a report.
type Result struct {
	Rulings judge.Rulings
	Players []PlayerImages
	Reused  int // rulings whose measurement was re-used from the database
	// Pending counts the measured tears whose OCR re-read was deferred (DeferReread) and is
	// not done yet; Reread the deferred re-reads this audit did.
	Pending, Reread int
	// BadPhotos are the photos that could not be used as photos at all (not an image, a file
	// that cannot be read), one line each naming the file and the tears ruled undecided for
	// it, for the caller to print on stderr (DESIGN.md: errors are one line naming the file;
	// the tear is ruled undecided and every other ruling comes out). A photo the manifest
	// names that does not exist is not among them (session.Manifest.Missing).
	BadPhotos []string
}

// PlayerImages are one player's pictures and discovered words.
type PlayerImages struct {
	Name  string
	Words []Word // discovery mode: the words found on the sheet
	Sheet []byte // thumbnail of the untorn sheet's photo (JPEG)
	Tears []TearImages
}

// TearImages are one tear's pictures (JPEG); nil where there is none.
type TearImages struct {
	Before    []byte // thumbnail of the photo the tear was measured against
	After     []byte // thumbnail of the tear's photo
	Annotated []byte // the ruling drawn on the registered sheet, full size
	Thumb     []byte // Annotated shrunk for a report
}

// Page is the audit as a report page.
func (r *Result) Page(title, version string) report.Page {
	p := report.Page{Title: title, Version: version, Rulings: r.Rulings}
	for _, pi := range r.Players {
		rp := report.Player{Sheet: pi.Sheet}
		for _, w := range pi.Words {
			rp.Words = append(rp.Words, report.Word{Text: w.Text, Confidence: w.Confidence})
		}
		for _, t := range pi.Tears {
			rp.Tears = append(rp.Tears, report.Tear{Before: t.Before, After: t.After, Annotated: t.Thumb})
		}
		p.Players = append(p.Players, rp)
	}
	return p
}

// Audit rules every player and tear of a manifest. A bad photo makes its tear undecided;
// only a failure of the database or a cancelled context is an error.
func (r *Referee) Audit(ctx context.Context, m *session.Manifest) (*Result, error) {
	var sessionID, runID int64
	if r.DB != nil {
		tj, _ := json.Marshal(m.Template)
		var err error
		sessionID, err = r.DB.PutSession(ctx, store.Session{Name: r.Session, ManifestSHA256: fileSHA(m.File),
			Paper: m.Paper.Name, TemplateJSON: string(tj)})
		if err != nil {
			return nil, err
		}
		if runID, err = r.DB.StartRun(ctx, sessionID, r.Command, r.Versions); err != nil {
			return nil, err
		}
	}
	res := &Result{}
	var players []judge.PlayerRulings
	var err error
	for i, p := range m.Players {
		pa := &playerAudit{Referee: r, m: m, p: p, pos: i + 1, sessionID: sessionID, runID: runID}
		var pr judge.PlayerRulings
		pr, err = pa.run(ctx)
		if err != nil {
			break
		}
		players = append(players, pr)
		res.Players = append(res.Players, pa.images)
		res.Reused += pa.reused
		res.Pending += pa.pending
		res.Reread += pa.rereadDone
		res.BadPhotos = append(res.BadPhotos, pa.bad...)
	}
	if r.DB != nil {
		status := "done"
		if err != nil {
			status = "failed"
		}
		if ferr := r.DB.FinishRun(context.WithoutCancel(ctx), runID, status); err == nil {
			err = ferr
		}
	}
	if err != nil {
		return nil, err
	}
	res.Rulings = judge.NewRulings(m.Paper.Name, m.Template, players)
	return res, nil
}

// playerAudit is the state of one player's audit.
type playerAudit struct {
	*Referee
	m         *session.Manifest
	p         session.Player
	pos       int
	sessionID int64
	runID     int64
	playerID  int64

	freshData []byte
	fresh     Sheet
	freshErr  error
	freshDone bool

	layouts []judge.SkillLayout
	images  PlayerImages
	reused  int
	bad     []string // Result.BadPhotos of this player
	// tearBad is why the photo of the tear being measured could not be used as a photo
	// ("" when it could): set by measure.
	tearBad string
	// rereadPending: measure deferred the OCR re-read of the tear it measured (DeferReread).
	rereadPending bool
	// pending counts the tears whose re-read is still deferred, rereadDone the deferred
	// re-reads done (Result.Pending, Result.Reread).
	pending, rereadDone int
}

// sheetRecord is what is stored as a player's layout: the located skills, or the words
// found in discovery mode, or why the sheet could not be read.
type sheetRecord struct {
	Found   bool                `json:"found"`
	Error   string              `json:"error,omitempty"`
	Layouts []judge.SkillLayout `json:"layouts"`
	Words   []Word              `json:"words,omitempty"`
	// BadPhoto: the sheet's photo could not be used as a photo at all (Error says why).
	BadPhoto bool `json:"bad_photo,omitempty"`
}

func (pa *playerAudit) run(ctx context.Context) (judge.PlayerRulings, error) {
	defer pa.closeFresh()
	p := pa.p
	pa.images = PlayerImages{Name: p.Name}
	sheetData, sheetSHA, sheetErr := pa.readPhoto(p.Sheet)
	pa.freshData = sheetData
	key := hashKey("tearcam.referee/v2", pa.Versions, pa.m.Paper, pa.m.Template, p.Skills, sheetSHA, errString(sheetErr))
	if pa.DB != nil {
		var err error
		pa.playerID, err = pa.DB.PutPlayer(ctx, store.Player{SessionID: pa.sessionID, Name: p.Name, Position: pa.pos,
			Skills: p.Skills, Sheet: store.Photo{SHA256: sheetSHA, Path: p.Sheet}, Tears: len(p.Tears)})
		if err != nil {
			return judge.PlayerRulings{}, err
		}
	}
	rec, err := pa.sheet(ctx, key, sheetErr)
	if err != nil {
		return judge.PlayerRulings{}, err
	}
	pa.layouts = rec.Layouts
	pa.images.Words = rec.Words
	if rec.BadPhoto {
		what := "all of its tears are"
		if len(p.Tears) == 1 {
			what = "its tear is"
		}
		pa.bad = append(pa.bad, fmt.Sprintf("%s (the untorn sheet of %s: %s ruled undecided)", rec.Error, p.Name, what))
	}
	sr := judge.SheetResult{Photo: p.Sheet, SHA256: sheetSHA, Found: rec.Found, Error: rec.Error, Skills: []judge.SkillResult{}}
	for _, l := range rec.Layouts {
		sr.Skills = append(sr.Skills, judge.SkillResult{Name: l.Name, Letters: judge.Letters(l.Name), Located: l.Located,
			Confidence: round(l.Confidence, 1000)})
	}
	for _, w := range rec.Words {
		sr.Words = append(sr.Words, judge.FoundWord{Text: w.Text, Confidence: round(w.Confidence, 1000)})
	}
	if len(rec.Layouts) == 0 {
		// No sheet read (missing, unreadable, not found): every declared skill, none of its
		// letters located, so a reader of the JSON sees what was declared and not found.
		for _, name := range p.Skills {
			sr.Skills = append(sr.Skills, judge.SkillResult{Name: name, Letters: judge.Letters(name)})
		}
	}
	if pa.Images && sheetData != nil {
		pa.images.Sheet, _ = pa.Eye.Thumbnail(sheetData, pa.thumbSide())
	}
	if pa.OnSheet != nil {
		pa.OnSheet(p.Name, sr, rec.Words)
	}

	c := judge.NewCharacter(p.Name, p.Skills, rec.Layouts)
	c.SetGMAdvice(pa.GMAdvice)
	out := judge.PlayerRulings{Name: p.Name, Sheet: sr, Tears: []judge.TearRuling{}}
	// good is the last good sheet, the next tear is measured against (nil: the fresh sheet).
	var good *goodSheet
	var goodThumb []byte
	// skipped are the tears since the last good sheet whose photo could not be measured:
	// paper they removed shows up in the next measurement, which cannot tell it apart.
	var skipped []int
	// shas names the photo each file (SHA-256) was first used as.
	shas := map[string]string{}
	if sheetSHA != "" {
		shas[sheetSHA] = "the untorn sheet's photo " + p.Sheet
	}
	defer func() { good.close() }()
	before := func() (Sheet, error) { return pa.rebuild(good) }
	for k, t := range p.Tears {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		index := k + 1
		var data []byte
		var sha string
		var readErr error
		if t.Photo != "" {
			data, sha, readErr = pa.readPhoto(t.Photo)
		}
		key = hashKey(key, t.Kind, t.Skill, t.Hit, t.Photo != "", sha, errString(readErr))
		tr := TearImages{}
		if pa.Images {
			tr.Before = pa.images.Sheet
			if good != nil {
				tr.Before = goodThumb
			}
			if data != nil {
				tr.After, _ = pa.Eye.Thumbnail(data, pa.thumbSide())
			}
		}
		wasOut, _ := c.Out()

		var meas judge.Measurement
		var annotated []byte
		// drawnFor is the ruling a re-used annotated image was drawn for.
		var drawnFor judge.TearRuling
		var after Sheet
		reused := false
		// pending: the measurement's OCR re-read was deferred (DeferReread) and is not done.
		pending := false
		// find re-uses the measurement stored under k, its re-read done or else pending.
		find := func(k string) (bool, error) {
			for _, pk := range []bool{false, true} {
				kk := k
				if pk {
					kk = pendingKey(k)
				}
				sr, err := pa.findRuling(ctx, index, kk, t.Photo)
				if err != nil {
					if errors.Is(err, store.ErrNotFound) {
						continue
					}
					return false, err
				}
				if m, bad, err := decodeMeasurement(sr.Measurement); err == nil {
					meas, annotated, reused, pa.tearBad, drawnFor, pending = m, sr.Annotated, true, bad, sr.Ruling, pk
					return true, nil
				}
			}
			return false, nil
		}
		if pa.DB != nil {
			if _, err := find(key); err != nil {
				return out, err
			}
		}
		var measured Measured
		if !reused {
			pa.tearBad = ""
		}
		// The next tear's photo, for a photo that cut the sheet off (Filler); its ruling is
		// stored under a key that names that photo too.
		var nextData []byte
		var nextSHA string
		nextRead := false
		next := func() []byte {
			if !nextRead && k+1 < len(p.Tears) && p.Tears[k+1].Photo != "" && p.Tears[k+1].Kind != judge.KindLastDitch {
				if d, sha, err := pa.readPhoto(p.Tears[k+1].Photo); err == nil {
					nextData, nextSHA = d, sha
				}
			}
			nextRead = true
			return nextData
		}
		// The key of a ruling on a partial sheet names the photo that filled it, or its absence.
		partialKey := func() string {
			if next() == nil {
				return hashKey(key, "partial, no next photo")
			}
			return hashKey(key, "partial, filled from the next photo", nextSHA)
		}
		partial := false
		if pa.DB != nil && !reused {
			if _, ok := pa.Eye.(Filler); ok {
				found, err := find(partialKey())
				if err != nil {
					return out, err
				}
				partial = found
			}
		}
		if reused && pending && !pa.DeferReread && meas.Refused == "" && !wasOut && data != nil {
			// The re-read deferred when this measurement was made (DeferReread): done now,
			// on the tear's photo registered again exactly as measure registered it, and
			// its disagreements join the measurement (stored under the plain key).
			var a Sheet
			err := errors.New("not kept")
			if kp, ok := pa.Eye.(Keeper); ok {
				if f, ferr := pa.freshSheet(); ferr == nil {
					if s, ok := kp.Kept(f, data); ok {
						a, err = s, nil
					}
				}
			}
			if err != nil {
				g := &goodSheet{data: data, prev: good}
				if partial {
					g.next = next()
				}
				a, err = pa.rebuild(g)
			}
			if err == nil {
				pa.reread(a, &meas)
				pending, after = false, a
				pa.rereadDone++
			}
		}
		if !reused {
			meas, after, measured, partial = pa.measure(t, data, readErr, before, wasOut, next)
			pending = pa.rereadPending
			switch {
			case meas.Refused != "" || measured == nil || len(skipped) == 0:
			case meas.Pieces == 0:
				// No paper missing since the sheet before the unmeasured tears: neither they nor
				// this one removed any (a tester: an untorn photo after a missing one was
				// undecided, though nothing was removed at all).
				meas.Notes = append(meas.Notes, fmt.Sprintf("measured against the sheet before tear %d, whose photo could not be measured: "+
					"no paper is missing since then, so that tear removed none either", skipped[0]))
			default:
				// Structured: what this tear removed is in doubt, but the letters left after it
				// are measured (judge applies them; a letter torn off is gone either way).
				meas.Uncertain = append(meas.Uncertain, judge.Doubt{About: judge.AboutRemoved,
					Text: fmt.Sprintf("measured against the sheet before tear %d, whose photo could not be measured: "+
						"the paper removed by that tear cannot be told apart from this one's", skipped[0])})
			}
		}
		ruling := c.RuleGM(index, t.Tear, meas, t.GM)
		ruling.Photo, ruling.SHA256 = t.Photo, sha
		if sha != "" {
			// The same file twice: a photo taken once and named again, not a new picture of
			// the sheet (a tester: the second tear was ruled nothing_removed without a word).
			if prev, ok := shas[sha]; ok {
				ruling.Notes = append(ruling.Notes, fmt.Sprintf("%s is the same file as %s (SHA-256 %s…): the same picture, not a new one of the sheet", t.Photo, prev, sha[:12]))
			} else {
				shas[sha] = fmt.Sprintf("tear %d's photo %s", index, t.Photo)
			}
		}
		ruling.RemovedAreaMM2 = round(ruling.RemovedAreaMM2, 10)
		if len(p.Skills) == 0 && t.Kind != judge.KindLastDitch && !wasOut {
			ruling.UndecidedReason = discoveryReason(p.Name, rec)
		}
		if !reused && after != nil && measured != nil && (pa.Images || pa.DB != nil) {
			annotated, _ = pa.Eye.Annotate(after, measured, pa.layouts, AnnotationVerdict(ruling), AnnotationLines(ruling))
		}
		// A re-used ruling re-ruled differently (a GM's ruling given or changed): the image
		// shows the ruling that stands. A refused photo's image is only the photo under the
		// ruling's text, cheap to draw again; a measured tear's keeps its picture and gets
		// the new text band (Rebander), or none when that cannot be done (never the old text).
		changed := reused && (AnnotationVerdict(drawnFor) != AnnotationVerdict(ruling) || !slices.Equal(AnnotationLines(drawnFor), AnnotationLines(ruling)))
		redraw := !reused || (meas.Refused != "" && changed)
		if reused && redraw {
			annotated = nil
		}
		if changed && meas.Refused == "" && annotated != nil {
			var err error = errors.New("not supported")
			if rb, ok := pa.Eye.(Rebander); ok {
				var b []byte
				if b, err = rb.Reband(annotated, AnnotationVerdict(drawnFor), AnnotationLines(drawnFor), AnnotationVerdict(ruling), AnnotationLines(ruling)); err == nil {
					annotated = b
				}
			}
			if err != nil {
				annotated = nil
				ruling.Notes = append(ruling.Notes, oneLine("the annotated image drawn for tearcam's earlier ruling on this tear is not shown: its text could not be drawn again ("+err.Error()+")"))
			}
		}
		if pe, ok := pa.Eye.(PhotoAnnotator); ok && redraw && annotated == nil && meas.Refused != "" && data != nil && !wasOut && (pa.Images || pa.DB != nil) {
			// Refused: the GM sees the photo that was refused, and why.
			annotated, _ = pe.AnnotatePhoto(data, pa.m.Paper, AnnotationVerdict(ruling), AnnotationLines(ruling))
		}
		if measured != nil {
			measured.Close()
		}
		if pa.DB != nil {
			mj, err := encodeMeasurement(meas, pa.tearBad)
			if err != nil {
				return out, err
			}
			saveKey := key
			if partial {
				saveKey = partialKey()
			}
			if pending {
				saveKey = pendingKey(saveKey)
			}
			if _, err := pa.DB.SaveRuling(ctx, store.Ruling{PlayerID: pa.playerID, Index: index, Key: saveKey,
				Photo: store.Photo{SHA256: sha, Path: t.Photo}, Ruling: ruling, Measurement: mj, RunID: pa.runID,
				Annotated: annotated}); err != nil {
				if after != nil {
					after.Close()
				}
				return out, err
			}
		}
		// The sheet after a measured tear is the next tear's before.
		if t.Photo != "" && !wasOut && meas.Refused != "" {
			skipped = append(skipped, index)
		}
		if t.Photo != "" && !wasOut && meas.Refused == "" {
			next := &goodSheet{data: data, sheet: after}
			if partial {
				next.next = nextData
			}
			if after == nil {
				// Re-used: rebuilt from the chain, only if a later tear needs it.
				next.prev = good
			} else {
				good.close()
			}
			good, after, goodThumb, skipped = next, nil, tr.After, nil
		}
		if after != nil {
			after.Close()
		}
		if pa.Images {
			tr.Annotated = annotated
			if annotated != nil {
				tr.Thumb, _ = pa.Eye.Thumbnail(annotated, pa.thumbSide())
			}
			pa.images.Tears = append(pa.images.Tears, tr)
		}
		if reused {
			pa.reused++
		}
		if pending {
			pa.pending++
		}
		if pa.tearBad != "" && !wasOut {
			pa.bad = append(pa.bad, fmt.Sprintf("%s (%s's tear %d is ruled undecided)", pa.tearBad, p.Name, index))
		}
		out.Tears = append(out.Tears, ruling)
		if pa.OnRuling != nil {
			pa.OnRuling(p.Name, ruling, reused)
		}
	}
	out.Out, _ = c.Out()
	return judge.NormalizePlayer(out), nil
}

// goodSheet is a sheet a tear was measured against or will be: a tear's photo registered
// into the sheet frame and measured, so that it carries what vision keeps from one
// measurement to the next (the letter history). sheet is nil after a re-used ruling until
// rebuild makes it again.
type goodSheet struct {
	data  []byte
	sheet Sheet
	prev  *goodSheet // the sheet this one's tear was measured against (nil: the fresh sheet), while sheet is nil
	next  []byte     // the next tear's photo, when this photo cut the sheet off (Filler): it fills the unknown part
}

// close closes g's sheet and those of the chain it still holds. It is safe on nil.
func (g *goodSheet) close() {
	for ; g != nil; g = g.prev {
		if g.sheet != nil {
			g.sheet.Close()
			g.sheet = nil
		}
	}
}

// rebuild returns g's sheet (the fresh sheet for nil), making it again when its ruling was
// re-used: exactly as measure made it the first time (registered to the fresh sheet, else to
// the sheet before it) and measured against the sheet before it, so that a resumed audit
// measures the next tear against the very sheet a fresh audit would.
func (pa *playerAudit) rebuild(g *goodSheet) (Sheet, error) {
	if g == nil {
		return pa.freshSheet()
	}
	if g.sheet != nil {
		return g.sheet, nil
	}
	fresh, err := pa.freshSheet()
	if err != nil {
		return nil, err
	}
	b, err := pa.rebuild(g.prev)
	if err != nil {
		return nil, err
	}
	a, err := pa.Eye.Register(fresh, g.data)
	if err != nil {
		if b == fresh {
			return nil, err
		}
		if a, err = pa.Eye.Register(b, g.data); err != nil {
			return nil, err
		}
	}
	if g.next != nil {
		pa.fillFrom(fresh, a, g.next)
	}
	res, err := pa.Eye.Measure(b, a, pa.layouts, pa.m.Template)
	if err != nil {
		a.Close()
		return nil, err
	}
	res.Close()
	g.prev.close()
	g.sheet, g.prev = a, nil
	return a, nil
}

// fillFrom fills the unknown part of a, a photo that cut the sheet off, from the photo
// next (registered to fresh), when the Eye is a Filler and a is partial. It returns the area
// filled in mm², or -1 when nothing was tried or next could not be registered.
func (pa *playerAudit) fillFrom(fresh, a Sheet, next []byte) float64 {
	f, ok := pa.Eye.(Filler)
	if !ok || next == nil || !f.Partial(a) {
		return -1
	}
	later, err := pa.Eye.Register(fresh, next)
	if err != nil {
		return -1
	}
	defer later.Close()
	return f.FillFrom(a, later)
}

// measure registers and measures one tear's photo. It never fails: a problem becomes the
// measurement's Refused reason, naming the file. It returns the registered sheet and the
// measurement for annotation (both nil when refused); the caller closes them. A photo that
// cut the sheet off (partial) is filled from the next tear's photo (next returns nil when
// there is none) where that shows paper.
func (pa *playerAudit) measure(t session.Tear, data []byte, readErr error, before func() (Sheet, error), out bool, next func() []byte) (m judge.Measurement, after Sheet, res Measured, partial bool) {
	pa.rereadPending = false
	refuse := func(format string, a ...any) (judge.Measurement, Sheet, Measured, bool) {
		return judge.Measurement{Refused: oneLine(fmt.Sprintf(format, a...))}, nil, nil, false
	}
	switch {
	case t.Kind == judge.KindLastDitch || out:
		return judge.Measurement{}, nil, nil, false
	case readErr != nil:
		if !errors.Is(readErr, errNoPhotoFile) {
			pa.tearBad = oneLine(readErr.Error())
		}
		return refuse("%v", readErr)
	case len(pa.p.Skills) == 0:
		return refuse("no skills declared for %s", pa.p.Name)
	}
	fresh, err := pa.freshSheet()
	if err != nil {
		return refuse("the untorn sheet could not be read: %v", err)
	}
	after, err = pa.Eye.Register(fresh, data)
	var fallback string
	if err != nil {
		// A sheet that lost much of its paper may no longer match the fresh sheet well
		// enough; the last measured sheet is in the same frame and shares what is left.
		// Not when the photo's paper mask contradicts the fresh sheet's writing: that is the
		// photo's fault, and the previous sheet, with less writing left to check it by, once
		// let the same mask through (held-out seed 5 case-003 jun-2, jun-3: table called paper
		// measured as a second piece, several_pieces ruled for certain).
		if b, berr := before(); berr == nil && b != fresh && !errors.Is(err, vision.ErrPaperMask) {
			if a, aerr := pa.Eye.Register(b, data); aerr == nil {
				fallback = oneLine(fmt.Sprintf("registered to the previous measured photo (to the fresh sheet: %v)", err))
				after, err = a, nil
			}
		}
		if err != nil {
			if badImage(err) {
				pa.tearBad = oneLine(fmt.Sprintf("%s: %v", t.Photo, err))
			}
			return refuse("%s: %v%s", t.Photo, err, retakeHint(err))
		}
	}
	b, err := before()
	if err != nil {
		after.Close()
		return refuse("%s: the sheet before this tear could not be registered again: %v", t.Photo, err)
	}
	filled := -1.0
	if f, ok := pa.Eye.(Filler); ok && f.Partial(after) {
		partial = true
		if nd := next(); nd != nil {
			filled = pa.fillFrom(fresh, after, nd)
		}
	}
	res, err = pa.Eye.Measure(b, after, pa.layouts, pa.m.Template)
	if err != nil {
		after.Close()
		return refuse("%s: %v", t.Photo, err)
	}
	m = res.Measurement()
	if fallback != "" {
		m.Notes = append(m.Notes, fallback)
	}
	if filled >= 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("the photo cuts the sheet off: %.0f mm² of what it does not show was filled from the next tear's photo (paper only shrinks)", filled))
	}
	if m.Refused != "" {
		hint := ""
		if strings.HasPrefix(m.Refused, "something covers the sheet") {
			hint = retakeHint(nil)
		}
		m.Refused = oneLine(t.Photo + ": " + m.Refused + hint)
		res.Close()
		after.Close()
		return m, nil, nil, partial
	}
	if pa.DeferReread {
		pa.rereadPending = true
	} else {
		pa.reread(after, &m)
	}
	return m, after, res, partial
}

// reread compares the registered sheet after a tear with the letter states m measured (OCR's
// re-read) and adds its disagreements to m: notes, or doubts with RereadDoubts.
func (pa *playerAudit) reread(after Sheet, m *judge.Measurement) {
	notes, err := pa.Reader.Reread(after, pa.layouts, m.Letters)
	if err != nil {
		m.Notes = append(m.Notes, oneLine("ocr re-read failed: "+err.Error()))
	}
	for _, n := range notes {
		if pa.RereadDoubts {
			m.Doubts = append(m.Doubts, "ocr re-read: "+n)
		} else {
			m.Notes = append(m.Notes, "ocr re-read: "+n)
		}
	}
}

// pendingKey is the key a measurement made under key is stored under while its OCR re-read
// is deferred (DeferReread): a later audit finds it, does the re-read and stores the
// measurement under key.
func pendingKey(key string) string { return hashKey(key, "ocr re-read pending") }

// findRuling returns the ruling stored under key for tear index: the player's own, else the
// same player's in another session (store.FindRulingElsewhere: the manifest copied under
// another name; the tear's photo path photo must be the same), or ErrNotFound.
func (pa *playerAudit) findRuling(ctx context.Context, index int, key, photo string) (store.Ruling, error) {
	sr, err := pa.DB.FindRuling(ctx, pa.playerID, index, key)
	if errors.Is(err, store.ErrNotFound) {
		return pa.DB.FindRulingElsewhere(ctx, pa.playerID, index, key, photo)
	}
	return sr, err
}

// sheet returns the fresh sheet's layout: from the database when its inputs are unchanged
// (the player's own, else the same player's in another session, store.FindLayoutElsewhere),
// else found now (and stored).
func (pa *playerAudit) sheet(ctx context.Context, key string, readErr error) (sheetRecord, error) {
	lkey := hashKey(key, "layout")
	if pa.DB != nil {
		l, err := pa.DB.FindLayout(ctx, pa.playerID, lkey)
		elsewhere := false
		if errors.Is(err, store.ErrNotFound) {
			l, err = pa.DB.FindLayoutElsewhere(ctx, pa.playerID, lkey)
			elsewhere = true
		}
		if err == nil {
			var rec sheetRecord
			if json.Unmarshal(l.JSON, &rec) == nil {
				if elsewhere {
					// Kept as this session's own too.
					if err := pa.DB.SaveLayout(ctx, store.Layout{PlayerID: pa.playerID, Key: lkey,
						Sheet: store.Photo{SHA256: fileSHABytes(pa.freshData), Path: pa.p.Sheet}, JSON: l.JSON, RunID: l.RunID}); err != nil {
						return rec, err
					}
				}
				return rec, nil
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return sheetRecord{}, err
		}
	}
	rec := sheetRecord{Layouts: []judge.SkillLayout{}}
	switch f, err := pa.freshSheetOr(readErr); {
	case err != nil:
		rec.Error = oneLine(err.Error())
		rec.BadPhoto = badImage(err) || (readErr != nil && !errors.Is(readErr, errNoPhotoFile))
	case len(pa.p.Skills) == 0:
		rec.Found = true
		words, err := pa.Reader.Discover(f)
		if err != nil {
			rec.Error = oneLine(fmt.Sprintf("%s: discovering words: %v", pa.p.Sheet, err))
		}
		rec.Words = words
	default:
		rec.Found = true
		layouts, err := pa.Reader.Locate(f, pa.p.Skills)
		if err != nil {
			rec.Error = oneLine(fmt.Sprintf("%s: locating skills: %v", pa.p.Sheet, err))
		}
		rec.Layouts = normalizeLayouts(pa.p.Skills, layouts)
	}
	if pa.DB != nil {
		js, err := json.Marshal(rec)
		if err != nil {
			return rec, fmt.Errorf("encode layout: %w", err)
		}
		if err := pa.DB.SaveLayout(ctx, store.Layout{PlayerID: pa.playerID, Key: lkey,
			Sheet: store.Photo{SHA256: fileSHABytes(pa.freshData), Path: pa.p.Sheet}, JSON: js, RunID: pa.runID}); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// normalizeLayouts returns one layout per declared skill, in declaration order (an empty one
// for a skill ocr did not return).
func normalizeLayouts(skills []string, got []judge.SkillLayout) []judge.SkillLayout {
	out := make([]judge.SkillLayout, len(skills))
	for i, s := range skills {
		out[i] = judge.SkillLayout{Name: s, Letters: []judge.Letter{}}
		for _, l := range got {
			if l.Name == s {
				out[i] = l
				if out[i].Letters == nil {
					out[i].Letters = []judge.Letter{}
				}
				break
			}
		}
	}
	return out
}

func (pa *playerAudit) freshSheetOr(readErr error) (Sheet, error) {
	if readErr != nil {
		pa.freshDone, pa.freshErr = true, readErr
		return nil, readErr
	}
	return pa.freshSheet()
}

// freshSheet finds and rectifies the untorn sheet, once.
func (pa *playerAudit) freshSheet() (Sheet, error) {
	if !pa.freshDone {
		pa.freshDone = true
		if pa.freshData == nil {
			pa.freshErr = fmt.Errorf("%s: no photo", pa.p.Sheet)
		} else if pa.fresh, pa.freshErr = pa.Eye.Fresh(pa.freshData, pa.m.Paper); pa.freshErr != nil {
			pa.fresh, pa.freshErr = nil, fmt.Errorf("%s: %w", pa.p.Sheet, pa.freshErr)
		}
	}
	return pa.fresh, pa.freshErr
}

func (pa *playerAudit) closeFresh() {
	if pa.fresh != nil {
		pa.fresh.Close()
		pa.fresh = nil
	}
}

func (pa *playerAudit) thumbSide() int {
	if pa.ThumbSide > 0 {
		return pa.ThumbSide
	}
	return DefaultThumbSide
}

// readPhoto reads a photo named in the manifest; errors are one line naming it as the
// manifest does (never the folder it was found in).
func (pa *playerAudit) readPhoto(rel string) ([]byte, string, error) {
	if rel == "" {
		return nil, "", errors.New("no photo")
	}
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for good
	// (and Ctrl-C could not stop it); on a regular file it changes nothing.
	f, err := os.OpenFile(pa.m.Path(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", noPhotoFile{fmt.Sprintf("%s: file not found", rel)}
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, "", fmt.Errorf("%s: permission denied", rel)
		}
		return nil, "", fmt.Errorf("%s: cannot open", rel)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, "", noPhotoFile{fmt.Sprintf("%s: not a regular file", rel)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxPhotoBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("%s: cannot read", rel)
	}
	if len(data) > MaxPhotoBytes {
		return nil, "", fmt.Errorf("%s: larger than %d MiB", rel, MaxPhotoBytes>>20)
	}
	return data, fileSHABytes(data), nil
}

// errNoPhotoFile marks a photo that does not exist or is not a regular file: the manifest
// is wrong (session.Manifest.Missing says so), not the photo.
var errNoPhotoFile = errors.New("no photo file")

type noPhotoFile struct{ msg string }

func (e noPhotoFile) Error() string        { return e.msg }
func (e noPhotoFile) Is(target error) bool { return target == errNoPhotoFile }

// badImage reports whether err says a photo's bytes are no usable image (not an image,
// truncated, corrupt): the file is bad, not the picture.
func badImage(err error) bool {
	return errors.Is(err, vision.ErrNotImage) || errors.Is(err, vision.ErrTruncated) || errors.Is(err, vision.ErrCorrupt)
}

// discoveryReason is the undecided reason of a tear by a player who declared no skills.
func discoveryReason(name string, rec sheetRecord) string {
	if len(rec.Words) == 0 {
		return fmt.Sprintf("no skills declared for %s, and no words were found on the sheet: declare the skills in the manifest", name)
	}
	words := make([]string, len(rec.Words))
	for i, w := range rec.Words {
		words[i] = fmt.Sprintf("%q (%.0f%%)", w.Text, 100*w.Confidence)
	}
	return fmt.Sprintf("no skills declared for %s: confirm them among the words found on the sheet and declare them in the manifest: %s (percentages are Tesseract's own confidence, unreliable on handwriting: check each word on the sheet)",
		name, strings.Join(words, ", "))
}

// AnnotationVerdict is the headline of an annotated image: the verdict that stands. With a
// GM's ruling (that was not ignored) it is the GM's, with tearcam's beside it: "GM ruled valid
// (tearcam: undecided)".
func AnnotationVerdict(r judge.TearRuling) string {
	if g := r.GMRuling; g != nil && g.Ignored == "" {
		return fmt.Sprintf("GM ruled %s (tearcam: %s)", g.Verdict, r.Verdict)
	}
	return string(r.Verdict)
}

// AnnotationLines are the text lines drawn on an annotated image and shown in reports:
// faults or the undecided reason, then the letters left per skill.
func AnnotationLines(r judge.TearRuling) []string {
	var lines []string
	head := fmt.Sprintf("tear %d: %s %s", r.Index, r.Kind, r.Skill)
	lines = append(lines, strings.TrimSpace(head)+": "+string(r.Verdict))
	if len(r.Faults) > 0 {
		fs := make([]string, len(r.Faults))
		for i, f := range r.Faults {
			fs[i] = string(f)
		}
		lines = append(lines, "faults: "+strings.Join(fs, ", "))
	}
	if r.UndecidedReason != "" {
		lines = append(lines, "undecided: "+r.UndecidedReason)
	}
	if r.GMRuling != nil {
		// The image's font is ASCII: the arrow is drawn as "->".
		lines = append(lines, strings.ReplaceAll(judge.GMLine(r), "→", "->"))
	}
	if len(r.Skills) > 0 {
		lines = append(lines, judge.LettersLeftLabel(r)+": "+judge.LettersLeft(r.Skills))
	}
	if r.Out {
		lines = append(lines, "OUT: "+string(r.OutReason))
	}
	return lines
}

// hashKey is the SHA-256 of the JSON of its parts: the identity of a computation's inputs.
func hashKey(parts ...any) string {
	b, err := json.Marshal(parts)
	if err != nil {
		b = []byte(fmt.Sprint(parts...))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func fileSHABytes(b []byte) string {
	if b == nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func fileSHA(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return fileSHABytes(b)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// retakeHint says, after a photo's measurement was refused for err (nil: Measure found
// something covering the sheet), what gets the tear judged: another photo of the sheet
// as it lies before the next tear, put in the manifest in this one's place (audit re-uses
// every ruling whose photos did not change), or the GM's own ruling. "" for a file that is
// not a usable image (its own message says so).
func retakeHint(err error) string {
	var how string
	switch {
	case errors.Is(err, vision.ErrUnsupportedFormat):
		return "" // its message says to save the photo as JPEG
	case badImage(err):
		return "; use the original photo file"
	case errors.Is(err, vision.ErrSheetCutOff):
		how = "with the whole sheet in view"
	case errors.Is(err, vision.ErrPaperMask), errors.Is(err, vision.ErrNoSheet):
		how = "on a plain table of another colour than the paper"
	case errors.Is(err, vision.ErrRegistration), errors.Is(err, vision.ErrBlankFrame), errors.Is(err, vision.ErrSeveralSheets):
		// A small remnant shows few of the fresh sheet's features at a distance: closer,
		// it shows more (a tester: the advice described the refused photo as it was).
		how = "with the whole sheet flat, lit and in focus, alone in view, and close enough that it fills most of the photo"
	case err == nil:
		// Something that looks like neither paper nor the table: an object, a hand, or a
		// hole showing a shade of the table the photo does not show elsewhere.
		how = "with nothing on the sheet; if nothing was on it, the GM looks for a hole there"
	default:
		return ""
	}
	return "; to judge this tear, photograph the sheet again before the next tear (" + how + "), or the GM rules"
}

func round(x, per float64) float64 { return math.Round(x*per) / per }
