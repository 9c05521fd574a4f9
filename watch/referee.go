package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/session"
	"tearcam/template"
)

// AuditReferee is the Referee that `tearcam audit` is: every settled frame is written as a
// PNG into Dir, appended to an audit manifest (Dir/session.yaml, which `tearcam audit` can
// read afterwards), and the referee.Referee rules the manifest. The store re-uses the
// rulings of earlier tears (their inputs did not change), and a caching Eye keeps the fresh
// sheet and the last registrations, so each call measures only the new tear, with the very
// code, inputs and normalisation audit uses: watch and audit give equal rulings for the
// same frames by construction. Ref.DB is required (the re-use goes through it).
type AuditReferee struct {
	Ref     *referee.Referee
	Dir     string
	Paper   template.Paper
	Tmpl    template.Template
	Players []Player
	// DeferReread: Tear rules a tear before the OCR re-read of its frame, which Reread does
	// after the ruling is reported (Rereader).
	DeferReread bool

	eye *cachingEye
	// pending counts the tears whose OCR re-read the last audit left for later; deferred
	// holds the players whose last tear was ruled before its re-read (Reread).
	pending  int
	deferred map[int]bool
	sheet    []string         // per player: fresh sheet photo (file name in Dir), "" when none yet
	tears    [][]session.Tear // per player: the tears so far
	ctx      context.Context
	// doubted holds, by frame file, why what it shows removed was put in doubt (Doubt).
	doubted map[string]string
}

var _ Referee = (*AuditReferee)(nil)

// NewAuditReferee wraps ref (whose Eye and Reader it wraps in a cache) for a watch session
// whose frames go to dir. Close it to free the cached sheets.
func NewAuditReferee(ctx context.Context, ref *referee.Referee, dir string, paper template.Paper, tmpl template.Template, players []Player) (*AuditReferee, error) {
	if ref.DB == nil {
		return nil, errors.New("watch referee: a session database is required")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("watch referee: %w", err)
	}
	eye := newCachingEye(ref.Eye, ref.Reader)
	r := *ref
	r.Eye, r.Reader = eye, eye
	a := &AuditReferee{Ref: &r, Dir: dir, Paper: paper, Tmpl: tmpl, Players: players, eye: eye, ctx: ctx, deferred: map[int]bool{},
		sheet: make([]string, len(players)), tears: make([][]session.Tear, len(players))}
	return a, nil
}

// Timings is the time spent so far in each step: audit (all of it), fresh, locate,
// register, measure, reread, annotate.
func (a *AuditReferee) Timings() map[string]time.Duration { return a.eye.Timings }

// Close frees the cached sheets.
func (a *AuditReferee) Close() error { return a.eye.close() }

// ManifestPath is the audit manifest of the frames taken so far.
func (a *AuditReferee) ManifestPath() string { return filepath.Join(a.Dir, "session.yaml") }

// PhotoFile is the file name a frame is recorded under in Dir.
func PhotoFile(n int) string { return fmt.Sprintf("frame-%06d.png", n) }

// Fresh implements Referee.
func (a *AuditReferee) Fresh(p int, f Frame) (judge.SheetResult, error) {
	name, err := a.writeFrame(f)
	if err != nil {
		return judge.SheetResult{}, err
	}
	old := a.sheet[p]
	a.sheet[p] = name
	res, err := a.audit()
	if err != nil {
		// Not taken (interrupted, say): the manifest must not name it either.
		a.sheet[p] = old
		return judge.SheetResult{}, errors.Join(err, a.writeManifest())
	}
	pr, ok := playerIn(res, a.Players[p].Name)
	if !ok {
		a.sheet[p] = old
		return judge.SheetResult{}, fmt.Errorf("audit gave no result for %s", a.Players[p].Name)
	}
	if !pr.Sheet.Found {
		// Not a sheet: forget it, so that the next settled frame is tried as the fresh sheet.
		a.sheet[p] = old
		if err := a.writeManifest(); err != nil {
			return pr.Sheet, err
		}
	}
	return pr.Sheet, nil
}

