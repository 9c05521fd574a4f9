package synth

import (
	"encoding/json"
	"fmt"
	"image"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"tearcam/judge"
	"tearcam/template"
)

// TearPlan is one tear of a case script.
type TearPlan struct {
	Kind   TearKind
	Action judge.Kind // use, damage or penalty
	Skill  string     // "" picks a skill still on the sheet
}

// CaseSpec says what case to generate. Zero fields take defaults.
type CaseSpec struct {
	Name   string // folder name, e.g. "case-001"
	Seed   int64
	Player string // "" picks a name
	Paper  string // "a4", "letter" or "WxH"; "" picks a4 (80%) or letter
	Sheet  SheetSpec
	// Tears is the script; nil draws Rounds tears (a faux pas is followed by a penalty tear).
	Tears []TearPlan
	// Rounds is the number of tears when Tears is nil; zero draws 3-5. The case stops early
	// when the character is out.
	Rounds    int
	PhotoSize image.Point // zero: 1600x1200
	// Background is the table for every photo of the case ("" picks one).
	Background string
	// CutOff lists photo indexes (0 = fresh sheet) whose paper sticks out of the frame.
	CutOff []int
	// Kinds, when Tears is nil, is a deck the random script draws tear kinds from (in order,
	// wrapping); nil draws them at random.
	Kinds []TearKind
}

// Case is a generated case: the states and photos, ready to write.
type Case struct {
	Spec   CaseSpec
	State  *State
	Photos []*Photo // 0: fresh sheet, then one per tear
	Truth  Truth
}

// PlayerNames are the names generated players get.
var PlayerNames = []string{"Ann", "Bo", "Chidi", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ines", "Jun", "Kofi", "Lena", "Mateo", "Noor"}

// GenerateCase renders a sheet, tears it as scripted and photographs every state. Same spec,
// same bytes.
func GenerateCase(spec CaseSpec) (*Case, error) {
	rng := rand.New(rand.NewSource(spec.Seed))
	if spec.Player == "" {
		spec.Player = PlayerNames[rng.Intn(len(PlayerNames))]
	}
	if spec.Paper == "" {
		spec.Paper = "a4"
		if rng.Float64() < 0.2 {
			spec.Paper = "letter"
		}
	}
	if spec.PhotoSize == (image.Point{}) {
		spec.PhotoSize = image.Pt(1600, 1200)
	}
	paper, err := template.ParsePaper(spec.Paper)
	if err != nil {
		return nil, err
	}
	spec.Sheet.Paper = paper
	sh, err := RenderSheet(rng, spec.Sheet)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", spec.Name, err)
	}
	st := NewState(sh)
	table, bg := NewTable(rng, spec.Background, spec.PhotoSize)
	spec.Background = bg
	c := &Case{Spec: spec, State: st}
	base := strings.ToLower(spec.Player)
	cut := map[int]bool{}
	for _, i := range spec.CutOff {
		cut[i] = true
	}
	shoot := func(i int) (*Photo, error) {
		return st.Photograph(rng, PhotoSpec{Size: spec.PhotoSize, Table: table, Background: bg, CutOff: cut[i], File: fmt.Sprintf("%s-%d.jpg", base, i)})
	}
	p0, err := shoot(0)
	if err != nil {
		return nil, err
	}
	c.Photos = append(c.Photos, p0)

	plans := spec.Tears
	n := len(plans)
	if plans == nil {
		n = spec.Rounds
		if n == 0 {
			n = 3 + rng.Intn(3)
		}
	}
	deck := 0
	var lastSkill string
	for i := 0; i < n && !st.out; i++ {
		var tp TearPlan
		if plans != nil {
			tp = plans[i]
		} else {
			tp = randomPlan(rng, st, spec.Kinds, &deck)
		}
		if tp.Action == "" {
			tp.Action = judge.KindUse
			if rng.Float64() < 0.35 {
				tp.Action = judge.KindDamage
			}
			if st.owed > 0 {
				tp.Action = judge.KindPenalty
			}
		}
		if tp.Skill == "" {
			tp.Skill = pickSkill(rng, st, lastSkill, tp.Action == judge.KindPenalty)
		}
		if tp.Skill == "" {
			break // no skill left on the sheet
		}
		lastSkill = tp.Skill
		res, err := st.Tear(rng, TearSpec{Kind: tp.Kind, Skill: tp.Skill, Action: tp.Action})
		if err != nil {
			return nil, fmt.Errorf("case %s tear %d: %w", spec.Name, i+1, err)
		}
		p, err := shoot(i + 1)
		if err != nil {
			return nil, err
		}
		res.Truth.Photo = p.Truth
		res.Truth.Expected.Photo = p.Truth.File
		c.Photos = append(c.Photos, p)
	}
	c.Truth = c.buildTruth()
	return c, nil
}

// randomPlan draws the next tear kind.
func randomPlan(rng *rand.Rand, st *State, deck []TearKind, next *int) TearPlan {
	if len(deck) > 0 {
		k := deck[*next%len(deck)]
		*next++
		return TearPlan{Kind: k}
	}
	u := rng.Float64()
	if st.owed > 0 {
		u *= 0.6 // a penalty tear is usually done right
	}
	switch {
	case u < 0.3:
		return TearPlan{Kind: TearBite}
	case u < 0.45:
		return TearPlan{Kind: TearCorner}
	case u < 0.58:
		return TearPlan{Kind: TearCutOnly}
	case u < 0.7:
		return TearPlan{Kind: TearTooSmall}
	case u < 0.8:
		return TearPlan{Kind: TearHole}
	case u < 0.9:
		return TearPlan{Kind: TearTwoPieces}
	}
	return TearPlan{Kind: TearNone}
}

