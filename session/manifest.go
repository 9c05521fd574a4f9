package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"gopkg.in/yaml.v3"

	"tearcam/judge"
	"tearcam/template"
)

// MaxManifestBytes is the largest manifest Load reads; a manifest is a few kilobytes.
const MaxManifestBytes = 1 << 20

// Limits that keep a hostile manifest from costing more than a real one.
const (
	MaxPlayers     = 64
	MaxSkills      = 32
	MaxTears       = 512
	MaxNameRunes   = 200
	maxPathRunes   = 1024
	defaultTempRef = "default"
)

// Mode says what a manifest is for.
type Mode int

// The modes. Audit manifests name a photo for the untorn sheet and for every tear but
// last_ditch; Plan manifests (watch --session) name none: the camera supplies the frames.
const (
	Audit Mode = iota
	Plan
)

// planNoPhotos is why a plan (watch --session) refuses a sheet or photo entry (DESIGN.md:
// "sheet and photo are left out"): accepted, it would be ignored.
const planNoPhotos = "a watch plan names no photos, the frames come from --source: leave out sheet and photo (tearcam audit judges photos)"

// Manifest is a parsed session manifest (DESIGN.md "audit").
type Manifest struct {
	File      string // the manifest's path as given (or the name given to Parse)
	Dir       string // the folder photo and template paths are relative to
	PaperName string // as written: "a4", "letter" or "WxH" ("a4" when left out)
	// PaperAssumed: the manifest gives no paper, and A4 is assumed. A4 and US letter differ
	// by 9% in shape, within what a photo's perspective hides: a letter sheet would be
	// measured at the wrong scale, so callers say so.
	PaperAssumed bool
	Paper        template.Paper //
	TemplateRef  string         // "default" or the template file's path as written
	Template     template.Template
	Players      []Player
	// Missing lists, in Audit mode, the photos the manifest names that do not exist (or are
	// not regular files), one *Error each. They are not a reason to refuse the manifest:
	// the tear (or, for a sheet, the player's tears) is ruled undecided and every other
	// ruling still comes out (DESIGN.md: "a bad photo in an audit makes that tear
	// undecided"); the caller reports them after the rulings are written.
	Missing []*Error

	// paperLine and templateLine are where paper and template are written (0: not written),
	// for the template file's errors, found after parsing.
	paperLine, templateLine int
}

// Player is one player of a manifest.
type Player struct {
	Name   string
	Skills []string // declared skills, in order; empty: discovery mode (ocr lists words)
	Sheet  string   // the untorn sheet's photo, relative to the manifest's folder, slash-separated
	Tears  []Tear
	Line   int // where the player starts in the manifest
	// SheetLine is where the sheet's photo is named (0 when it is not).
	SheetLine int
}

// Tear is one tear of a player, in manifest order.
type Tear struct {
	judge.Tear
	Photo string // relative to the manifest's folder, slash-separated; "" for last_ditch
	Line  int    // where the tear is written in the manifest
	// GM is the GM's ruling on the tear (the manifest's gm:), checked against the player's
	// skills; nil when the manifest gives none.
	GM *judge.GMRuling
}

// Path is the file a manifest-relative path names, joined to the manifest's folder. (An
// absolute path, which only a manifest built in code can hold, is returned as it is.)
func (m *Manifest) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(m.Dir, filepath.FromSlash(rel))
}

// Tears counts the tears of every player.
func (m *Manifest) Tears() int {
	n := 0
	for _, p := range m.Players {
		n += len(p.Tears)
	}
	return n
}

// Error is a problem with a manifest: one line naming the file and, where known, the line.
type Error struct {
	File string
	Line int // 0 when unknown
	Msg  string
	// Sheet: the error is about a player's untorn sheet photo (in Missing: all of that
	// player's tears are ruled undecided, not one).
	Sheet bool
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// lineError is an error found while decoding, before the file name is known.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// Load reads and checks the manifest at path: Parse, then the template file is loaded and,
// in Audit mode, every photo must lie inside the manifest's folder (symbolic links may not
// lead out of it); photos that do not exist are listed in Missing, not refused. Errors are
// *Error.
func Load(path string, mode Mode) (*Manifest, error) {
	// Stat before opening: opening a FIFO for reading waits for a writer for good (a tester:
	// `tearcam audit fifo.jpg` could be stopped only by SIGKILL).
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: oneLine(errors.Unwrap(err), err)}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Error{File: path, Msg: "is a folder, not a manifest"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: "read: " + oneLine(errors.Unwrap(err), err)}
	}
	if len(data) > MaxManifestBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)}
	}
	m, err := Parse(path, data, mode)
	if err != nil {
		return nil, err
	}
	m.Dir = filepath.Dir(path)
	if err := m.resolve(mode); err != nil {
		return nil, err
	}
	return m, nil
}