// Identify implements Referee: the first candidate whose fresh sheet the frame registers to.
func (a *AuditReferee) Identify(f Frame, candidates []int) (int, error) {
	var errs []string
	for _, p := range candidates {
		if a.sheet[p] == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(a.Dir, a.sheet[p]))
		if err != nil {
			return -1, fmt.Errorf("identify: %w", err)
		}
		fresh, err := a.eye.Fresh(data, a.Paper)
		if err != nil {
			continue
		}
		reg, err := a.eye.Register(fresh, f.PNG)
		fresh.Close()
		if err == nil {
			reg.Close()
			return p, nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v", a.Players[p].Name, err))
	}
	if len(errs) > 0 {
		return -1, fmt.Errorf("frame %d registers to no player's sheet (%s)", f.No, strings.Join(errs, "; "))
	}
	return -1, nil
}

// Tear implements Referee.
func (a *AuditReferee) Tear(p int, t judge.Tear, f *Frame) (judge.TearRuling, []byte, error) {
	st := session.Tear{Tear: t}
	if f != nil {
		name, err := a.writeFrame(*f)
		if err != nil {
			return judge.TearRuling{}, nil, err
		}
		st.Photo = name
	}
	a.tears[p] = append(a.tears[p], st)
	a.eye.annotated = nil
	// The ruling first: the OCR re-read of the frame is left for Reread.
	a.Ref.DeferReread = a.DeferReread
	res, err := a.audit()
	a.Ref.DeferReread = false
	if err == nil && a.DeferReread && a.pending > 0 {
		// Reread audits again even if another audit does the re-read first: the ruling
		// reported is this one, without it.
		a.deferred[p] = true
	}
	if err != nil {
		// Not ruled (interrupted, say): the manifest, written before the audit, must not list
		// it either (README: no tear is listed that was not ruled).
		a.tears[p] = a.tears[p][:len(a.tears[p])-1]
		return judge.TearRuling{}, nil, errors.Join(err, a.writeManifest())
	}
	pr, ok := playerIn(res, a.Players[p].Name)
	if !ok || len(pr.Tears) != len(a.tears[p]) {
		return judge.TearRuling{}, nil, fmt.Errorf("audit gave no ruling for %s's tear %d", a.Players[p].Name, len(a.tears[p]))
	}
	if f != nil {
		if why, ok := a.eye.covered[shaOf(f.PNG)]; ok {
			// Something lies on the sheet: the frame shows no tear. Take the ruling back.
			a.Retract(p)
			return judge.TearRuling{}, nil, fmt.Errorf("%w%s", ErrCovered, strings.TrimPrefix(why, coveredRefusal))
		}
	}
	return pr.Tears[len(pr.Tears)-1], a.eye.annotated, nil
}

// RuleGM implements GMRuler: the manifest's tear n of player p gets gm: g, and the audit of
// the manifest re-rules the player's tears from n on (every measurement re-used), commits
// them with the GM's ruling (as audit stores it), and returns them.
func (a *AuditReferee) RuleGM(p, n int, g *judge.GMRuling) ([]judge.TearRuling, error) {
	if n < 1 || n > len(a.tears[p]) {
		return nil, fmt.Errorf("%s has no tear %d recorded", a.Players[p].Name, n)
	}
	old := a.tears[p][n-1].GM
	a.tears[p][n-1].GM = g
	a.eye.annotated = nil
	res, err := a.audit()
	if err == nil {
		pr, ok := playerIn(res, a.Players[p].Name)
		if ok && len(pr.Tears) == len(a.tears[p]) {
			return pr.Tears, nil
		}
		err = fmt.Errorf("audit gave no rulings for %s", a.Players[p].Name)
	}
	a.tears[p][n-1].GM = old
	return nil, errors.Join(err, a.writeManifest())
}

var _ GMRuler = (*AuditReferee)(nil)

// Reread implements Rereader: when the last audit left OCR re-reads for later
// (DeferReread), an audit of the manifest does them on the re-used measurements, re-rules
// the tears with their disagreements and commits them; it returns player p's tears as ruled
// now and the annotated image drawn again, if one was (nil tears: no re-read was left).
func (a *AuditReferee) Reread(p int) ([]judge.TearRuling, []byte, error) {
	if !a.deferred[p] {
		return nil, nil, nil
	}
	delete(a.deferred, p)
	a.eye.annotated = nil
	res, err := a.audit()
	if err != nil {
		return nil, nil, err
	}
	pr, ok := playerIn(res, a.Players[p].Name)
	if !ok || len(pr.Tears) != len(a.tears[p]) {
		return nil, nil, fmt.Errorf("audit gave no rulings for %s", a.Players[p].Name)
	}
	return pr.Tears, a.eye.annotated, nil
}

var _ Rereader = (*AuditReferee)(nil)

