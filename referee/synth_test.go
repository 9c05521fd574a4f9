package referee_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/referee"
	"tearcam/session"
	"tearcam/store"
	"tearcam/store/storetest"
)

// synthDir is the synthetic photo set with ground truth (make testdata), or
// $TEARCAM_SYNTH_DIR.
func synthDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TEARCAM_SYNTH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "testdata", "images", "synth")
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	if len(cases) == 0 {
		tb.Skipf("no synthetic set in %s (make testdata, or set TEARCAM_SYNTH_DIR)", dir)
	}
	return dir
}

// scores are issue 5's figures over a synthetic set.
type scores struct {
	tears, unambiguous, verdictRight int
	cutOff, cutOffUndecided          int // unambiguous tears whose photo cuts the sheet off
	undecided, wrongDecided          int // unambiguous tears ruled undecided; decided but wrong
	// faultInDoubt: the verdict right, a fault left out of the list because it was too close
	// to call (the notes say it "may also apply"), the rest of the faults right.
	faultInDoubt        int
	skills, skillsRight int
	skillsUndecided     int      // letters left wrong on an undecided tear
	skillsWrongCertain  int      // letters left wrong and marked measured (presented as certain)
	skillsRightDoubted  int      // letters left right (exactly) but marked "?" (not measured)
	skillsWithinTruth   int      // counted right: off by no more than the truth's own ambiguous letters
	skillsWrong         []string // letters left wrong on a decided tear
	outWrongly          []string
	faults              map[judge.Fault]*[3]int // true positives, false positives, false negatives
	// missedHow splits each fault's false negatives by how it was missed: "undecided" (the
	// tear ruled undecided), "in doubt" (a faux pas whose notes say the fault "may also
	// apply"), "decided" (a decided ruling that does not list it: measured wrongly).
	missedHow map[judge.Fault]map[string]int
	wrong     []string
	causes    map[string]int // why unambiguous tears were undecided
	// weak: the tears undecided only for a weak read of the skill torn for, each with the
	// read's confidence and whether the generator's truth has the location right;
	// weakRight counts those right (every letter's centre on its letter).
	weak      []string
	weakRight int
	fallbacks []string // tears registered to the previous photo
}

// undecidedCause sorts an undecided reason into a few causes, for the figures' log.
func undecidedCause(reason string) string {
	switch {
	case strings.Contains(reason, "untorn sheet could not be read"):
		return "fresh sheet not found"
	case strings.Contains(reason, "cannot align photo"):
		return "registration refused"
	case strings.Contains(reason, "measurement refused"):
		return "photo refused (sheet not found, cut off, ...)"
	case strings.Contains(reason, "whose photo could not be measured"):
		return "follows an unmeasured tear"
	case strings.Contains(reason, "were not located"), strings.Contains(reason, "never located"):
		return "skill not located by ocr"
	case strings.Contains(reason, "is ambiguous"), strings.Contains(reason, "is unknown"), strings.Contains(reason, "too close to call"):
		return "letter ambiguous or unknown"
	case strings.Contains(reason, "already out"):
		return "already out"
	case strings.Contains(reason, " in doubt: ") && !strings.Contains(reason, "the GM decides"): // judge: a measurement in doubt
		return "measurement doubt"
	case strings.Contains(reason, "(the skill torn for) was located by a weak read"):
		return "weak read of the skill torn for"
	case strings.Contains(reason, "(the skill torn for) may be another word's"):
		return "skill torn for also reads elsewhere"
	}
	return "other"
}

func newScores() *scores {
	s := &scores{faults: map[judge.Fault]*[3]int{}, missedHow: map[judge.Fault]map[string]int{}, causes: map[string]int{}}
	for _, f := range []judge.Fault{judge.FaultNothingRemoved, judge.FaultNoFullLetter, judge.FaultPieceTooSmall, judge.FaultNotEdgeToEdge, judge.FaultSeveralPieces} {
		s.faults[f] = &[3]int{}
		s.missedHow[f] = map[string]int{}
	}
	return s
}

