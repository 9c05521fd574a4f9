package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/watch"
)

// tableVideo is a synthetic table-top video of one sheet and its tears, with the truth.
type tableVideo struct {
	Path   string
	Skills []string
	Tears  []synth.TearSpec
	Truth  synth.VideoTruth
	Tear   []synth.TearTruth
}

// makeTableVideo renders a sheet with synth, tears it as specs say, and films it at w x h:
// laid down, still, hands over it, lifted away, put back torn at another pose, still.
func makeTableVideo(t testing.TB, seed int64, w, h int, specs func(skills []string) []synth.TearSpec) tableVideo {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	sh, err := synth.RenderSheet(rng, synth.SheetSpec{MinCapMM: 10, MaxCapMM: 18, PxPerMM: 8})
	require.NoError(t, err)
	st := synth.NewState(sh)
	tv := tableVideo{Skills: sh.SkillNames()}
	tv.Tears = specs(tv.Skills)
	table, _ := synth.NewTable(rng, "wood", image.Pt(w, h))
	vs := synth.VideoSpec{W: w, H: h, FPS: 15, Seed: seed, Table: table}
	scale := 0.92 * float64(h) / 297
	poses := []struct{ x, y, a float64 }{{0.5, 0.5, 0}, {0.42, 0.5, 7}, {0.58, 0.5, -6}, {0.5, 0.5, 180}}
	shot := func(i int) synth.VideoShot {
		p := poses[i%len(poses)]
		return synth.VideoShot{Image: sh.Image, Paper: st.Paper.Clone(), PxPerMM: sh.PxPerMM,
			CenterX: p.x * float64(w), CenterY: p.y * float64(h), AngleDeg: p.a, Scale: scale, Keystone: 0.04}
	}
	vs.Shots = append(vs.Shots, shot(0))
	for i, spec := range tv.Tears {
		res, err := st.Tear(rng, spec)
		require.NoError(t, err)
		tv.Tear = append(tv.Tear, res.Truth)
		vs.Shots = append(vs.Shots, shot(i+1))
	}
	tv.Path = filepath.Join(t.TempDir(), "table.avi")
	tv.Truth, err = synth.WriteVideo(tv.Path, vs)
	require.NoError(t, err)
	return tv
}

// announcements are the GM's stdin lines for the tears.
func (tv tableVideo) announcements() string {
	var b strings.Builder
	for _, s := range tv.Tears {
		b.WriteString(string(s.Action) + " " + s.Skill + "\n")
	}
	return b.String()
}

// auditFrames runs `tearcam audit` on the frames watch recorded (its folder's session.yaml),
// from scratch: a new database, nothing re-used.
func auditFrames(t *testing.T, manifest string) judge.Rulings {
	t.Helper()
	out := filepath.Join(t.TempDir(), "audit.json")
	iostreams, _, stderr := testIO()
	code := Main([]string{"audit", manifest, "--json", out, "--db", filepath.Join(t.TempDir(), "audit.db")}, iostreams)
	require.Equal(t, 0, code, stderr.String())
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	return doc
}

// TestWatchVideoEndToEnd runs `tearcam watch` on a synthetic table-top video: every tear is
// captured exactly once, on a frame where the torn sheet lies still, and the rulings equal
// those the audit pipeline gives for the same frames.
func TestWatchVideoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR and registration of a whole video: not in -short")
	}
	tv := makeTableVideo(t, 7, 1280, 720, func(skills []string) []synth.TearSpec {
		return []synth.TearSpec{
			{Kind: synth.TearBite, Skill: skills[0], Action: judge.KindUse},
			{Kind: synth.TearTooSmall, Skill: skills[3], Action: judge.KindDamage},
			{Kind: synth.TearCorner, Skill: skills[3], Action: judge.KindPenalty},
		}
	})
	dir := t.TempDir()
	db := filepath.Join(dir, "watch.db")
	out := filepath.Join(dir, "rulings.json")
	iostreams, stdout, stderr := testIO()
	iostreams.In = strings.NewReader(tv.announcements())
	var res *watch.Result
	args := []string{"--source", tv.Path, "--player", "Ann", "--skills", strings.Join(tv.Skills, ","),
		"--db", db, "--json", out, "--annotate", filepath.Join(dir, "annotated")}
	code := runWatchCmd(args, iostreams, func(o *watchOptions) {
		o.Result = func(r *watch.Result) { res = r }
		o.Timings = func(m map[string]time.Duration) { t.Logf("time spent judging: %v", m) }
	})
	t.Log(stderr.String())
	t.Log(stdout.String())
	require.Equal(t, 0, code, stderr.String())
	require.NotNil(t, res)

	// Every shot (the fresh sheet and each torn state) settled exactly once, inside its
	// still range.
	require.Len(t, res.Settled, len(tv.Truth.Still), "settled %v, still ranges %v", res.Settled, tv.Truth.Still)
	for i, n := range res.Settled {
		assert.True(t, tv.Truth.Still[i].Contains(n), "settle %d at frame %d, want within %v", i, n, tv.Truth.Still[i])
	}
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Players, 1)
	p := doc.Players[0]
	require.True(t, p.Sheet.Found, "fresh sheet: %+v", p.Sheet)
	assert.Equal(t, watch.PhotoName(res.Settled[0]), p.Sheet.Photo)
	require.Len(t, p.Tears, len(tv.Tears))
	for i, r := range p.Tears {
		assert.Equal(t, watch.PhotoName(res.Settled[i+1]), r.Photo)
		assert.Equal(t, tv.Tears[i].Action, r.Kind)
		t.Logf("tear %d: watch %s %v (%s); truth %s %v", i+1, r.Verdict, r.Faults, r.UndecidedReason,
			tv.Tear[i].Expected.Verdict, tv.Tear[i].Expected.Faults)
	}
	assert.Equal(t, len(tv.Tears), strings.Count(stdout.String(), "Ann tear "), "one line per ruling")

	// The audit pipeline on the recorded frames gives the same rulings.
	manifests, _ := filepath.Glob(filepath.Join(dir, "watch-frames", "*", "session.yaml"))
	require.Len(t, manifests, 1)
	audited := auditFrames(t, manifests[0])
	require.Len(t, audited.Players, 1)
	ap := audited.Players[0]
	ap.Sheet.Photo = p.Sheet.Photo
	for i := range ap.Tears {
		ap.Tears[i].Photo = p.Tears[i].Photo
	}
	assert.Equal(t, ap, p, "watch and audit rulings differ")
}

// runWatchCmd runs `tearcam watch args...` as Main would, with hook applied to the parsed
// options first, and returns the exit status (the error is printed to iostreams.ErrOut).
func runWatchCmd(args []string, iostreams *IO, hook func(*watchOptions)) int {
	cmd := newWatchCmd(iostreams, func(o *watchOptions) error {
		if hook != nil {
			hook(o)
		}
		return runWatch(context.Background(), o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(iostreams.Out)
	cmd.SetErr(iostreams.ErrOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err != nil {
		fmt.Fprintln(iostreams.ErrOut, "tearcam: "+oneLine(err.Error()))
	}
	return ExitCode(err)
}