// Retract implements Retractor: player p's last tear leaves the manifest, and an audit of
// the shorter manifest makes its stored ruling no longer current.
func (a *AuditReferee) Retract(p int) {
	if len(a.tears[p]) == 0 {
		return
	}
	a.tears[p] = a.tears[p][:len(a.tears[p])-1]
	a.audit()
}

var _ Retractor = (*AuditReferee)(nil)

// Doubt implements Doubter: what frame f shows removed is in doubt (why), as a structured
// doubt about the removed paper added to its measurement. The ruling on f is undecided and
// recorded so; later audits of the session re-use that measurement. (`tearcam audit` of
// the recorded manifest from scratch measures f without it.)
func (a *AuditReferee) Doubt(f Frame, why string) {
	a.eye.doubts[shaOf(f.PNG)] = why
	if a.doubted == nil {
		a.doubted = map[string]string{}
	}
	a.doubted[PhotoFile(f.No)] = why // said in the manifest, as a comment
}

var _ Doubter = (*AuditReferee)(nil)

func playerIn(doc judge.Rulings, name string) (judge.PlayerRulings, bool) {
	for _, pr := range doc.Players {
		if pr.Name == name {
			return pr, true
		}
	}
	return judge.PlayerRulings{}, false
}

// manifest is the audit manifest of the players whose fresh sheet was taken.
func (a *AuditReferee) manifest() *session.Manifest {
	m := &session.Manifest{File: a.ManifestPath(), Dir: a.Dir, PaperName: a.Paper.Name, Paper: a.Paper,
		TemplateRef: "default", Template: a.Tmpl}
	for i, p := range a.Players {
		if a.sheet[i] == "" {
			continue
		}
		m.Players = append(m.Players, session.Player{Name: p.Name, Skills: p.Skills, Sheet: a.sheet[i],
			Tears: append([]session.Tear(nil), a.tears[i]...)})
	}
	return m
}

// audit writes the manifest and rules it.
func (a *AuditReferee) audit() (judge.Rulings, error) {
	if err := a.writeManifest(); err != nil {
		return judge.Rulings{}, err
	}
	defer a.eye.timed("audit")()
	res, err := a.Ref.Audit(a.ctx, a.manifest())
	if err != nil {
		return judge.Rulings{}, err
	}
	a.pending = res.Pending
	return res.Rulings, nil
}

// writeFrame records a frame's PNG in Dir, durably, and returns its file name.
func (a *AuditReferee) writeFrame(f Frame) (string, error) {
	name := PhotoFile(f.No)
	if err := writeFileSync(filepath.Join(a.Dir, name), f.PNG); err != nil {
		return "", fmt.Errorf("record frame %d: %w", f.No, err)
	}
	return name, nil
}

// writeManifest writes Dir/session.yaml: the frames taken so far as an audit manifest.
func (a *AuditReferee) writeManifest() error {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	b.WriteString("# written by tearcam watch: the frames it judged, as an audit manifest\n")
	fmt.Fprintf(&b, "paper: %s\n", q(a.Paper.Name))
	tmpl := "default"
	if a.Tmpl.Name != "default" {
		js, _ := json.Marshal(a.Tmpl)
		if err := writeFileSync(filepath.Join(a.Dir, "template.json"), js); err != nil {
			return err
		}
		tmpl = "template.json"
	}
	fmt.Fprintf(&b, "template: %s\nplayers:\n", q(tmpl))
	m := a.manifest()
	for _, p := range m.Players {
		fmt.Fprintf(&b, "  - name: %s\n    skills: [", q(p.Name))
		for i, s := range p.Skills {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(q(s))
		}
		fmt.Fprintf(&b, "]\n    sheet: %s\n    tears:", q(p.Sheet))
		if len(p.Tears) == 0 {
			b.WriteString(" []")
		}
		b.WriteString("\n")
		for _, t := range p.Tears {
			if why, ok := a.doubted[t.Photo]; ok {
				// Audit of this manifest with the session's database re-uses the doubted
				// measurement; from scratch it measures the frame alone.
				fmt.Fprintf(&b, "      # %s: watch ruled it undecided: %s\n", t.Photo, oneLine(why))
			}
			gm := ""
			if t.GM != nil {
				// The GM's ruling given live, as a manifest's gm: (JSON is YAML's flow style).
				g := *t.GM
				g.Overrules = nil
				js, _ := json.Marshal(g)
				gm = ", gm: " + string(js)
			}
			switch {
			case t.Kind == judge.KindLastDitch:
				fmt.Fprintf(&b, "      - {kind: last_ditch, hit: %v}\n", t.Hit)
			case t.Skill == "":
				fmt.Fprintf(&b, "      - {photo: %s, kind: %s%s}\n", q(t.Photo), t.Kind, gm)
			default:
				fmt.Fprintf(&b, "      - {photo: %s, kind: %s, skill: %s%s}\n", q(t.Photo), t.Kind, q(t.Skill), gm)
			}
		}
	}
	return writeFileSync(a.ManifestPath(), []byte(b.String()))
}

