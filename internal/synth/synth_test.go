package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
)

// TestCaseInvariants generates cases and checks the truth against itself: a letter is never
// both removed and remaining, areas add up, corners are the homography's images of the sheet
// corners, the expected ruling follows from the measured fields.
func TestCaseInvariants(t *testing.T) {
	n := 2
	if testing.Short() {
		n = 1
	}
	specs := SetSpecs(SetOptions{Seed: 7, Cases: n})
	for _, spec := range specs {
		t.Run(spec.Name, func(t *testing.T) {
			c, err := GenerateCase(spec)
			require.NoError(t, err)
			tr := c.Truth
			require.Len(t, tr.Players, 1)
			p := tr.Players[0]
			sheetArea := tr.Paper.WidthMM * tr.Paper.HeightMM
			removedSum := 0.0
			for _, ph := range append([]PhotoTruth{p.Sheet}, photos(p)...) {
				checkCorners(t, ph, tr.Paper)
			}
			for ti, tt := range p.Tears {
				removedSum += tt.RemovedAreaMM2
				// Remaining + every removed area so far = sheet area within 0.5%.
				assert.InDelta(t, sheetArea, tt.RemainingAreaMM2+removedSum, 0.005*sheetArea, "tear %d areas", tt.Index)
				assert.InDelta(t, tt.BeforeAreaMM2, tt.RemainingAreaMM2+tt.RemovedAreaMM2, 0.05, "tear %d before", tt.Index)
				pieceSum := 0.0
				for _, pc := range tt.Pieces {
					pieceSum += pc.AreaMM2
					assert.GreaterOrEqual(t, pc.AreaMM2, SliverMM2)
				}
				assert.LessOrEqual(t, pieceSum, tt.RemovedAreaMM2+0.05)
				require.Len(t, tt.ExactLetters, len(p.Skills))
				for si, sl := range tt.ExactLetters {
					for li, s := range sl.States {
						// Never both: the exact state is one of on_sheet/removed/cut/gone.
						assert.Contains(t, []judge.LetterState{judge.LetterOnSheet, judge.LetterRemoved, judge.LetterCut, judge.LetterGone}, s)
						if ti > 0 {
							prev := p.Tears[ti-1].ExactLetters[si].States[li]
							if prev != judge.LetterOnSheet {
								assert.Equal(t, judge.LetterGone, s, "%s letter %d was %v before", sl.Name, li, prev)
							}
						}
						if tt.Letters[si].States[li] != judge.LetterAmbiguous {
							assert.Equal(t, s, tt.Letters[si].States[li])
						}
					}
				}
				checkExpected(t, tt)
			}
		})
	}
}

func photos(p PlayerTruth) []PhotoTruth {
	var out []PhotoTruth
	for _, t := range p.Tears {
		out = append(out, t.Photo)
	}
	return out
}

// checkCorners: corners are the homography's images of (0,0), (W,0), (W,H), (0,H).
func checkCorners(t *testing.T, ph PhotoTruth, paper PaperTruth) {
	t.Helper()
	mm := [4]Pt{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}}
	for i, c := range mm {
		q := ph.Homography.Apply(c)
		assert.InDelta(t, ph.CornersPx[i][0], q.X, 0.01, "%s corner %d x", ph.File, i)
		assert.InDelta(t, ph.CornersPx[i][1], q.Y, 0.01, "%s corner %d y", ph.File, i)
		if !ph.CutOff {
			assert.True(t, q.X >= 0 && q.Y >= 0 && q.X <= float64(ph.Size[0]-1) && q.Y <= float64(ph.Size[1]-1), "%s corner %d in frame", ph.File, i)
		}
	}
}