// pickSkill picks a skill with letters on the sheet: the last one again for a penalty tear.
func pickSkill(rng *rand.Rand, st *State, last string, penalty bool) string {
	var ok []string
	for si, sk := range st.Sheet.Skills {
		if len(st.onSheet(si)) > 0 {
			ok = append(ok, sk.Name)
			if penalty && sk.Name == last {
				return last
			}
		}
	}
	if len(ok) == 0 {
		return ""
	}
	return ok[rng.Intn(len(ok))]
}

// buildTruth assembles the case's Truth.
func (c *Case) buildTruth() Truth {
	st := c.State
	sh := st.Sheet
	t := Truth{
		Schema: TruthSchema, Case: c.Spec.Name, Seed: c.Spec.Seed,
		Paper:     PaperTruth{Name: sh.Paper.Name, WidthMM: sh.Paper.WidthMM, HeightMM: sh.Paper.HeightMM},
		Template:  TemplateTruth{Name: st.Template.Name, PolygonMM: st.Template.PolygonMM},
		SliverMM2: SliverMM2,
	}
	p := PlayerTruth{Name: c.Spec.Player, Ruled: sh.Ruled, Sheet: c.Photos[0].Truth}
	p.Skills = skillTruths(sh)
	for _, tr := range st.Tears {
		p.Tears = append(p.Tears, tr.Truth)
		p.Out = tr.Truth.Expected.Out
	}
	t.Players = []PlayerTruth{p}
	return t
}

// skillTruths lists the sheet's skills and letters.
func skillTruths(sh *Sheet) []SkillTruth {
	var out []SkillTruth
	px2 := 1 / (sh.PxPerMM * sh.PxPerMM)
	for _, sk := range sh.Skills {
		s := SkillTruth{Name: sk.Name, Font: sk.Font, CapHeightMM: sk.CapHeightMM, AngleDeg: sk.AngleDeg, Ink: sk.Ink}
		for _, l := range sk.Letters {
			lt := LetterTruth{Char: string(l.Char), InkAreaMM2: round2(float64(l.InkPx) * px2)}
			lt.BBoxMM = [4]float64{1e9, 1e9, -1e9, -1e9}
			for _, q := range l.Outline {
				lt.OutlineMM = append(lt.OutlineMM, [2]float64{q.X, q.Y})
				lt.BBoxMM[0] = min(lt.BBoxMM[0], q.X)
				lt.BBoxMM[1] = min(lt.BBoxMM[1], q.Y)
				lt.BBoxMM[2] = max(lt.BBoxMM[2], q.X)
				lt.BBoxMM[3] = max(lt.BBoxMM[3], q.Y)
			}
			s.Letters = append(s.Letters, lt)
		}
		out = append(out, s)
	}
	return out
}

// Write writes the case into dir (created): the photos, truth.json and session.yaml.
func (c *Case) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write case: %w", err)
	}
	for _, p := range c.Photos {
		if err := os.WriteFile(filepath.Join(dir, p.Truth.File), p.JPEG, 0o644); err != nil {
			return fmt.Errorf("write case: %w", err)
		}
	}
	if err := WriteTruth(dir, c.Truth); err != nil {
		return err
	}
	return WriteSession(filepath.Join(dir, "session.yaml"), c.Truth)
}

// WriteTruth writes t as dir/truth.json.
func WriteTruth(dir string, t Truth) error {
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return fmt.Errorf("encode truth: %w", err)
	}
	// One line per innermost array (points, states): readable and a third of the size.
	b = innerArray.ReplaceAllFunc(b, func(m []byte) []byte { return lineBreak.ReplaceAll(m, nil) })
	if err := os.WriteFile(filepath.Join(dir, "truth.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write truth: %w", err)
	}
	return nil
}

var (
	innerArray = regexp.MustCompile(`\[[^\[\]{}]*\]`)
	lineBreak  = regexp.MustCompile(`\n\s*`)
)

// LoadTruth reads dir/truth.json.
func LoadTruth(dir string) (*Truth, error) {
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		return nil, fmt.Errorf("load truth: %w", err)
	}
	var t Truth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("load truth %s: %w", dir, err)
	}
	if t.Schema != TruthSchema {
		return nil, fmt.Errorf("load truth %s: schema %q, want %q", dir, t.Schema, TruthSchema)
	}
	return &t, nil
}

// WriteSession writes the DESIGN.md session manifest for t's players and tears.
func WriteSession(path string, t Truth) error {
	var b strings.Builder
	q := strconv.Quote
	fmt.Fprintf(&b, "# generated by tearcam-synth (internal/synth); ground truth in truth.json\n")
	fmt.Fprintf(&b, "paper: %s\n", yamlPaper(t.Paper))
	fmt.Fprintf(&b, "template: default\n")
	fmt.Fprintf(&b, "players:\n")
	for _, p := range t.Players {
		fmt.Fprintf(&b, "  - name: %s\n", q(p.Name))
		names := make([]string, len(p.Skills))
		for i, s := range p.Skills {
			names[i] = q(s.Name)
		}
		fmt.Fprintf(&b, "    skills: [%s]\n", strings.Join(names, ", "))
		fmt.Fprintf(&b, "    sheet: %s\n", q(p.Sheet.File))
		fmt.Fprintf(&b, "    tears:\n")
		for _, tr := range p.Tears {
			fmt.Fprintf(&b, "      - {photo: %s, kind: %s, skill: %s}\n", q(tr.Photo.File), tr.Kind, q(tr.Skill))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	return nil
}

func yamlPaper(p PaperTruth) string {
	switch p.Name {
	case "a4", "letter":
		return p.Name
	}
	return strconv.FormatFloat(p.WidthMM, 'f', -1, 64) + "x" + strconv.FormatFloat(p.HeightMM, 'f', -1, 64)
}