// writeFileSync writes data to path through a synced temporary file and a rename, so that
// a kill leaves either the old file or the new one.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// cachingEye is the referee's Eye and Reader with the fresh sheets and the latest
// registrations kept between audits (the referee closes what it gets; the cache keeps the
// real sheets until it evicts them). It records the last annotated image.
type cachingEye struct {
	eye       referee.Eye
	reader    referee.Reader
	fresh     map[string]*keptSheet    // by photo SHA-256
	reg       map[[2]string]*keptSheet // by fresh and photo SHA-256
	regOrder  [][2]string
	annotated []byte
	// covered holds, by photo SHA-256, why Measure refused a photo as showing something
	// lying on the sheet.
	covered map[string]string
	// doubts holds, by photo SHA-256, why what a photo shows removed is in doubt
	// (AuditReferee.Doubt): Measure adds it to the measurement.
	doubts map[string]string
	// Timings adds up the time spent in each call, by name (register, measure, ...).
	Timings map[string]time.Duration
}

// keptSheet is a cached Sheet: Close does nothing; the cache closes inner.
type keptSheet struct {
	inner referee.Sheet
	sha   string
}

func (k *keptSheet) Close() error { return nil }

// keepRegistrations is how many registered sheets the cache keeps: the last tear's (the next
// tear's "before") and the newest, for each of a few players.
const keepRegistrations = 8

func newCachingEye(eye referee.Eye, reader referee.Reader) *cachingEye {
	return &cachingEye{eye: eye, reader: reader, fresh: map[string]*keptSheet{}, reg: map[[2]string]*keptSheet{},
		covered: map[string]string{}, doubts: map[string]string{}}
}

func shaOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func inner(s referee.Sheet) referee.Sheet {
	if k, ok := s.(*keptSheet); ok {
		return k.inner
	}
	return s
}

func (c *cachingEye) Fresh(photo []byte, paper template.Paper) (referee.Sheet, error) {
	key := shaOf(photo) + fmt.Sprintf("/%gx%g", paper.WidthMM, paper.HeightMM)
	if k, ok := c.fresh[key]; ok {
		return k, nil
	}
	done := c.timed("fresh")
	s, err := c.eye.Fresh(photo, paper)
	done()
	if err != nil {
		return nil, err
	}
	k := &keptSheet{inner: s, sha: key}
	c.fresh[key] = k
	return k, nil
}

func (c *cachingEye) Register(fresh referee.Sheet, photo []byte) (referee.Sheet, error) {
	fk, ok := fresh.(*keptSheet)
	if !ok {
		return c.eye.Register(fresh, photo)
	}
	key := [2]string{fk.sha, shaOf(photo)}
	if k, ok := c.reg[key]; ok {
		return k, nil
	}
	done := c.timed("register")
	s, err := c.eye.Register(fk.inner, photo)
	done()
	if err != nil {
		return nil, err
	}
	k := &keptSheet{inner: s, sha: key[1]}
	c.reg[key] = k
	c.regOrder = append(c.regOrder, key)
	for len(c.regOrder) > keepRegistrations {
		old := c.regOrder[0]
		c.regOrder = c.regOrder[1:]
		c.reg[old].inner.Close()
		delete(c.reg, old)
	}
	return k, nil
}

// Kept implements referee.Keeper: photo's registration into fresh's frame, as the last
// audit registered and measured it, while the cache keeps it.
func (c *cachingEye) Kept(fresh referee.Sheet, photo []byte) (referee.Sheet, bool) {
	fk, ok := fresh.(*keptSheet)
	if !ok {
		return nil, false
	}
	k, ok := c.reg[[2]string{fk.sha, shaOf(photo)}]
	return k, ok
}

var _ referee.Keeper = (*cachingEye)(nil)