// add compares one case's rulings with its truth. A tear is unambiguous when the truth does
// not mark a measurement the ruling depends on as too close to call.
func (s *scores) add(name string, truth *synth.Truth, doc judge.Rulings, locs map[string]freshLoc) {
	for i, pt := range truth.Players {
		var pr judge.PlayerRulings
		if i < len(doc.Players) {
			pr = doc.Players[i]
		}
		for j, tt := range pt.Tears {
			s.tears++
			var got judge.TearRuling
			if j < len(pr.Tears) {
				got = pr.Tears[j]
			}
			want := tt.Expected
			id := fmt.Sprintf("%s/%s tear %d", name, pt.Name, tt.Index)
			if got.Out && !want.Out {
				s.outWrongly = append(s.outWrongly, fmt.Sprintf("%s: out (%s), truth in play", id, got.OutReason))
			}
			for _, n := range got.Notes {
				if strings.HasPrefix(n, "registered to the previous measured photo") {
					s.fallbacks = append(s.fallbacks, fmt.Sprintf("%s: got %s %v, want %s %v", id, got.Verdict, got.Faults, want.Verdict, want.Faults))
				}
			}
			if tt.Ambiguous || want.Verdict == judge.Undecided {
				continue
			}
			s.unambiguous++
			if tt.Photo.CutOff {
				s.cutOff++
				if got.Verdict == judge.Undecided {
					s.cutOffUndecided++
				}
			}
			if got.Verdict == want.Verdict && slices.Equal(got.Faults, want.Faults) {
				s.verdictRight++
			} else {
				if got.Verdict == want.Verdict && faultLeftInDoubt(got, want) {
					s.faultInDoubt++
				} else if got.Verdict == judge.Undecided {
					s.undecided++
					cause := undecidedCause(got.UndecidedReason)
					s.causes[cause]++
					if cause == "weak read of the skill torn for" {
						w, right := weakCheck(pt, tt.Skill, got.UndecidedReason, locs)
						if right {
							s.weakRight++
						}
						s.weak = append(s.weak, fmt.Sprintf("%s: %s", id, w))
					}
				} else {
					s.wrongDecided++
				}
				s.wrong = append(s.wrong, fmt.Sprintf("%s (%s): got %s %v %q, want %s %v", id, tt.Intent, got.Verdict, got.Faults, got.UndecidedReason, want.Verdict, want.Faults))
			}
			for f, c := range s.faults {
				g, w := slices.Contains(got.Faults, f), slices.Contains(want.Faults, f)
				switch {
				case g && w:
					c[0]++
				case g:
					c[1]++
				case w:
					c[2]++
					switch {
					case got.Verdict == judge.Undecided:
						s.missedHow[f]["undecided"]++
					case slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "so "+string(f)+" may also apply") }):
						s.missedHow[f]["in doubt"]++
					default:
						s.missedHow[f]["decided"]++
					}
				}
			}
			for k, ws := range want.Skills {
				s.skills++
				g := -1
				if k < len(got.Skills) {
					g = got.Skills[k].Remaining
				}
				if g == ws.Remaining {
					s.skillsRight++
					if k < len(got.Skills) && !got.Skills[k].Measured {
						s.skillsRightDoubted++
					}
					continue
				}
				// The truth's own letters too close to call (a sliver of ink cut, a hair's
				// miss): its count may be off by that many, either way.
				if k < len(tt.Uncertain) && g >= 0 && abs(g-ws.Remaining) <= tt.Uncertain[k] {
					s.skillsRight++
					s.skillsWithinTruth++
					continue
				}
				// A wrong count the ruling marks as measured (no "?") is a wrong statement
				// presented as certain: the figure a referee cares about most.
				certain := k < len(got.Skills) && got.Skills[k].Measured
				if certain {
					s.skillsWrongCertain++
				}
				if got.Verdict == judge.Undecided {
					s.skillsUndecided++
				} else {
					mark := "?"
					if certain {
						mark = "measured"
					}
					s.skillsWrong = append(s.skillsWrong, fmt.Sprintf("%s %s: %s left %d (%s), truth %d", id, got.Verdict, ws.Name, g, mark, ws.Remaining))
				}
			}
		}
	}
}