// checkExpected re-derives the expected ruling's faults from the measured fields.
func checkExpected(t *testing.T, tt TearTruth) {
	t.Helper()
	e := tt.Expected
	var want []judge.Fault
	if len(tt.Pieces) == 0 {
		want = append(want, judge.FaultNothingRemoved)
	} else {
		if e.FullLettersRemoved == 0 {
			want = append(want, judge.FaultNoFullLetter)
		}
		if !tt.TemplateFits {
			want = append(want, judge.FaultPieceTooSmall)
		}
		if !tt.EdgeToEdge {
			want = append(want, judge.FaultNotEdgeToEdge)
		}
		if len(tt.Pieces) > 1 {
			want = append(want, judge.FaultSeveralPieces)
		}
	}
	if want == nil {
		want = []judge.Fault{}
	}
	assert.Equal(t, want, e.Faults, "tear %d faults", tt.Index)
	switch {
	case e.Verdict == judge.Undecided:
		assert.True(t, tt.Ambiguous)
		assert.NotEmpty(t, e.UndecidedReason)
	case len(want) > 0:
		assert.Equal(t, judge.FauxPas, e.Verdict)
	default:
		assert.Equal(t, judge.Valid, e.Verdict)
	}
	assert.Equal(t, len(tt.Pieces), e.Pieces)
	assert.False(t, math.IsNaN(e.RemovedAreaMM2))
}

// TestFitTemplate checks the fit against rectangles whose answer is known by construction.
func TestFitTemplate(t *testing.T) {
	const ppm = 8
	tests := []struct {
		name            string
		w, h            float64 // a rectangle region, mm
		angle           float64 // its rotation, degrees
		fits, ambiguous bool
	}{
		{"roomy", 60, 40, 0, true, false},
		{"roomy rotated 30", 60, 40, 30, true, false},
		{"exact size is within the margin", 38.1, 25.4, 0, true, true},
		{"too thin", 80, 20, 0, false, false},
		{"too short", 30, 30, 0, false, false},
		{"rotated 45, roomy", 45, 32, 45, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMask(120*ppm, 120*ppm)
			c := Pt{60, 60}
			a := tc.angle * math.Pi / 180
			for y := 0; y < m.H; y++ {
				for x := 0; x < m.W; x++ {
					p := Pt{(float64(x) + 0.5) / ppm, (float64(y) + 0.5) / ppm}.sub(c).rot(-a)
					if math.Abs(p.X) <= tc.w/2 && math.Abs(p.Y) <= tc.h/2 {
						m.Pix[y*m.W+x] = 1
					}
				}
			}
			got, err := FitTemplate(m, ppm, templateDefault())
			require.NoError(t, err)
			assert.Equal(t, tc.ambiguous, got.Ambiguous)
			if !tc.ambiguous {
				assert.Equal(t, tc.fits, got.Fits)
			}
		})
	}
}

// TestRenderSheetLetters: every skill has one letter per judge letter, each with ink inside
// its outline's bounding box.
func TestRenderSheetLetters(t *testing.T) {
	sh, err := RenderSheet(rand.New(rand.NewSource(11)), SheetSpec{Skills: []string{"Tea Ceremony", "Hop-scotch!", "Area 51 Lore", "Zero G Combat", "Lute", "Sleight of Hand"}})
	require.NoError(t, err)
	for _, sk := range sh.Skills {
		assert.Len(t, sk.Letters, judge.Letters(sk.Name), sk.Name)
		for i, l := range sk.Letters {
			assert.Equal(t, judge.LetterRunes(sk.Name)[i], l.Char)
			assert.Positive(t, l.InkPx)
			assert.GreaterOrEqual(t, len(l.Outline), 3)
		}
	}
	assert.Len(t, sh.Layout(), 6)
}

// TestReproducible: the same spec gives the same bytes (photos and truth).
func TestReproducible(t *testing.T) {
	spec := CaseSpec{Name: "repro", Seed: 42, PhotoSize: image.Pt(480, 360), Rounds: 2, Kinds: []TearKind{TearBite, TearHole}}
	a, err := GenerateCase(spec)
	require.NoError(t, err)
	b, err := GenerateCase(spec)
	require.NoError(t, err)
	require.Len(t, b.Photos, len(a.Photos))
	for i := range a.Photos {
		assert.True(t, bytes.Equal(a.Photos[i].JPEG, b.Photos[i].JPEG), "photo %d differs", i)
	}
	ja, err := json.Marshal(a.Truth)
	require.NoError(t, err)
	jb, err := json.Marshal(b.Truth)
	require.NoError(t, err)
	assert.JSONEq(t, string(ja), string(jb))
}