func (c *cachingEye) Measure(before, after referee.Sheet, layouts []judge.SkillLayout, t template.Template) (referee.Measured, error) {
	defer c.timed("measure")()
	m, err := c.eye.Measure(inner(before), inner(after), layouts, t)
	if k, ok := after.(*keptSheet); ok && err == nil {
		if why := m.Measurement().Refused; strings.HasPrefix(why, coveredRefusal) {
			c.covered[k.sha] = why
		}
		if why, ok := c.doubts[k.sha]; ok {
			return doubtedMeasured{m, judge.Doubt{About: judge.AboutRemoved, Text: why}}, nil
		}
	}
	return m, err
}

// doubtedMeasured is a measurement with one more structured doubt (AuditReferee.Doubt).
type doubtedMeasured struct {
	referee.Measured
	doubt judge.Doubt
}

func (d doubtedMeasured) Measurement() judge.Measurement {
	m := d.Measured.Measurement()
	m.Uncertain = append(append([]judge.Doubt(nil), m.Uncertain...), d.doubt)
	return m
}

// measuredOf is the wrapped Eye's own measurement (Annotate needs its type).
func measuredOf(m referee.Measured) referee.Measured {
	if d, ok := m.(doubtedMeasured); ok {
		return d.Measured
	}
	return m
}

// timed adds the time until the returned func is called to Timings[name].
func (c *cachingEye) timed(name string) func() {
	t0 := time.Now()
	return func() {
		if c.Timings == nil {
			c.Timings = map[string]time.Duration{}
		}
		c.Timings[name] += time.Since(t0)
	}
}

func (c *cachingEye) Annotate(after referee.Sheet, m referee.Measured, layouts []judge.SkillLayout, verdict string, lines []string) ([]byte, error) {
	defer c.timed("annotate")()
	b, err := c.eye.Annotate(inner(after), measuredOf(m), layouts, verdict, lines)
	if err == nil {
		c.annotated = b
	}
	return b, err
}

// AnnotatePhoto implements referee.PhotoAnnotator when the wrapped Eye does: a refused
// measurement is shown as the frame itself under the ruling's band, as audit shows it.
func (c *cachingEye) AnnotatePhoto(photo []byte, paper template.Paper, verdict string, lines []string) ([]byte, error) {
	pe, ok := c.eye.(referee.PhotoAnnotator)
	if !ok {
		return nil, errors.New("annotate photo: not supported")
	}
	defer c.timed("annotate")()
	b, err := pe.AnnotatePhoto(photo, paper, verdict, lines)
	if err == nil {
		c.annotated = b
	}
	return b, err
}

var _ referee.PhotoAnnotator = (*cachingEye)(nil)

// Reband implements referee.Rebander when the wrapped Eye does: a GM's ruling given live
// redraws the text band of the tear's annotated image, as audit does.
func (c *cachingEye) Reband(annotated []byte, oldVerdict string, oldLines []string, verdict string, lines []string) ([]byte, error) {
	rb, ok := c.eye.(referee.Rebander)
	if !ok {
		return nil, errors.New("reband: not supported")
	}
	defer c.timed("annotate")()
	b, err := rb.Reband(annotated, oldVerdict, oldLines, verdict, lines)
	if err == nil {
		c.annotated = b
	}
	return b, err
}

var _ referee.Rebander = (*cachingEye)(nil)

func (c *cachingEye) Thumbnail(image []byte, maxSide int) ([]byte, error) {
	return c.eye.Thumbnail(image, maxSide)
}

func (c *cachingEye) Locate(s referee.Sheet, skills []string) ([]judge.SkillLayout, error) {
	defer c.timed("locate")()
	return c.reader.Locate(inner(s), skills)
}

func (c *cachingEye) Discover(s referee.Sheet) ([]referee.Word, error) {
	return c.reader.Discover(inner(s))
}

func (c *cachingEye) Reread(s referee.Sheet, layouts []judge.SkillLayout, states []judge.SkillLetters) ([]string, error) {
	defer c.timed("reread")()
	return c.reader.Reread(inner(s), layouts, states)
}

func (c *cachingEye) close() error {
	for _, k := range c.fresh {
		k.inner.Close()
	}
	for _, k := range c.reg {
		k.inner.Close()
	}
	c.fresh, c.reg, c.regOrder = map[string]*keptSheet{}, map[[2]string]*keptSheet{}, nil
	return nil
}

var (
	_ referee.Eye    = (*cachingEye)(nil)
	_ referee.Reader = (*cachingEye)(nil)
)