// faultLeftInDoubt reports whether got lists want's faults but one or more that its notes say
// "may also apply" (judge: a certain faux pas with another fault too close to call).
func faultLeftInDoubt(got, want judge.TearRuling) bool {
	rest := slices.DeleteFunc(slices.Clone(want.Faults), func(f judge.Fault) bool {
		return slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "so "+string(f)+" may also apply") })
	})
	return len(rest) < len(want.Faults) && len(rest) > 0 && slices.Equal(got.Faults, rest)
}

// freshLoc is what ocr/ located on a player's fresh sheet, with the map from photo pixels
// to the frame its layouts are in.
type freshLoc struct {
	layouts []judge.SkillLayout
	toFrame func(x, y float64) judge.Point
}

// recordingReader is a Reader that keeps each fresh sheet's layouts, by declared skills.
type recordingReader struct {
	referee.Reader
	mu   sync.Mutex
	locs map[string]freshLoc
}

func skillsKey(skills []string) string { return strings.Join(skills, "\x00") }

func (r *recordingReader) Locate(sh referee.Sheet, skills []string) ([]judge.SkillLayout, error) {
	lays, err := r.Reader.Locate(sh, skills)
	if err != nil {
		return lays, err
	}
	toFrame, ferr := referee.FreshToFrame(sh)
	if ferr != nil {
		return lays, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := skillsKey(skills)
	if _, dup := r.locs[k]; dup {
		r.locs[k] = freshLoc{} // two sheets with the same skills: which is whose is not known
	} else {
		r.locs[k] = freshLoc{layouts: lays, toFrame: toFrame}
	}
	return lays, err
}

var weakPercent = regexp.MustCompile(`was located by a weak read \((\d+)%\)`)

// weakCheck says whether the fresh sheet's location of skill (the skill torn for) is
// right by the generator's truth: every letter's centre inside its own letter's true
// outline grown by 1 mm. It describes the read and the check.
func weakCheck(pt synth.PlayerTruth, skill, reason string, locs map[string]freshLoc) (string, bool) {
	pc := "?"
	if m := weakPercent.FindStringSubmatch(reason); m != nil {
		pc = m[1] + "%"
	}
	names := make([]string, len(pt.Skills))
	k := -1
	for i, sk := range pt.Skills {
		names[i] = sk.Name
		if strings.EqualFold(sk.Name, skill) {
			k = i
		}
	}
	loc := locs[skillsKey(names)]
	if k < 0 || loc.toFrame == nil || k >= len(loc.layouts) {
		return fmt.Sprintf("%q at %s: location not recorded", skill, pc), false
	}
	lay, st := loc.layouts[k], pt.Skills[k]
	if len(lay.Letters) != len(st.Letters) {
		return fmt.Sprintf("%q at %s (%s): %d letters located, truth %d: wrong", skill, pc, st.Font, len(lay.Letters), len(st.Letters)), false
	}
	marks := ""
	right := true
	for i, le := range lay.Letters {
		var q []judge.Point
		for _, p := range st.Letters[i].OutlineMM {
			h := pt.Sheet.Homography.Apply(synth.Pt{X: p[0], Y: p[1]})
			q = append(q, loc.toFrame(h.X, h.Y))
		}
		if len(le.Outline) > 0 && nearPolygon(q, centre(le.Outline), 1) {
			marks += st.Letters[i].Char
		} else {
			marks += "*"
			right = false
		}
	}
	verdict := "right"
	if !right {
		verdict = "WRONG"
	}
	return fmt.Sprintf("%q at %s (%s, identity %.0f%%): letters %s: %s", skill, pc, st.Font, 100*lay.Identity, marks, verdict), right
}

// centre is the mean of an outline's points.
func centre(ps []judge.Point) judge.Point {
	var c judge.Point
	for _, p := range ps {
		c.X += p.X
		c.Y += p.Y
	}
	c.X /= float64(len(ps))
	c.Y /= float64(len(ps))
	return c
}

// nearPolygon reports whether p lies inside the polygon q or within d of its edges.
func nearPolygon(q []judge.Point, p judge.Point, d float64) bool {
	in := false
	for i, j := 0, len(q)-1; i < len(q); j, i = i, i+1 {
		a, b := q[i], q[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
		dx, dy := b.X-a.X, b.Y-a.Y
		t := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			t = math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l))
		}
		if math.Hypot(a.X+t*dx-p.X, a.Y+t*dy-p.Y) <= d {
			return true
		}
	}
	return in
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s *scores) report(tb testing.TB) {
	tb.Logf("tears %d, unambiguous %d: verdict and faults right %d (%.1f%%); undecided %d; decided wrongly %d",
		s.tears, s.unambiguous, s.verdictRight, 100*ratio(s.verdictRight, s.unambiguous), s.undecided, s.wrongDecided)
	if s.faultInDoubt > 0 {
		tb.Logf("verdict right but a fault left out as too close to call (noted: it may also apply): %d", s.faultInDoubt)
	}
	if s.cutOff > 0 {
		// Part of the sheet is outside such a photo: what was torn there cannot be seen, so
		// undecided is the honest ruling (issue 3: a sheet cut off by the frame is an error).
		tb.Logf("of these, %d photos cut the sheet off (%d ruled undecided); on the %d that show the whole sheet: right %d (%.1f%%)",
			s.cutOff, s.cutOffUndecided, s.unambiguous-s.cutOff, s.verdictRight, 100*ratio(s.verdictRight, s.unambiguous-s.cutOff))
	}
	tb.Logf("letters left per skill right: %d/%d (%.1f%%); of the wrong ones, %d on undecided tears, %d on decided tears",
		s.skillsRight, s.skills, 100*ratio(s.skillsRight, s.skills), s.skillsUndecided, len(s.skillsWrong))
	tb.Logf("letters left wrong but marked measured (no ?, presented as certain): %d", s.skillsWrongCertain)
	tb.Logf("letters left right but marked ? (the cost of doubt): %d", s.skillsRightDoubted)
	if s.skillsWithinTruth > 0 {
		tb.Logf("(of the right ones, %d differ from the truth's count by no more than its own letters too close to call)", s.skillsWithinTruth)
	}
	for _, w := range s.skillsWrong {
		tb.Log("  letters left: " + w)
	}
	var names []string
	for f := range s.faults {
		names = append(names, string(f))
	}
	sort.Strings(names)
	for _, f := range names {
		c := s.faults[judge.Fault(f)]
		how := s.missedHow[judge.Fault(f)]
		tb.Logf("fault %-16s recall %.2f precision %.2f (tp %d, fp %d, fn %d: %d on undecided tears, %d left in doubt on a faux pas, %d on decided rulings)",
			f, ratio(c[0], c[0]+c[2]), ratio(c[0], c[0]+c[1]), c[0], c[1], c[2], how["undecided"], how["in doubt"], how["decided"])
	}
	tb.Logf("characters put out wrongly: %d", len(s.outWrongly))
	var causes []string
	for c := range s.causes {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool {
		if s.causes[causes[i]] != s.causes[causes[j]] {
			return s.causes[causes[i]] > s.causes[causes[j]]
		}
		return causes[i] < causes[j] // the log reads the same run after run
	})
	for _, c := range causes {
		tb.Logf("undecided because %s: %d", c, s.causes[c])
	}
	if len(s.weak) > 0 {
		tb.Logf("undecided only for a weak read: %d, the location right by the truth on %d", len(s.weak), s.weakRight)
		for _, w := range s.weak {
			tb.Log("  weak read: " + w)
		}
	}
	for _, f := range s.fallbacks {
		tb.Log("registered to the previous photo: " + f)
	}
	for _, w := range s.wrong {
		tb.Log("  " + w)
	}
}