// TestTruthRoundTrip: WriteTruth then LoadTruth gives back the same truth, letter states included.
func TestTruthRoundTrip(t *testing.T) {
	c, err := GenerateCase(CaseSpec{Name: "rt", Seed: 5, PhotoSize: image.Pt(400, 300), Rounds: 1, Kinds: []TearKind{TearCutOnly}})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, c.Write(dir))
	got, err := LoadTruth(dir)
	require.NoError(t, err)
	want, err := json.Marshal(c.Truth)
	require.NoError(t, err)
	have, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(have))
	m := got.Players[0].Tears[0].Measurement()
	assert.Len(t, m.Letters, 6)
	session, err := os.ReadFile(filepath.Join(dir, "session.yaml"))
	require.NoError(t, err)
	tt := got.Players[0].Tears[0]
	assert.Contains(t, string(session), fmt.Sprintf("{photo: %q, kind: %s, skill: %q}", tt.Photo.File, tt.Kind, tt.Skill))
}

// TestSample makes the sample session from the real photo when it is there.
func TestSample(t *testing.T) {
	photo := "../../../shared/realdata/sheets/breta_page09.jpg"
	if _, err := os.Stat(photo); err != nil {
		t.Skip("real photo not available:", photo)
	}
	if testing.Short() {
		t.Skip("short")
	}
	spec := BretaSample(photo)
	spec.Tears = spec.Tears[:1]
	spec.Size = image.Pt(600, 800)
	tr, err := GenerateSample(t.TempDir(), spec)
	require.NoError(t, err)
	tt := tr.Players[0].Tears[0]
	assert.Equal(t, judge.Valid, tt.Expected.Verdict)
	assert.Positive(t, tt.Expected.FullLettersRemoved)
	for _, sk := range tr.Players[0].Skills {
		assert.Len(t, sk.Letters, judge.Letters(sk.Name))
	}
}

// TestCornersInPhoto checks the truth against the pixels: on a dark cloth, points a few mm
// inside the sheet's corners (mapped through the homography) are bright paper, points a few mm
// outside are dark table.
func TestCornersInPhoto(t *testing.T) {
	sh, err := RenderSheet(rand.New(rand.NewSource(8)), SheetSpec{PxPerMM: 4, Ruled: -1})
	require.NoError(t, err)
	st := NewState(sh)
	w, h := sh.Paper.WidthMM, sh.Paper.HeightMM
	for i := 0; i < 4; i++ {
		t.Run(fmt.Sprint("photo ", i), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(100 + i)))
			table, _ := NewTable(rng, "dark_cloth", image.Pt(800, 600))
			p, err := st.Photograph(rng, PhotoSpec{Size: image.Pt(800, 600), Table: table})
			require.NoError(t, err)
			lum := func(q Pt) float64 {
				x, y := int(math.Round(q.X)), int(math.Round(q.Y))
				r, g, b, _ := p.Image.At(x, y).RGBA()
				return float64(r+g+b) / 3 / 257
			}
			const d = 4 // mm
			for _, c := range []struct{ in, out Pt }{
				{Pt{d, d}, Pt{-d, -d}}, {Pt{w - d, d}, Pt{w + d, -d}},
				{Pt{w - d, h - d}, Pt{w + d, h + d}}, {Pt{d, h - d}, Pt{-d, h + d}},
			} {
				in, out := p.Truth.Homography.Apply(c.in), p.Truth.Homography.Apply(c.out)
				assert.Greater(t, lum(in), 110.0, "inside corner %v at %v", c.in, in)
				assert.Less(t, lum(out), 100.0, "outside corner %v at %v", c.out, out)
			}
		})
	}
}

// TestGrazeUndecided: a tear grazing a letter (no other letter taken) expects undecided.
func TestGrazeUndecided(t *testing.T) {
	sh, err := RenderSheet(rand.New(rand.NewSource(2)), SheetSpec{})
	require.NoError(t, err)
	res, err := NewState(sh).Tear(rand.New(rand.NewSource(2)), TearSpec{Kind: TearGraze, Skill: sh.Skills[0].Name})
	require.NoError(t, err)
	assert.Equal(t, judge.Undecided, res.Truth.Expected.Verdict)
	assert.True(t, res.Truth.Ambiguous)
	assert.Contains(t, res.Truth.Letters[0].States, judge.LetterAmbiguous)
	checkExpected(t, res.Truth)
}