// Parse reads a manifest from data without touching the file system: name is used in error
// messages and as File; Dir is left as "." and a template file is not loaded (Template is
// the default only when TemplateRef is "default"). Errors are *Error.
func Parse(name string, data []byte, mode Mode) (m *Manifest, err error) {
	defer func() {
		// yaml.v3 is not known to panic on v3.0.1, but a manifest must never crash a referee.
		if r := recover(); r != nil {
			m, err = nil, &Error{File: name, Msg: fmt.Sprintf("not a valid manifest (%v)", r)}
		}
	}()
	fail := func(line int, format string, a ...any) error {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	if !utf8.Valid(data) {
		return nil, fail(0, "not UTF-8 text")
	}
	var raw rawManifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(0, "empty manifest: want paper, template and players")
		}
		return nil, yamlError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fail(extra.Line, "more than one YAML document")
	}

	m = &Manifest{File: name, Dir: ".", PaperName: strings.TrimSpace(raw.Paper),
		paperLine: raw.line("paper"), templateLine: raw.line("template")}
	if m.PaperName == "" {
		m.PaperName, m.PaperAssumed = "a4", true
	}
	m.Paper, err = template.ParsePaper(m.PaperName)
	if err != nil {
		return nil, fail(raw.line("paper"), "%v", err)
	}

	m.TemplateRef = strings.TrimSpace(raw.Template)
	if m.TemplateRef == "" || m.TemplateRef == defaultTempRef {
		m.TemplateRef = defaultTempRef
		m.Template = template.Default()
	} else if err := checkLocal(m.TemplateRef); err != nil {
		return nil, fail(raw.line("template"), "template: %v", err)
	}

	if len(raw.Players) == 0 {
		return nil, fail(raw.line("players"), "no players")
	}
	if len(raw.Players) > MaxPlayers {
		return nil, fail(raw.line("players"), "%d players: at most %d", len(raw.Players), MaxPlayers)
	}
	seen := map[string]int{}
	for i := range raw.Players {
		p, err := raw.Players[i].player(i+1, mode)
		if err != nil {
			var le *lineError
			if errors.As(err, &le) {
				return nil, fail(le.line, "%s", le.msg)
			}
			return nil, fail(raw.Players[i].Line, "%v", err)
		}
		key := strings.ToLower(p.Name)
		if first, dup := seen[key]; dup {
			return nil, fail(p.Line, "duplicate player %q (first on line %d)", p.Name, first)
		}
		seen[key] = p.Line
		m.Players = append(m.Players, p)
	}
	return m, nil
}

// resolve loads the template file and checks that every photo is a regular file inside Dir.
func (m *Manifest) resolve(mode Mode) error {
	if m.TemplateRef != defaultTempRef {
		p, err := m.inside(m.TemplateRef)
		if err != nil {
			return &Error{File: m.File, Line: m.templateLine, Msg: "template: " + err.Error()}
		}
		t, err := template.Load(p)
		if err != nil {
			return &Error{File: m.File, Line: m.templateLine, Msg: fmt.Sprintf("template %s: %v", m.TemplateRef, cutPrefix(err, "template "+p+": "))}
		}
		m.Template = t
	}
	if err := m.Template.CheckPaper(m.Paper); err != nil {
		// The template file's line, or, for the default template, the paper's.
		line := m.templateLine
		if m.TemplateRef == defaultTempRef {
			line = m.paperLine
		}
		return &Error{File: m.File, Line: line, Msg: err.Error()}
	}
	if mode != Audit {
		return nil
	}
	check := func(rel string, line int, what string) error {
		_, err := m.inside(rel)
		if err == nil {
			return nil
		}
		e := &Error{File: m.File, Line: line, Msg: what + ": " + err.Error()}
		if errors.Is(err, errMissing) {
			m.Missing = append(m.Missing, e)
			return nil
		}
		return e
	}
	for _, p := range m.Players {
		line := p.Line
		if p.SheetLine > 0 {
			line = p.SheetLine
		}
		n := len(m.Missing)
		if err := check(p.Sheet, line, fmt.Sprintf("player %q: sheet", p.Name)); err != nil {
			return err
		}
		if len(m.Missing) > n {
			m.Missing[n].Sheet = true
		}
		for i, t := range p.Tears {
			if t.Photo == "" {
				continue
			}
			if err := check(t.Photo, t.Line, fmt.Sprintf("player %q: tear %d", p.Name, i+1)); err != nil {
				return err
			}
		}
	}
	return nil
}