// TestSynthFigures audits every case of the synthetic set with the real vision and OCR and
// reports issue 5's figures. It asserts the hard invariant (no character put out wrongly);
// the rates are logged (run with -v) while vision and OCR mature.
func TestSynthFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("audits the whole synthetic set")
	}
	dir := synthDir(t)
	cv, err := referee.NewCV(2)
	require.NoError(t, err)
	defer cv.Close()
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	s := newScores()
	for _, tj := range cases {
		caseDir := filepath.Dir(tj)
		truth, err := synth.LoadTruth(caseDir)
		require.NoError(t, err)
		m, err := session.Load(filepath.Join(caseDir, "session.yaml"), session.Audit)
		require.NoError(t, err)
		rec := &recordingReader{Reader: cv, locs: map[string]freshLoc{}}
		r := &referee.Referee{Eye: cv, Reader: rec, Versions: store.Versions{Tearcam: "test"}}
		res, err := r.Audit(context.Background(), m)
		require.NoError(t, err)
		s.add(filepath.Base(caseDir), truth, res.Rulings, rec.locs)
		if out := os.Getenv("TEARCAM_SYNTH_DUMP"); out != "" {
			// The rulings of every case, for a closer look at the figures.
			b, err := json.MarshalIndent(res.Rulings, "", " ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(out, filepath.Base(caseDir)+".json"), b, 0o644))
		}
	}
	s.report(t)
	if len(s.outWrongly) > 0 {
		t.Errorf("characters put out wrongly:\n%s", strings.Join(s.outWrongly, "\n"))
	}
	// The referee's first duty: a wrong ruling presented as certain is worse than undecided.
	if s.wrongDecided > 0 {
		t.Errorf("%d tears decided wrongly (see the log)", s.wrongDecided)
	}
	if n, profile := leakedMats(); n > 0 {
		t.Errorf("%d Mats leaked:\n%s", n, profile)
	}
}

