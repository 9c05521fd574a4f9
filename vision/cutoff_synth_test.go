package vision

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/template"
)

// truthLayouts are the truth's letters as located layouts in our frame (toOurs: truth mm to
// our mm).
func truthLayouts(pl synth.PlayerTruth, toOurs homog) []judge.SkillLayout {
	var ls []judge.SkillLayout
	for _, sk := range pl.Skills {
		l := judge.SkillLayout{Name: sk.Name, Located: len(sk.Letters), Confidence: 1}
		for _, le := range sk.Letters {
			var o []judge.Point
			for _, v := range le.OutlineMM {
				q := toOurs.apply(pt{v[0], v[1]})
				o = append(o, judge.Point{X: q.X, Y: q.Y})
			}
			l.Letters = append(l.Letters, judge.Letter{Char: le.Char, Outline: o})
		}
		ls = append(ls, l)
	}
	return ls
}

// TestCutOffSynth measures the project set's two photos that cut the sheet off (case-003
// ines-3, case-007 kofi-1) and the tears on both sides of them against the truth.
func TestCutOffSynth(t *testing.T) {
	type want struct {
		pieces     int
		area       float64 // the truth's removed area, known + maybe
		knownLess  bool    // part of it lies outside a photo's view
		fits, edge bool
		doubts     []judge.Quantity // doubts that must be there
	}
	cases := []struct {
		dir  string
		cut  int // the index of the cut-off tear (1-based)
		want map[int]want
	}{
		{"case-003", 3, map[int]want{
			3: {pieces: 0, area: 0, doubts: []judge.Quantity{judge.AboutRemoved}},
			4: {pieces: 1, area: 11468.2, knownLess: true, fits: true, edge: true},
		}},
		{"case-007", 1, map[int]want{
			1: {pieces: 1, area: 108.42, fits: false, edge: true, doubts: []judge.Quantity{judge.AboutTemplateFits, judge.AboutPieces}},
			2: {pieces: 1, area: 6530.09, knownLess: true, fits: true, edge: true},
		}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "images", "synth", c.dir)
			tr, err := synth.LoadTruth(dir)
			if err != nil {
				t.Skip("no project synthetic set")
			}
			paper := truthPaper(tr)
			pl := tr.Players[0]
			fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), paper)
			defer fresh.Close()
			toOurs := homog(fresh.H).inv().mul(homog(pl.Sheet.Homography))
			layouts := truthLayouts(pl, toOurs)
			tpl := template.Template{Name: tr.Template.Name, PolygonMM: tr.Template.PolygonMM}
			before := fresh
			for i := 0; i < c.cut+1; i++ {
				tt := pl.Tears[i]
				img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				require.NoError(t, err)
				after, err := Register(fresh, img)
				img.Close()
				require.NoError(t, err, tt.Photo.File)
				require.Equal(t, tt.Photo.CutOff, after.Partial(), tt.Photo.File)
				if tt.Photo.CutOff {
					// Every frame point the truth puts outside the photo is unknown.
					ph := homog(tt.Photo.Homography).mul(toOurs.inv())
					out := 0
					for y := 1.0; y < paper.HeightMM; y += 2 {
						for x := 1.0; x < paper.WidthMM; x += 2 {
							q := ph.apply(pt{x, y})
							if q.X >= 0 && q.Y >= 0 && q.X < float64(tt.Photo.Size[0]) && q.Y < float64(tt.Photo.Size[1]) {
								continue
							}
							out++
							p := mmToPx(pt{x, y}, after.PxPerMM).img()
							require.NotZero(t, after.unknown[p.Y*after.Mask.Cols()+p.X], "%s: (%.0f, %.0f) mm is outside the photo", tt.Photo.File, x, y)
						}
					}
					require.Positive(t, out)
					// and not much more: the photo's edge zone is photoEdgeMM wide.
					assert.Less(t, after.UnknownMM2(), float64(out)*4+(paper.WidthMM+paper.HeightMM)*(photoEdgeMM+1), tt.Photo.File)
				}
				r, err := Measure(before, after, layouts, tpl)
				require.NoError(t, err)
				if w, ok := c.want[i+1]; ok {
					m := r.Measurement
					assert.Equal(t, w.pieces, r.Pieces, "%s pieces", tt.Photo.File)
					assert.InDelta(t, w.area, r.AreaMM2+r.MaybeMM2*boolf(w.knownLess), 0.05*w.area+10, "%s area: known %.0f, maybe %.0f", tt.Photo.File, r.AreaMM2, r.MaybeMM2)
					if w.knownLess {
						assert.Less(t, r.AreaMM2, w.area, tt.Photo.File)
					}
					if w.pieces > 0 {
						assert.Equal(t, w.fits, r.TemplateFits, "%s fits", tt.Photo.File)
						assert.Equal(t, w.edge, r.EdgeToEdge, "%s edge", tt.Photo.File)
					}
					got := map[judge.Quantity]bool{}
					for _, u := range m.Uncertain {
						got[u.About] = true
					}
					for _, q := range w.doubts {
						assert.True(t, got[q], "%s: a doubt about %s: %v", tt.Photo.File, q, m.Uncertain)
					}
					// No letter state contradicts the truth's exact one.
					for si, sl := range m.Letters {
						for li, s := range sl.States {
							ts := tt.ExactLetters[si].States[li]
							switch s {
							case judge.LetterOnSheet:
								assert.Contains(t, []judge.LetterState{judge.LetterOnSheet}, ts, "%s %s letter %d", tt.Photo.File, sl.Name, li+1)
							case judge.LetterRemoved:
								assert.Contains(t, []judge.LetterState{judge.LetterRemoved}, ts, "%s %s letter %d", tt.Photo.File, sl.Name, li+1)
							case judge.LetterRemovedOrCut:
								assert.Contains(t, []judge.LetterState{judge.LetterRemoved, judge.LetterCut, judge.LetterGone}, ts, "%s %s letter %d", tt.Photo.File, sl.Name, li+1)
							}
						}
					}
				}
				r.Close()
				if before != fresh {
					before.Close()
				}
				before = after
			}
			if before != fresh {
				before.Close()
			}
		})
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