// errMissing marks a photo that does not exist or is not a regular file (a bad photo, not
// a bad manifest).
var errMissing = errors.New("missing photo")

type missingError struct{ msg string }

func (e missingError) Error() string        { return e.msg }
func (e missingError) Is(target error) bool { return target == errMissing }

// inside returns the path of rel joined to Dir after checking that it names an existing
// regular file that does not lead out of Dir through a symbolic link.
func (m *Manifest) inside(rel string) (string, error) {
	p := m.Path(rel)
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", missingError{fmt.Sprintf("%s: no such file", rel)}
	case err != nil:
		return "", fmt.Errorf("%s: %s", rel, oneLine(errors.Unwrap(err), err))
	case !st.Mode().IsRegular():
		return "", missingError{fmt.Sprintf("%s: not a regular file", rel)}
	}
	dir, err1 := filepath.EvalSymlinks(m.Dir)
	real, err2 := filepath.EvalSymlinks(p)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("%s: cannot resolve its path", rel)
	}
	if r, err := filepath.Rel(dir, real); err != nil || !filepath.IsLocal(r) {
		return "", fmt.Errorf("%s: leads out of the manifest's folder", rel)
	}
	return p, nil
}

// text is a name as the manifest gives it, normalised by Name.
func text(s string) string { return Name(s) }

// Name normalises a player's or skill's name as every command takes it: invisible format
// characters (zero-width spaces and joiners, Unicode category Cf) removed, then Unicode
// compatibility normal form KC and trimmed, so that "Café" typed with one code point for é
// or with e plus a combining accent, "ﬁsh" with a ligature and "fish", or "Te<ZWSP>xt" and
// "Text" are the same name.
func Name(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(norm.NFKC.String(s))
}