// TestJoinedStrokeAcrossTear renders case-009 of the independent synthetic set of seed 11
// (tearcam-synth --seed 11 --cases 20) and audits it with the real vision and OCR: no tear
// may be decided against the generator's truth, nor a count of letters left presented as
// measured that the truth does not give. Its tear 3 cuts the exit stroke of the "k" of
// "Tracking", which ocr/'s division of the joined writing gave to the next letter's outline:
// the "k" was counted whole on the sheet for certain, "Tracking" 5 left (truth 4), until the
// split doubt looked at the neighbour's ink across the tear beside a letter on the sheet too.
func TestJoinedStrokeAcrossTear(t *testing.T) {
	tracked := auditRenderedCase(t, 11, 9, 3, "Tracking")
	t.Logf("tear 3: Tracking measured: %v", tracked)
}

// TestExitStrokeAcrossTear renders case-002 of the synthetic set of seed 13 and audits it as
// TestJoinedStrokeAcrossTear does. Its tear 3 cuts the exit stroke of the first "m" of
// "Swimming" (Breip, a joined hand) 2.8 mm beyond that m's ocr/ outline, inside the second
// m's, 3.9 mm from the ink ocr/ left the first m: "Swimming" was counted 4 left for certain,
// truth 3, until exitDoubt looked along the writing for the tear in the next letter's outline
// (a letter's exit stroke goes to the next letter in ocr/'s division).
func TestExitStrokeAcrossTear(t *testing.T) {
	auditRenderedCase(t, 13, 2, 3, "Swimming")
}

// auditRenderedCase renders case number idx (1-based) of the synthetic set of seed seed, audits
// it with the real vision and OCR and checks every decided tear's verdict and faults and every
// count of letters left marked measured against the generator's truth (off by no more than the
// truth's own letters too close to call). It reports whether skill's count after tear was
// measured.
func auditRenderedCase(t *testing.T, seed int64, idx, tear int, skill string) bool {
	t.Helper()
	if testing.Short() {
		t.Skip("renders a case and runs the real pipeline")
	}
	spec := synth.SetSpecs(synth.SetOptions{Seed: seed, Cases: 20})[idx-1]
	require.Equal(t, fmt.Sprintf("case-%03d", idx), spec.Name)
	c, err := synth.GenerateCase(spec)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, c.Write(dir))
	truth, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	m, err := session.Load(filepath.Join(dir, "session.yaml"), session.Audit)
	require.NoError(t, err)
	cv, err := referee.NewCV(2)
	require.NoError(t, err)
	defer cv.Close()
	r := &referee.Referee{Eye: cv, Reader: cv, Versions: store.Versions{Tearcam: "test"}}
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	require.Len(t, res.Rulings.Players, len(truth.Players))
	measured := false
	for i, pt := range truth.Players {
		got := res.Rulings.Players[i].Tears
		require.Len(t, got, len(pt.Tears))
		for j, tt := range pt.Tears {
			g, want := got[j], tt.Expected
			if g.Verdict != judge.Undecided && !tt.Ambiguous && want.Verdict != judge.Undecided {
				assert.Equal(t, want.Verdict, g.Verdict, "%s tear %d", pt.Name, tt.Index)
				assert.Equal(t, want.Faults, g.Faults, "%s tear %d", pt.Name, tt.Index)
			}
			for k, ws := range want.Skills {
				if k >= len(g.Skills) || !g.Skills[k].Measured {
					continue
				}
				u := 0
				if k < len(tt.Uncertain) {
					u = tt.Uncertain[k]
				}
				assert.LessOrEqual(t, abs(g.Skills[k].Remaining-ws.Remaining), u, "%s tear %d: %s left %d measured, truth %d", pt.Name, tt.Index, ws.Name, g.Skills[k].Remaining, ws.Remaining)
				if tt.Index == tear && ws.Name == skill {
					measured = true
				}
			}
		}
	}
	if n, profile := leakedMats(); n > 0 {
		t.Errorf("%d Mats leaked:\n%s", n, profile)
	}
	return measured
}

var benchCase struct {
	once sync.Once
	dir  string
	err  error
}