// checkLocal refuses a path that is empty, absolute or leaves the manifest's folder.
func checkLocal(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case utf8.RuneCountInString(p) > maxPathRunes:
		return fmt.Errorf("path longer than %d characters", maxPathRunes)
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q holds a NUL byte", p)
	case strings.Contains(p, `\`):
		return fmt.Errorf("path %q: use / between folders", p)
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/") || !filepath.IsLocal(filepath.FromSlash(p)):
		return fmt.Errorf("path %q leaves the manifest's folder: paths are relative to it", p)
	}
	return nil
}

// rawManifest is the manifest as written.
type rawManifest struct {
	Paper    string      `yaml:"paper"`
	Template string      `yaml:"template"`
	Players  []rawPlayer `yaml:"players"`
	lines    map[string]int
}

func (r *rawManifest) line(key string) int { return r.lines[key] }

// UnmarshalYAML records the line of each top-level key and refuses unknown keys.
func (r *rawManifest) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &lineError{n.Line, "a manifest is a mapping with paper, template and players"}
	}
	lines, err := checkKeys(n, "manifest", "paper", "template", "players")
	if err != nil {
		return err
	}
	type plain rawManifest
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = rawManifest(p)
	r.lines = lines
	return nil
}

type rawPlayer struct {
	Name   *string   `yaml:"name"`
	Skills []string  `yaml:"skills"`
	Sheet  *string   `yaml:"sheet"`
	Tears  []rawTear `yaml:"tears"`
	Line   int       `yaml:"-"`
	lines  map[string]int
}

// UnmarshalYAML records the player's lines and refuses unknown keys.
func (r *rawPlayer) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &lineError{n.Line, "a player is a mapping with name, skills, sheet and tears"}
	}
	lines, err := checkKeys(n, "player", "name", "skills", "sheet", "tears")
	if err != nil {
		return err
	}
	type plain rawPlayer
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = rawPlayer(p)
	r.Line, r.lines = n.Line, lines
	return nil
}

func (r *rawPlayer) player(pos int, mode Mode) (Player, error) {
	at := func(key string) int {
		if l := r.lines[key]; l > 0 {
			return l
		}
		return r.Line
	}
	p := Player{Line: r.Line}
	if r.Name == nil || strings.TrimSpace(*r.Name) == "" {
		return p, &lineError{at("name"), fmt.Sprintf("player %d has no name", pos)}
	}
	p.Name = text(*r.Name)
	if err := checkName(p.Name); err != nil {
		return p, &lineError{at("name"), fmt.Sprintf("player name: %v", err)}
	}
	who := fmt.Sprintf("player %q", p.Name)
	if len(r.Skills) > MaxSkills {
		return p, &lineError{at("skills"), fmt.Sprintf("%s: %d skills: at most %d", who, len(r.Skills), MaxSkills)}
	}
	declared := map[string]string{}
	for _, s := range r.Skills {
		s = text(s)
		if err := checkName(s); err != nil {
			return p, &lineError{at("skills"), fmt.Sprintf("%s: skill: %v", who, err)}
		}
		if judge.Letters(s) == 0 {
			return p, &lineError{at("skills"), fmt.Sprintf("%s: skill %q has no letters", who, s)}
		}
		if first, dup := declared[strings.ToLower(s)]; dup {
			return p, &lineError{at("skills"), fmt.Sprintf("%s: skill %q declared twice%s", who, s, Spellings(first, s))}
		}
		declared[strings.ToLower(s)] = s
		p.Skills = append(p.Skills, s)
	}
	if r.Sheet != nil && mode == Plan {
		return p, &lineError{at("sheet"), fmt.Sprintf("%s: sheet: %s", who, planNoPhotos)}
	}
	if r.Sheet != nil {
		p.Sheet = strings.TrimSpace(*r.Sheet)
		p.SheetLine = at("sheet")
		if err := checkLocal(p.Sheet); err != nil {
			return p, &lineError{at("sheet"), fmt.Sprintf("%s: sheet: %v", who, err)}
		}
	} else if mode == Audit {
		return p, &lineError{r.Line, fmt.Sprintf("%s: no sheet (the untorn sheet's photo)", who)}
	}
	if len(r.Tears) > MaxTears {
		return p, &lineError{at("tears"), fmt.Sprintf("%s: %d tears: at most %d", who, len(r.Tears), MaxTears)}
	}
	for i, rt := range r.Tears {
		t, err := rt.tear(i+1, who, declared, p.Skills, mode)
		if err != nil {
			return p, err
		}
		p.Tears = append(p.Tears, t)
	}
	return p, nil
}

type rawTear struct {
	Photo *string `yaml:"photo"`
	Kind  string  `yaml:"kind"`
	Skill *string `yaml:"skill"`
	Hit   *bool   `yaml:"hit"`
	GM    *rawGM  `yaml:"gm"`
	Line  int     `yaml:"-"`
}

// rawGM is a tear's gm: as written (judge.GMRuling).
type rawGM struct {
	Verdict           string         `yaml:"verdict"`
	Faults            []string       `yaml:"faults"`
	Remaining         map[string]int `yaml:"remaining"`
	PaperFitsTemplate *bool          `yaml:"paper_fits_template"`
	Out               string         `yaml:"out"`
	Note              string         `yaml:"note"`
	// bad says what is wrong with a field's type, for tear() to report with the player and
	// the tear (a tester: "cannot unmarshal !!str into []string" named neither).
	bad string
}

// gmKeys are the fields of a tear's gm:.
var gmKeys = []string{"verdict", "faults", "remaining", "paper_fits_template", "out", "note"}

// UnmarshalYAML refuses unknown keys.
func (r *rawGM) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &lineError{n.Line, "a tear's gm is a mapping with " + strings.Join(gmKeys, ", ")}
	}
	if _, err := checkKeys(n, "gm", gmKeys...); err != nil {
		return err
	}
	// Each field's type is checked before decoding: YAML decoding reads 2.5 as the int 2 and
	// "yes" (quoted) as true, which a ruling must not do silently (a tester).
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if why := gmFieldType(k, v); why != "" {
			*r = rawGM{bad: why}
			return nil
		}
	}
	type plain rawGM
	var p plain
	if err := n.Decode(&p); err != nil {
		*r = rawGM{bad: "not a valid ruling: " + err.Error()}
		return nil
	}
	*r = rawGM(p)
	return nil
}

// gmFieldType says what is wrong with the type of a gm: field's value v, or "".
func gmFieldType(key string, v *yaml.Node) string {
	scalar := func(tag string) bool { return v.Kind == yaml.ScalarNode && v.Tag == tag }
	switch key {
	case "verdict", "out", "note":
		if v.Kind != yaml.ScalarNode {
			return key + " is a single word or text, not a list or mapping"
		}
	case "faults":
		if v.Kind != yaml.SequenceNode {
			return "faults is a list, e.g. faults: [no_full_letter]"
		}
		for _, f := range v.Content {
			if f.Kind != yaml.ScalarNode {
				return "faults is a list of fault names, e.g. faults: [no_full_letter]"
			}
		}
	case "remaining":
		if v.Kind != yaml.MappingNode {
			return "remaining maps each skill to its letters left, e.g. remaining: {Archery: 4}"
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			if c := v.Content[i+1]; c.Kind != yaml.ScalarNode || c.Tag != "!!int" {
				return fmt.Sprintf("remaining: %q: want a whole number of letters, not %q", v.Content[i].Value, c.Value)
			}
		}
	case "paper_fits_template":
		if !scalar("!!bool") {
			return fmt.Sprintf("paper_fits_template is true or false, not %q", v.Value)
		}
	}
	return ""
}

// ruling checks the GM's ruling against the player's declared skills (in declaration order).
func (r *rawGM) ruling(skills []string) (*judge.GMRuling, error) {
	g := &judge.GMRuling{Verdict: judge.Verdict(strings.TrimSpace(r.Verdict)), Out: judge.OutReason(strings.TrimSpace(r.Out)),
		PaperFitsTemplate: r.PaperFitsTemplate, Note: text(r.Note)}
	for _, f := range r.Faults {
		g.Faults = append(g.Faults, judge.Fault(strings.TrimSpace(f)))
	}
	if len(r.Remaining) > 0 {
		g.Remaining = make(map[string]int, len(r.Remaining))
		for k, v := range r.Remaining {
			g.Remaining[text(k)] = v
		}
	}
	if g.Note != "" {
		if err := checkName(g.Note); err != nil {
			return nil, fmt.Errorf("note: %v", err)
		}
	}
	if err := g.Check(skills); err != nil {
		return nil, errors.New(strings.TrimSuffix(err.Error(), ": "+judge.ErrBadGMRuling.Error()))
	}
	return g, nil
}

// UnmarshalYAML records the tear's line and refuses unknown keys.
func (r *rawTear) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &lineError{n.Line, "a tear is a mapping with photo, kind, skill (and hit for last_ditch, gm for the GM's ruling)"}
	}
	if _, err := checkKeys(n, "tear", "photo", "kind", "skill", "hit", "gm"); err != nil {
		return err
	}
	type plain rawTear
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = rawTear(p)
	r.Line = n.Line
	return nil
}

func (r *rawTear) tear(pos int, who string, declared map[string]string, skills []string, mode Mode) (Tear, error) {
	t, err := r.announced(pos, who, declared, mode)
	if err != nil || r.GM == nil {
		return t, err
	}
	bad := func(format string, a ...any) error {
		return &lineError{r.Line, fmt.Sprintf("%s: tear %d: gm: ", who, pos) + fmt.Sprintf(format, a...)}
	}
	switch {
	case mode == Plan:
		return t, bad("a watch plan says what the camera will see: the GM's rulings go in an audit manifest")
	case t.Kind == judge.KindLastDitch:
		return t, bad("a last_ditch is not measured, there is nothing to rule (hit says how it went)")
	}
	if r.GM.bad != "" {
		return t, bad("%s", r.GM.bad)
	}
	if t.GM, err = r.GM.ruling(skills); err != nil {
		return t, bad("%v", err)
	}
	return t, nil
}

// announced is the tear as announced (kind, skill, photo, hit), checked.
func (r *rawTear) announced(pos int, who string, declared map[string]string, mode Mode) (Tear, error) {
	bad := func(format string, a ...any) error {
		return &lineError{r.Line, fmt.Sprintf("%s: tear %d: ", who, pos) + fmt.Sprintf(format, a...)}
	}
	t := Tear{Line: r.Line}
	t.Kind = judge.Kind(strings.TrimSpace(r.Kind))
	switch t.Kind {
	case judge.KindUse, judge.KindDamage, judge.KindPenalty, judge.KindLastDitch:
	case "":
		return t, bad("no kind: want use, damage, penalty or last_ditch")
	default:
		return t, bad("unknown kind %q: want use, damage, penalty or last_ditch", r.Kind)
	}
	if r.Skill != nil {
		t.Skill = text(*r.Skill)
	}
	if t.Kind == judge.KindLastDitch {
		// The ball may be thrown for any skill, even one not on the sheet (tear rules seed,
		// "LAST DITCH EFFORT"), so the skill is kept as written and not checked.
		if r.Photo != nil && strings.TrimSpace(*r.Photo) != "" {
			return t, bad("last_ditch takes no photo (the sheet is crumpled and thrown)")
		}
		if r.Hit == nil {
			// A miss and a hit both put the character out, but they are different outcomes:
			// the referee does not guess which.
			return t, bad("last_ditch needs hit: true or false (did the ball hit the GM?)")
		}
		t.Hit = *r.Hit
		if err := checkName(t.Skill); t.Skill != "" && err != nil {
			return t, bad("skill: %v", err)
		}
		return t, nil
	}
	if r.Hit != nil {
		return t, bad("hit is only for last_ditch")
	}
	switch {
	case t.Skill == "" && t.Kind == judge.KindPenalty:
		// The tear owed after a faux pas may take its full letter from any skill (judge:
		// a penalty naming no skill), as `watch` and `judge --tear penalty` accept.
	case t.Skill == "":
		return t, bad("no skill: a %s tear names the skill it removes letters of", t.Kind)
	case len(declared) > 0:
		s, ok := declared[strings.ToLower(t.Skill)]
		if !ok {
			return t, bad("unknown skill %q: not among the player's skills", t.Skill)
		}
		t.Skill = s
	default:
		if err := checkName(t.Skill); err != nil {
			return t, bad("skill: %v", err)
		}
	}
	if r.Photo != nil && mode == Plan {
		return t, bad("photo: %s", planNoPhotos)
	}
	if r.Photo != nil {
		t.Photo = strings.TrimSpace(*r.Photo)
		if err := checkLocal(t.Photo); err != nil {
			return t, bad("photo: %v", err)
		}
	} else if mode == Audit {
		return t, bad("no photo")
	}
	return t, nil
}

// checkKeys refuses keys other than allowed in the mapping n and returns each key's line.
func checkKeys(n *yaml.Node, what string, allowed ...string) (map[string]int, error) {
	lines := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, a := range allowed {
			if k.Value == a {
				ok = true
				break
			}
		}
		if !ok || k.Kind != yaml.ScalarNode {
			return nil, &lineError{k.Line, fmt.Sprintf("unknown %s field %q: want %s", what, k.Value, strings.Join(allowed, ", "))}
		}
		lines[k.Value] = k.Line
	}
	return lines, nil
}

// checkName refuses names that would make an unreadable report or a misleading ruling.
func checkName(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case utf8.RuneCountInString(s) > MaxNameRunes:
		return fmt.Errorf("longer than %d characters", MaxNameRunes)
	case strings.ContainsAny(s, "\x00\r\n\t"):
		return fmt.Errorf("%q holds a control character", s)
	}
	return nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError turns a yaml.v3 error into one line naming the file and, where given, the line.
func yamlError(name string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &Error{File: name, Line: le.line, Msg: le.msg}
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		e := parseYAMLMsg(name, te.Errors[0])
		if len(te.Errors) > 1 {
			e.Msg += fmt.Sprintf(" (and %d more)", len(te.Errors)-1)
		}
		return e
	}
	return parseYAMLMsg(name, err.Error())
}

func parseYAMLMsg(name, msg string) *Error {
	msg = strings.Join(strings.Fields(msg), " ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: line, Msg: "not a valid manifest: " + m[2]}
	}
	return &Error{File: name, Msg: "not a valid manifest: " + strings.TrimPrefix(msg, "yaml: ")}
}

// oneLine is the message of err (or of fallback when err is nil) on one line.
func oneLine(err, fallback error) string {
	if err == nil {
		err = fallback
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

func cutPrefix(err error, prefix string) string {
	return strings.TrimPrefix(oneLine(err, err), prefix)
}

// Spellings names the two spellings of a skill declared twice, as (as "Hand" and "HAND"),
// with a space before it; "" when both are written alike.
func Spellings(first, again string) string {
	if first == again {
		return ""
	}
	return fmt.Sprintf(" (as %q and %q)", first, again)
}