// tenTearSession generates (once per process) a one-player session of ten tears of every
// kind with the synthetic generator.
func tenTearSession(b *testing.B) *session.Manifest {
	benchCase.once.Do(func() {
		benchCase.dir, benchCase.err = os.MkdirTemp("", "tearcam-bench-")
		if benchCase.err != nil {
			return
		}
		plan := []synth.TearPlan{
			{Kind: synth.TearBite, Action: judge.KindUse}, {Kind: synth.TearNone, Action: judge.KindUse},
			{Kind: synth.TearCorner, Action: judge.KindPenalty}, {Kind: synth.TearHole, Action: judge.KindDamage},
			{Kind: synth.TearBite, Action: judge.KindPenalty}, {Kind: synth.TearTooSmall, Action: judge.KindUse},
			{Kind: synth.TearCorner, Action: judge.KindPenalty}, {Kind: synth.TearTwoPieces, Action: judge.KindDamage},
			{Kind: synth.TearCutOnly, Action: judge.KindPenalty}, {Kind: synth.TearBite, Action: judge.KindUse},
		}
		var c *synth.Case
		c, benchCase.err = synth.GenerateCase(synth.CaseSpec{Name: "bench", Seed: 4242, Paper: "a4", Tears: plan})
		if benchCase.err == nil {
			benchCase.err = c.Write(benchCase.dir)
		}
	})
	if benchCase.err != nil {
		b.Fatal(benchCase.err)
	}
	m, err := session.Load(filepath.Join(benchCase.dir, "session.yaml"), session.Audit)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkAudit10Tears audits a ten-tear session as `tearcam audit` does (OCR started, the
// fresh sheet located, every tear registered, measured, re-read and annotated, rulings
// stored). Target: under 15 s per op on the project's 2-core machine.
func BenchmarkAudit10Tears(b *testing.B) { benchmarkAudit(b, true) }

// BenchmarkAudit10TearsNoStore is the same without the database and annotated images.
func BenchmarkAudit10TearsNoStore(b *testing.B) { benchmarkAudit(b, false) }

func benchmarkAudit(b *testing.B, withStore bool) {
	m := tenTearSession(b)
	tears := 0
	for _, p := range m.Players {
		tears += len(p.Tears)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cv, err := referee.NewCV(2)
		if err != nil {
			b.Fatal(err)
		}
		r := &referee.Referee{Eye: cv, Reader: cv, Versions: store.Versions{Tearcam: "bench"}}
		if withStore {
			b.StopTimer()
			db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			r.DB, r.Session = db, "bench"
			defer db.Close()
		}
		if _, err := r.Audit(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		cv.Close()
	}
	b.ReportMetric(float64(tears), "tears/op")
}

// TestRealRulingsReproducible audits one synthetic case twice, each time with a new OCR and
// no database: the JSON must be byte-identical (issue 5, "Reproducible rulings").
func TestRealRulingsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pipeline twice")
	}
	dir := synthDir(t)
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "session.yaml"))
	m, err := session.Load(cases[0], session.Audit)
	require.NoError(t, err)
	var docs [][]byte
	for range 2 {
		cv, err := referee.NewCV(2)
		require.NoError(t, err)
		r := &referee.Referee{Eye: cv, Reader: cv, Versions: store.Versions{Tearcam: "test"}}
		res, err := r.Audit(context.Background(), m)
		cv.Close()
		require.NoError(t, err)
		docs = append(docs, jsonOf(t, res.Rulings))
	}
	require.Equal(t, string(docs[0]), string(docs[1]))
}

// TestRealResumeIsByteIdentical audits the first synthetic case's first tear into a
// database, then all its tears with it, with the real vision and OCR: the JSON must be
// byte-identical to a fresh audit's. In case-001 tear 2 is measured against tear 1's sheet,
// whose letter history (Tracking's "c" in doubt) only the measured sheet carries; a resume
// that registered tear 1's photo again lost it.
func TestRealResumeIsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pipeline three times")
	}
	dir := synthDir(t)
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "session.yaml"))
	sort.Strings(cases)
	m, err := session.Load(cases[0], session.Audit)
	require.NoError(t, err)
	audit := func(m *session.Manifest, db *store.DB) []byte {
		cv, err := referee.NewCV(2)
		require.NoError(t, err)
		defer cv.Close()
		r := &referee.Referee{Eye: cv, Reader: cv, DB: db, Session: "session.yaml", Command: "audit",
			Versions: store.Versions{Tearcam: "test"}}
		res, err := r.Audit(context.Background(), m)
		require.NoError(t, err)
		return jsonOf(t, res.Rulings)
	}
	want := audit(m, nil)

	partial := *m
	partial.Players = slices.Clone(m.Players)
	for i := range partial.Players {
		partial.Players[i].Tears = partial.Players[i].Tears[:min(1, len(partial.Players[i].Tears))]
	}
	db := storetest.MustOpenDB(t)
	audit(&partial, db)
	require.Equal(t, string(want), string(audit(m, db)))
}

// TestRealResumeCutOff audits case-003, whose tear 3 photo cuts the sheet off: filled from tear
// 4's photo, tear 3 stays undecided (paper lost outside its view before tear 4 may be either
// tear's) and tear 4 is ruled as the truth says. A resume from a database that holds tears 1-3
// only (tear 3 measured with no next photo) must give the same JSON as a fresh audit.
func TestRealResumeCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pipeline three times")
	}
	dir := filepath.Join(synthDir(t), "case-003")
	m, err := session.Load(filepath.Join(dir, "session.yaml"), session.Audit)
	if err != nil {
		t.Skip("no case-003 in this set")
	}
	truth, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	require.True(t, truth.Players[0].Tears[2].Photo.CutOff)
	audit := func(m *session.Manifest, db *store.DB) (judge.Rulings, []byte) {
		cv, err := referee.NewCV(2)
		require.NoError(t, err)
		defer cv.Close()
		r := &referee.Referee{Eye: cv, Reader: cv, DB: db, Session: "session.yaml", Command: "audit",
			Versions: store.Versions{Tearcam: "test"}}
		res, err := r.Audit(context.Background(), m)
		require.NoError(t, err)
		return res.Rulings, jsonOf(t, res.Rulings)
	}
	rul, want := audit(m, nil)
	tears := rul.Players[0].Tears
	assert.Equal(t, judge.Undecided, tears[2].Verdict)
	assert.Contains(t, tears[2].UndecidedReason, "outside the view of a photo that cut the sheet off")
	assert.True(t, slices.ContainsFunc(tears[2].Notes, func(n string) bool { return strings.Contains(n, "filled from the next tear's photo") }), "%v", tears[2].Notes)
	exp := truth.Players[0].Tears[3].Expected
	assert.Equal(t, exp.Verdict, tears[3].Verdict, tears[3].UndecidedReason)
	assert.Equal(t, exp.Faults, tears[3].Faults)

	partial := *m
	partial.Players = slices.Clone(m.Players)
	partial.Players[0].Tears = partial.Players[0].Tears[:3]
	db := storetest.MustOpenDB(t)
	audit(&partial, db)
	_, got := audit(m, db)
	require.Equal(t, string(want), string(got))
	if n, profile := leakedMats(); n > 0 {
		t.Errorf("%d Mats leaked:\n%s", n, profile)
	}
}

// TestPhotosOutOfOrder audits a synthetic case with its last two photos swapped. Paper only
// shrinks, so the last tear's photo shows paper the one before it lacked: that tear is
// refused (undecided, saying why) instead of being ruled nothing_removed, and the tears
// before it are ruled as in the right order.
func TestPhotosOutOfOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("audits a synthetic case")
	}
	src := filepath.Join(synthDir(t), "case-001")
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(src, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644))
	}
	man, err := os.ReadFile(filepath.Join(dir, "session.yaml"))
	require.NoError(t, err)
	swapped := strings.NewReplacer("hana-2.jpg", "hana-3.jpg", "hana-3.jpg", "hana-2.jpg").Replace(string(man))
	require.NotEqual(t, string(man), swapped)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.yaml"), []byte(swapped), 0o644))
	truth, err := synth.LoadTruth(dir)
	require.NoError(t, err)

	cv, err := referee.NewCV(2)
	require.NoError(t, err)
	defer cv.Close()
	m, err := session.Load(filepath.Join(dir, "session.yaml"), session.Audit)
	require.NoError(t, err)
	r := &referee.Referee{Eye: cv, Reader: cv, Versions: store.Versions{Tearcam: "test"}}
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	tears := res.Rulings.Players[0].Tears
	require.Len(t, tears, 3)
	// Tear 1 is unchanged by the swap: ruled as its truth says.
	require.Equal(t, truth.Players[0].Tears[0].Expected.Verdict, tears[0].Verdict)
	require.Equal(t, truth.Players[0].Tears[0].Expected.Faults, tears[0].Faults)
	// Tear 3's photo (hana-2.jpg) shows the paper hana-3.jpg lacks: refused.
	require.Equal(t, judge.Undecided, tears[2].Verdict)
	require.Contains(t, tears[2].UndecidedReason, "hana-2.jpg: the photo shows paper that the sheet before this tear lacked")
	require.Contains(t, tears[2].UndecidedReason, "out of order")
	if n, profile := leakedMats(); n > 0 {
		t.Errorf("%d Mats leaked:\n%s", n, profile)
	}
}
