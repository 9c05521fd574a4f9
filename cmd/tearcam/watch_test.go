package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/referee/fake"
	"tearcam/store"
	"tearcam/watch"
)

// tableVideo is a synthetic table-top video of players' sheets and their tears, with the
// truth.
type tableVideo struct {
	Path   string
	Names  []string
	Skills [][]string       // per player
	Shots  []videoShot      // in the order filmed
	Truth  synth.VideoTruth // Still[i] is Shots[i]'s still range
}

// videoShot is one appearance of a player's sheet: fresh (Tear nil) or after a tear.
type videoShot struct {
	Player int
	Tear   *synth.TearSpec
	Truth  synth.TearTruth
}

// makeTableVideo renders one sheet per name with synth and films the shots plan gives (given
// each player's skills) at w x h: each sheet laid down, still, hands over it, lifted away, put
// back torn at another pose, still.
func makeTableVideo(t testing.TB, seed int64, w, h int, names []string, plan func(skills [][]string) []videoShot, opts ...func(*synth.VideoSpec)) tableVideo {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	tv := tableVideo{Names: names}
	var sheets []*synth.Sheet
	var states []*synth.State
	for range names {
		sh, err := synth.RenderSheet(rng, synth.SheetSpec{MinCapMM: 10, MaxCapMM: 18, PxPerMM: 8})
		require.NoError(t, err)
		sheets, states = append(sheets, sh), append(states, synth.NewState(sh))
		tv.Skills = append(tv.Skills, sh.SkillNames())
	}
	tv.Shots = plan(tv.Skills)
	table, _ := synth.NewTable(rng, "wood", image.Pt(w, h))
	vs := synth.VideoSpec{W: w, H: h, FPS: 15, Seed: seed, Table: table}
	for _, o := range opts {
		o(&vs)
	}
	// The sheet spans 86% of the frame's height, turned a few degrees at most: wholly in view.
	scale := 0.86 * float64(h) / 297
	poses := []struct{ x, y, a float64 }{{0.5, 0.5, 0}, {0.44, 0.5, 5}, {0.56, 0.5, -4}, {0.5, 0.5, 180}}
	for i := range tv.Shots {
		s := &tv.Shots[i]
		sh, st := sheets[s.Player], states[s.Player]
		if s.Tear != nil {
			res, err := st.Tear(rng, *s.Tear)
			require.NoError(t, err)
			s.Truth = res.Truth
		}
		p := poses[i%len(poses)]
		vs.Shots = append(vs.Shots, synth.VideoShot{Image: sh.Image, Paper: st.Paper.Clone(), PxPerMM: sh.PxPerMM,
			CenterX: p.x * float64(w), CenterY: p.y * float64(h), AngleDeg: p.a, Scale: scale, Keystone: 0.04})
	}
	tv.Path = filepath.Join(t.TempDir(), "table.avi")
	var err error
	tv.Truth, err = synth.WriteVideo(tv.Path, vs)
	require.NoError(t, err)
	return tv
}

// announcements are the GM's stdin lines for the tears ("NAME: kind skill" with several
// players), in the order filmed.
func (tv tableVideo) announcements() string {
	var b strings.Builder
	for _, s := range tv.Shots {
		if s.Tear == nil {
			continue
		}
		if len(tv.Names) > 1 {
			b.WriteString(tv.Names[s.Player] + ": ")
		}
		b.WriteString(string(s.Tear.Action) + " " + s.Tear.Skill + "\n")
	}
	return b.String()
}

// plan is a watch --session manifest (no photos) of the video's players and tears, the last
// player's ending with a last-ditch effort that hits.
func (tv tableVideo) plan() string {
	var b strings.Builder
	b.WriteString("paper: a4\ntemplate: default\nplayers:\n")
	for i, n := range tv.Names {
		q, _ := json.Marshal(tv.Skills[i])
		fmt.Fprintf(&b, "  - name: %q\n    skills: %s\n    tears:\n", n, q)
		for _, s := range tv.Shots {
			if s.Player == i && s.Tear != nil {
				fmt.Fprintf(&b, "      - {kind: %s, skill: %q}\n", s.Tear.Action, s.Tear.Skill)
			}
		}
		if i == len(tv.Names)-1 {
			b.WriteString("      - {kind: last_ditch, hit: true}\n")
		}
	}
	return b.String()
}

// args are the --player/--skills flags.
func (tv tableVideo) playerArgs() []string {
	var a []string
	for i, n := range tv.Names {
		a = append(a, "--player", n, "--skills", strings.Join(tv.Skills[i], ","))
	}
	return a
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
	tv := makeTableVideo(t, 7, 1280, 720, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{}, // the fresh sheet
			{Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][0], Action: judge.KindUse}},
			{Tear: &synth.TearSpec{Kind: synth.TearTooSmall, Skill: sk[0][3], Action: judge.KindDamage}},
			{Tear: &synth.TearSpec{Kind: synth.TearCorner, Skill: sk[0][3], Action: judge.KindPenalty}},
		}
	}, func(vs *synth.VideoSpec) {
		// Each sheet stops a moment on its way down: a tear judged there is retracted.
		vs.Pause = 3
	})
	checkWatchAgainstAudit(t, tv, false)
}

// TestWatchTwoPlayers: two sheets share the table; registration against each fresh sheet
// tells whose sheet each settled frame shows. The tears come from a --session manifest
// (without photos), Bob's ending with a last-ditch effort.
func TestWatchTwoPlayers(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR and registration of a whole video: not in -short")
	}
	tv := makeTableVideo(t, 11, 1280, 720, []string{"Ann", "Bob"}, func(sk [][]string) []videoShot {
		return []videoShot{{Player: 0}, {Player: 1},
			{Player: 0, Tear: &synth.TearSpec{Kind: synth.TearCorner, Skill: sk[0][1], Action: judge.KindUse}},
			{Player: 1, Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[1][2], Action: judge.KindDamage}},
		}
	})
	checkWatchAgainstAudit(t, tv, true)
}

// checkWatchAgainstAudit runs `tearcam watch` on tv with the GM's announcements on stdin and
// checks that every shot settled exactly once within its still range, that each tear was
// ruled on its own frame for its own player, and that `tearcam audit` on the recorded frames
// gives the same rulings.
func checkWatchAgainstAudit(t *testing.T, tv tableVideo, scripted bool) {
	dir := t.TempDir()
	db := filepath.Join(dir, "watch.db")
	out := filepath.Join(dir, "rulings.json")
	iostreams, stdout, stderr := testIO()
	args := []string{"--source", tv.Path, "--json", out, "--annotate", filepath.Join(dir, "annotated")}
	lastDitch := 0
	if scripted {
		// Without --db the rulings are kept in tearcam.db next to the plan.
		manifest := filepath.Join(dir, "plan.yaml")
		require.NoError(t, os.WriteFile(manifest, []byte(tv.plan()), 0o644))
		args = append(args, "--session", manifest)
		db = filepath.Join(dir, "tearcam.db")
		lastDitch = 1
	} else {
		iostreams.In = strings.NewReader(tv.announcements())
		args = append(args, "--db", db)
		args = append(args, tv.playerArgs()...)
	}
	var res *watch.Result
	mats := openMats()
	code := runWatchCmd(args, iostreams, func(o *watchOptions) {
		o.Result = func(r *watch.Result) { res = r }
		o.Timings = func(m map[string]time.Duration) { t.Logf("time spent judging: %v", m) }
	})
	t.Log(stderr.String())
	t.Log(stdout.String())
	require.Equal(t, 0, code, stderr.String())
	require.NotNil(t, res)
	assert.Equal(t, mats, openMats(), "gocv Mats left open by watch")

	// Every shot (each fresh sheet and each torn state) settled exactly once, inside its
	// still range.
	require.Len(t, res.Settled, len(tv.Truth.Still), "settled %v, still ranges %v", res.Settled, tv.Truth.Still)
	for i, n := range res.Settled {
		assert.True(t, tv.Truth.Still[i].Contains(n), "settle %d at frame %d, want within %v", i, n, tv.Truth.Still[i])
	}
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Players, len(tv.Names))
	tears := 0
	next := make([]int, len(tv.Names))
	for i, s := range tv.Shots {
		p := doc.Players[s.Player]
		if s.Tear == nil {
			require.True(t, p.Sheet.Found, "%s's fresh sheet: %+v", p.Name, p.Sheet)
			// The fresh sheet is read on three frames of its still run and the best read kept
			// (watch: freshReads): any frame of that run.
			var f int
			_, err := fmt.Sscanf(p.Sheet.Photo, "frame:%d", &f)
			require.NoError(t, err, "%s's fresh sheet photo %q", p.Name, p.Sheet.Photo)
			assert.True(t, tv.Truth.Still[i].Contains(f) && f >= res.Settled[i], "%s's fresh sheet at frame %d, want from %d within %v", p.Name, f, res.Settled[i], tv.Truth.Still[i])
			continue
		}
		tears++
		require.Greater(t, len(p.Tears), next[s.Player], "%s's tear %d ruled", p.Name, next[s.Player]+1)
		r := p.Tears[next[s.Player]]
		next[s.Player]++
		assert.Equal(t, watch.PhotoName(res.Settled[i]), r.Photo, "%s's tear %d frame", p.Name, r.Index)
		assert.Equal(t, s.Tear.Action, r.Kind)
		assert.Equal(t, s.Tear.Skill, r.Skill)
		t.Logf("%s tear %d: watch %s %v (%s); synth truth %s %v", p.Name, r.Index, r.Verdict, r.Faults, r.UndecidedReason,
			s.Truth.Expected.Verdict, s.Truth.Expected.Faults)
	}
	if scripted {
		// Bob's last-ditch effort, ruled as soon as his last tear was.
		last := doc.Players[len(doc.Players)-1]
		require.Len(t, last.Tears, next[len(next)-1]+1)
		ld := last.Tears[len(last.Tears)-1]
		assert.Equal(t, judge.KindLastDitch, ld.Kind)
		assert.Empty(t, ld.Photo)
		assert.Equal(t, judge.OutLastDitch, ld.OutReason)
		assert.True(t, last.Out)
	}
	// A ruling line starts "NAME tear N: " (reasons may mention "the tear" too).
	assert.Len(t, regexp.MustCompile(`(?m)^\S+ tear \d+: `).FindAllString(stdout.String(), -1), tears+lastDitch, "one line per ruling")

	checkRecordedRulings(t, db, doc)
}

// checkRecordedRulings checks that the session database db holds, as current, the rulings
// doc that watch reported (none retracted is left current), and that `tearcam audit` on
// the frames watch recorded gives the same rulings.
func checkRecordedRulings(t *testing.T, db string, doc judge.Rulings) {
	t.Helper()
	// The database's current rulings are the ones reported (none retracted is left current).
	sdb, err := store.Open(db)
	require.NoError(t, err)
	for _, p := range doc.Players {
		sp, err := sdb.FindPlayer(context.Background(), "", p.Name)
		require.NoError(t, err)
		rs, err := sdb.Rulings(context.Background(), sp.ID)
		require.NoError(t, err)
		require.Len(t, rs, len(p.Tears), "%s's current rulings in the database", p.Name)
		for k, r := range rs {
			assert.Equal(t, p.Tears[k].SHA256, r.Photo.SHA256, "%s's tear %d photo in the database", p.Name, k+1)
			assert.Equal(t, p.Tears[k].Verdict, r.Ruling.Verdict)
		}
	}
	require.NoError(t, sdb.Close())

	// `tearcam audit` on the recorded frames gives the same rulings.
	manifests, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(db, ".db")+"-frames", "*", "session.yaml"))
	require.Len(t, manifests, 1)
	audited := auditFrames(t, manifests[0])
	require.Len(t, audited.Players, len(doc.Players))
	for i, ap := range audited.Players {
		p := doc.Players[i]
		ap.Sheet.Photo = p.Sheet.Photo
		for k := range ap.Tears {
			if k < len(p.Tears) {
				ap.Tears[k].Photo = p.Tears[k].Photo
				// The advice's last words fit the mode: the GM types the ruling in watch, puts
				// gm: in the manifest in audit (watchGMAdvice).
				named := len(doc.Players) > 1
				ap.Tears[k].UndecidedReason = strings.Replace(ap.Tears[k].UndecidedReason, judge.ManifestGMAdvice(p.Name, k+1),
					watchGMAdvice(named, false)(p.Name, k+1), 1)
			}
		}
		assert.Equal(t, ap, p, "watch and audit rulings differ for %s", p.Name)
	}
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

// TestWatchHelperProcess is not a test: TestWatchKilled runs the test binary with
// TEARCAM_WATCH_HELPER set to watch in a child process it can kill.
func TestWatchHelperProcess(t *testing.T) {
	args := os.Getenv("TEARCAM_WATCH_HELPER")
	if args == "" {
		t.Skip("helper process for TestWatchKilled")
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		os.Exit(3)
	}
	os.Exit(Main(argv, &IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}

// TestWatchKilled kills `tearcam watch` right after it printed its first ruling: that
// ruling is in the session database, its frame on disk, and the --json file holds it.
func TestWatchKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process that runs OCR")
	}
	tv := makeTableVideo(t, 7, 640, 480, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{},
			{Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][0], Action: judge.KindUse}},
			{Tear: &synth.TearSpec{Kind: synth.TearCorner, Skill: sk[0][2], Action: judge.KindUse}},
		}
	})
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kill.db")
	out := filepath.Join(dir, "rulings.json")
	argv := append([]string{"watch", "--source", tv.Path, "--db", dbPath, "--json", out, "--realtime"}, tv.playerArgs()...)
	args, _ := json.Marshal(argv)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TEARCAM_WATCH_HELPER="+string(args))
	cmd.Stdin = strings.NewReader(tv.announcements())
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var reported string
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Ann tear 1:") {
			reported = sc.Text()
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			break
		}
	}
	require.Error(t, cmd.Wait(), "the child was killed")
	require.NotEmpty(t, reported, "a ruling was printed before the kill")

	db, err := store.Open(dbPath)
	require.NoError(t, err, "the database opens cleanly after the kill")
	defer db.Close()
	ctx := context.Background()
	p, err := db.FindPlayer(ctx, "", "Ann")
	require.NoError(t, err)
	rs, err := db.Rulings(ctx, p.ID)
	require.NoError(t, err)
	require.Len(t, rs, 1, "the printed ruling is in the database, and the next was not made yet")
	assert.Contains(t, reported, string(rs[0].Ruling.Verdict))
	// The session is named after the manifest of recorded frames, relative to the database.
	sessions, err := db.Sessions(ctx)
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	framesDir := filepath.Join(dir, filepath.Dir(filepath.FromSlash(sessions[0].Name)))
	frame, err := os.ReadFile(filepath.Join(framesDir, rs[0].Photo.Path))
	if assert.NoError(t, err, "the frame judged is on disk") {
		assert.Equal(t, rs[0].Photo.SHA256, shaHex(frame))
	}
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc), "the --json file is whole")
	require.Len(t, doc.Players[0].Tears, 1)
	assert.Regexp(t, `^frame:\d+$`, doc.Players[0].Tears[0].Photo)
}

func shaHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestWatchFlags(t *testing.T) {
	cases := []struct {
		args []string
		want func(t *testing.T, o *watchOptions)
	}{
		{[]string{"--source", "0", "--player", "Ann", "--skills", "A,B", "--player", "Bob", "--skills", "C, D"},
			func(t *testing.T, o *watchOptions) {
				pl, err := o.plan()
				require.NoError(t, err)
				assert.Equal(t, []watch.Player{{Name: "Ann", Skills: []string{"A", "B"}}, {Name: "Bob", Skills: []string{"C", "D"}}}, pl.Players)
				assert.False(t, pl.Scripted)
				assert.Equal(t, "a4", pl.Paper.Name)
			}},
		{[]string{"--source", "v.avi", "--skills", "A,B", "--json", "-", "--http", ":8080", "--display", "--still", "1s"},
			func(t *testing.T, o *watchOptions) {
				assert.Equal(t, "-", o.JSON)
				assert.Equal(t, ":8080", o.HTTP)
				assert.True(t, o.Display)
				assert.Equal(t, time.Second, o.Still)
				pl, err := o.plan()
				require.NoError(t, err)
				assert.Equal(t, "player", pl.Players[0].Name)
			}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			iostreams, _, _ := testIO()
			var got *watchOptions
			cmd := newWatchCmd(iostreams, func(o *watchOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			require.NoError(t, cmd.Execute())
			tc.want(t, got)
		})
	}
}

func TestWatchBadInput(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	require.NoError(t, os.WriteFile(plan, []byte("players:\n  - name: Ann\n    skills: [A]\n    tears:\n      - {kind: use, skill: A}\n"), 0o644))
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no source", []string{"watch", "--skills", "A"}, 2, "--source is required"},
		{"no players", []string{"watch", "--source", "0"}, 2, "say who plays"},
		{"negative still", []string{"watch", "--source", "0", "--skills", "A", "--still", "-1s"}, 2, "watch: --still -1s: want a positive duration, e.g. 400ms"},
		{"zero still", []string{"watch", "--source", "0", "--skills", "A", "--still", "0s"}, 2, "watch: --still 0s: want a positive duration"},
		{"negative grace", []string{"watch", "--source", "0", "--skills", "A", "--grace", "-2s"}, 2, "watch: --grace -2s: want a duration of 0 or more"},
		{"unpaired skills", []string{"watch", "--source", "0", "--player", "Ann", "--player", "Bob", "--skills", "A"}, 2, "2 --player but 1 --skills"},
		{"session and players", []string{"watch", "--source", "0", "--session", plan, "--player", "Ann", "--skills", "A"}, 2, "cannot be used together"},
		{"skill given twice", []string{"watch", "--source", "0", "--player", "Ann", "--skills", "Caf\u00e9,Cafe\u0301"}, 2, `--skills (for Ann): "Café" given twice`},
		{"empty skill", []string{"watch", "--source", "0", "--player", "Ann", "--skills", "hand,,by"}, 2, `--skills (for Ann) "hand,,by": skill 2 is empty`},
		{"bad manifest", []string{"watch", "--source", "0", "--session", filepath.Join(dir, "nope.yaml")}, 2, "nope.yaml"},
		{"camera missing", []string{"watch", "--source", "0", "--session", plan}, 1, "/dev/video0 does not exist (no camera attached?)"},
		{"video missing", []string{"watch", "--source", filepath.Join(dir, "gone.mp4"), "--skills", "A"}, 2, "gone.mp4: no such file or directory"},
		{"json not writable", []string{"watch", "--source", "0", "--skills", "A", "--json", filepath.Join(dir, "no", "such", "dir.json")}, 1, "dir.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "camera missing" {
				if _, err := os.Stat("/dev/video0"); err == nil {
					t.Skip("a camera is attached")
				}
			}
			iostreams, stdout, stderr := testIO()
			assert.Equal(t, tc.code, Main(tc.args, iostreams), stderr.String())
			assert.Empty(t, stdout.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
		})
	}
}

// TestWatchLatency measures, on a video played at its frame rate (--realtime, as a camera
// delivers it), how long after the sheet stopped moving each ruling is out, and how much of
// that is judging (which starts at once, --speculate). It only reports (the machine may be busy); run it with
// TEARCAM_LATENCY=1.
func TestWatchLatency(t *testing.T) {
	if os.Getenv("TEARCAM_LATENCY") == "" {
		t.Skip("set TEARCAM_LATENCY=1 to measure the settle-to-ruling latency")
	}
	tv := makeTableVideo(t, 7, 1280, 720, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{},
			{Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][0], Action: judge.KindUse}},
			{Tear: &synth.TearSpec{Kind: synth.TearTooSmall, Skill: sk[0][3], Action: judge.KindDamage}},
			{Tear: &synth.TearSpec{Kind: synth.TearCorner, Skill: sk[0][3], Action: judge.KindPenalty}},
			{Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][4], Action: judge.KindUse}},
		}
	})
	// The OCR re-read of each tear's frame before the ruling is printed (as before it was
	// deferred), then after it (watch's default), alternately, TEARCAM_LATENCY_RUNS times.
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("TEARCAM_LATENCY_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for run := range runs {
		for _, first := range []bool{true, false} {
			mode := "re-read after the ruling"
			if first {
				mode = "re-read before the ruling"
			}
			iostreams, _, stderr := testIO()
			iostreams.In = strings.NewReader(tv.announcements())
			var res *watch.Result
			args := append([]string{"--source", tv.Path, "--db", filepath.Join(t.TempDir(), "w.db"), "--realtime"}, tv.playerArgs()...)
			code := runWatchCmd(args, iostreams, func(o *watchOptions) {
				o.NoDeferReread = first
				o.Result = func(r *watch.Result) { res = r }
				o.Timings = func(m map[string]time.Duration) {
					n := time.Duration(len(tv.Shots) - 1)
					t.Logf("run %d, %s: per tear: register %v, measure %v, ocr re-read %v, annotate %v; fresh sheet: find %v, ocr %v",
						run+1, mode, m["register"]/n, m["measure"]/n, m["reread"]/n, m["annotate"]/n, m["fresh"], m["locate"])
				}
			})
			require.Equal(t, 0, code, stderr.String())
			t.Log(stderr.String())
			for i := range res.Latencies {
				t.Logf("run %d, %s: tear %d: out %.3f s after the sheet stopped moving (%.3f s judging; the sheet is taken %v after it stopped)",
					run+1, mode, i+1, res.Latencies[i].Seconds(), res.Computes[i].Seconds(), watch.DefaultDetectorConfig().StillFor)
			}
		}
	}
}

// TestWatchNoDisplayAndHTTP: --display without a display is skipped with a message, and
// --http serves the page and the rulings while watching.
func TestWatchNoDisplayAndHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs OCR on a fresh sheet")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	tv := makeTableVideo(t, 3, 640, 480, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{}, {Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][1], Action: judge.KindUse}}}
	})
	iostreams, stdout, stderr := testIO()
	iostreams.In = strings.NewReader(tv.announcements())
	pages := make(chan string, 2)
	args := append([]string{"--source", tv.Path, "--display", "--http", "127.0.0.1:0", "--json", "-", "--db", filepath.Join(t.TempDir(), "w.db")}, tv.playerArgs()...)
	code := runWatchCmd(args, iostreams, func(o *watchOptions) {
		o.Ready = func(addr string) {
			for _, path := range []string{"/", "/rulings.json"} {
				resp, err := http.Get("http://" + addr + path)
				if err != nil {
					pages <- err.Error()
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				pages <- string(b)
			}
		}
	})
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "--display ignored: no display")
	assert.Contains(t, stderr.String(), "serving the live page on http://127.0.0.1:")
	assert.Contains(t, <-pages, "<title>tearcam watch</title>")
	assert.Contains(t, <-pages, `"schema":"tearcam.rulings/v1"`)
	// --json - puts the document on stdout and the ruling lines on stderr.
	var doc judge.Rulings
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), stdout.String())
	require.Len(t, doc.Players[0].Tears, 1)
	assert.Contains(t, stderr.String(), "Ann tear 1: use "+tv.Shots[1].Tear.Skill)
}

// TestWriteDemoVideo is not a test: with TEARCAM_DEMO_VIDEO=DIR it writes a demo table-top
// video (DIR/table.avi), the GM's announcements (DIR/announce.txt) and a --session plan
// (DIR/plan.yaml) to try watch by hand:
//
//	tearcam watch --source DIR/table.avi --session DIR/plan.yaml --http :8080 --realtime
func TestWriteDemoVideo(t *testing.T) {
	dir := os.Getenv("TEARCAM_DEMO_VIDEO")
	if dir == "" {
		t.Skip("set TEARCAM_DEMO_VIDEO=DIR to write a demo video")
	}
	tv := makeTableVideo(t, 7, 1280, 720, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{},
			{Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][0], Action: judge.KindUse}},
			{Tear: &synth.TearSpec{Kind: synth.TearTooSmall, Skill: sk[0][3], Action: judge.KindDamage}},
			{Tear: &synth.TearSpec{Kind: synth.TearCorner, Skill: sk[0][3], Action: judge.KindPenalty}},
		}
	})
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b, err := os.ReadFile(tv.Path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "table.avi"), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "announce.txt"), []byte(tv.announcements()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(tv.plan()), 0o644))
	t.Logf("wrote %s/table.avi (%d frames; still ranges %v), announce.txt, plan.yaml", dir, tv.Truth.Frames, tv.Truth.Still)
}

// TestWatchNotAVideoOneLine: a file FFmpeg opens but cannot decode (text named .jpg) is one
// line on stderr, in a child process so that whatever FFmpeg writes to the real stderr is
// seen too (it once added "[mjpeg @ 0x…] No JPEG data found in image", twice, and tearcam
// four more lines).
func TestWatchNotAVideoOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	text := filepath.Join(t.TempDir(), "text.jpg")
	require.NoError(t, os.WriteFile(text, []byte("hello, not a JPEG\n"), 0o644))
	args, _ := json.Marshal([]string{"watch", "--source", text, "--player", "A", "--skills", "x"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchHelperProcess$", "-test.count=1")
	for _, kv := range os.Environ() {
		// Main sets it in this process too: the child must set it itself.
		if !strings.HasPrefix(kv, "OPENCV_FFMPEG_LOGLEVEL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TEARCAM_WATCH_HELPER="+string(args))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, &stderr, strings.NewReader("")
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 1, ee.ExitCode())
	assert.Equal(t, "tearcam: watch: video "+text+": no frame could be read (not a video or camera OpenCV can decode): cannot open video source\n", stderr.String())
	assert.Empty(t, stdout.String())
}

// TestWatchPlanRefusesPhotos: an audit manifest given to watch --session, whose sheet and
// photos watch would ignore, is refused (DESIGN.md: "sheet and photo are left out") in one
// line naming the file and the line, exit 2. It was accepted, and the photos ignored.
func TestWatchPlanRefusesPhotos(t *testing.T) {
	dir := t.TempDir()
	man := filepath.Join(dir, "session.yaml")
	require.NoError(t, os.WriteFile(man, []byte(`paper: a4
players:
  - name: Ann
    skills: [Archery, Cooking]
    sheet: ann-0.jpg
    tears:
      - {photo: ann-1.jpg, kind: use, skill: Archery}
      - {kind: last_ditch, hit: true}
`), 0o644))
	iostreams, stdout, stderr := testIO()
	assert.Equal(t, 2, Main([]string{"watch", "--source", "0", "--session", man}, iostreams))
	assert.Empty(t, stdout.String())
	assert.Equal(t, "tearcam: "+man+`:5: player "Ann": sheet: a watch plan names no photos, the frames come from --source: leave out sheet and photo (tearcam audit judges photos)`+"\n", stderr.String())
}

// TestWatchHandOnSheet: the sample's torn sheet settles with a skin-coloured blob (a hand)
// lying on it, then the blob goes and the sheet lies still uncovered, never lifted. The
// covered frame is not ruled and does not use up the announcement (vision refuses it as
// "something covers the sheet", watch.ErrCovered): the tear is ruled on the uncovered sheet.
func TestWatchHandOnSheet(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR and registration of the sample's photos")
	}
	dir := t.TempDir()
	video := filepath.Join(dir, "hand.avi")
	fresh := samplePhoto(t, "breta-0.jpg")
	defer fresh.Close()
	torn := samplePhoto(t, "breta-1.jpg")
	defer torn.Close()
	hand := torn.Clone()
	defer hand.Close()
	// As a tester drew it: a skin-coloured ellipse over the bottom-right corner (1200x1600).
	gocv.Ellipse(&hand, image.Pt(960, 1350), image.Pt(260, 200), 0, 0, 360, color.RGBA{R: 205, G: 145, B: 110}, -1)
	const handFrom, cleanFrom, end = 15, 35, 55
	writeVideo(t, video, end, func(i int) gocv.Mat {
		switch {
		case i >= cleanFrom:
			return torn
		case i >= handFrom:
			return hand
		}
		return fresh
	})

	out := filepath.Join(dir, "rulings.json")
	iostreams, stdout, stderr := testIO()
	iostreams.In = strings.NewReader("use hand\n")
	code := runWatchCmd([]string{"--source", video, "--player", "Breta", "--skills", "Text,written,by,hand",
		"--db", filepath.Join(dir, "hand.db"), "--json", out}, iostreams, nil)
	require.Equal(t, 0, code, stderr.String())
	t.Log(stderr.String())
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	tears := doc.Players[0].Tears
	require.Len(t, tears, 1, stdout.String())
	var no int
	_, err = fmt.Sscanf(tears[0].Photo, "frame:%d", &no)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, no, cleanFrom, "ruled on the uncovered sheet")
	assert.NotContains(t, tears[0].UndecidedReason, "covers")
	assert.Regexp(t, `frame (1[5-9]|2\d|3[0-4]): something covers the sheet at \(\d+, \d+\) mm .*Breta's tear 1 \(use hand\) is not ruled on it: waiting for the sheet to settle uncovered`, stderr.String())
	assert.Equal(t, 1, strings.Count(stdout.String(), "Breta tear 1:"), stdout.String())
	// The ruling taken back is not current in the database, and audit agrees.
	checkRecordedRulings(t, filepath.Join(dir, "hand.db"), doc)
}

// TestWatchInterruptedAfterFreshSheet: watch is interrupted once it has said the fresh
// sheet was taken, before any tear: the --json file holds that sheet, as stderr says, not
// the "not found" document written at the start (a tester).
func TestWatchInterruptedAfterFreshSheet(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of the sample's fresh sheet")
	}
	dir := t.TempDir()
	video := filepath.Join(dir, "fresh.avi")
	fresh := samplePhoto(t, "breta-0.jpg")
	defer fresh.Close()
	writeVideo(t, video, 60, func(int) gocv.Mat { return fresh })
	out := filepath.Join(dir, "rulings.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWriter{want: "fresh sheet taken", cancel: cancel}
	iostreams, _, _ := testIO()
	iostreams.ErrOut = stderr
	cmd := newWatchCmd(iostreams, func(o *watchOptions) error { return runWatch(ctx, o) })
	cmd.SetArgs([]string{"--source", video, "--player", "Breta", "--skills", "Text,written,by,hand",
		"--db", filepath.Join(dir, "fresh.db"), "--json", out, "--realtime"})
	cmd.SetOut(iostreams.Out)
	cmd.SetErr(stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	_ = cmd.Execute()
	require.True(t, stderr.seen, stderr.b.String())
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	sheet := doc.Players[0].Sheet
	assert.True(t, sheet.Found, "%+v", sheet)
	assert.Regexp(t, `^frame:\d+$`, sheet.Photo)
	assert.Len(t, sheet.Skills, 4)
	assert.Empty(t, doc.Players[0].Tears)
}

// samplePhoto reads a photo of the bundled sample session; the caller closes it.
func samplePhoto(t *testing.T, name string) gocv.Mat {
	t.Helper()
	m := gocv.IMRead(filepath.Join("..", "..", "testdata", "images", "sample", name), gocv.IMReadColor)
	if m.Empty() {
		m.Close()
		t.Fatalf("%s: not read", name)
	}
	return m
}

// writeVideo writes n frames (frame(i), all one size) to path as MJPG at 15 frames/s.
func writeVideo(t *testing.T, path string, n int, frame func(i int) gocv.Mat) {
	t.Helper()
	first := frame(0)
	vw, err := gocv.VideoWriterFile(path, "MJPG", 15, first.Cols(), first.Rows(), true)
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		require.NoError(t, vw.Write(frame(i)))
	}
	require.NoError(t, vw.Close())
}

// cancelOnWriter keeps what is written and calls cancel once it contains want.
type cancelOnWriter struct {
	mu     sync.Mutex
	b      strings.Builder
	want   string
	cancel func()
	seen   bool
}

func (w *cancelOnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.seen && strings.Contains(w.b.String(), w.want) {
		w.seen = true
		w.cancel()
	}
	return len(p), nil
}

// TestWatchInterrupted sends SIGINT to `tearcam watch` while it reads the fresh sheet (OCR):
// exit status 1, one true line after "watching" (README: no ruling made, what was left unruled;
// nothing said about the sheet being unusable),
// no ruling listed for the tear announced but not ruled, and the --json file holds only what
// was ruled (nothing).
func TestWatchInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process that runs OCR")
	}
	tv := makeTableVideo(t, 7, 640, 480, []string{"Ann"}, func(sk [][]string) []videoShot {
		return []videoShot{{}, {Tear: &synth.TearSpec{Kind: synth.TearBite, Skill: sk[0][0], Action: judge.KindUse}}}
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "rulings.json")
	argv := append([]string{"watch", "--source", tv.Path, "--db", filepath.Join(dir, "ci.db"), "--json", out, "--realtime"}, tv.playerArgs()...)
	args, _ := json.Marshal(argv)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TEARCAM_WATCH_HELPER="+string(args))
	cmd.Stdin = strings.NewReader(tv.announcements())
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	var errLines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		errLines = append(errLines, sc.Text())
		if strings.Contains(sc.Text(), "watching") {
			// The fresh sheet settles StillFor (0.4 s) after it stops: its OCR is under way.
			settle := time.Duration(float64(tv.Truth.Still[0].First)/tv.Truth.FPS*float64(time.Second)) + 700*time.Millisecond
			time.AfterFunc(settle, func() { cmd.Process.Signal(syscall.SIGINT) })
		}
	}
	err = cmd.Wait()
	all := strings.Join(errLines, "\n")
	require.Error(t, err, all)
	assert.Equal(t, 1, cmd.ProcessState.ExitCode(), all)
	w := slices.IndexFunc(errLines, func(l string) bool { return strings.Contains(l, "tearcam watch: watching ") })
	require.GreaterOrEqual(t, w, 0, all)
	require.Len(t, errLines[w+1:], 1, "one line after SIGINT: %s", all)
	assert.Regexp(t, `^tearcam: watch: interrupted after \d+ frames? of video .*table\.avi: 0 rulings made and kept in .*ci\.db \(frames: .*ci-frames/.*\) and .*rulings\.json holds them; not ruled: (Ann's fresh sheet \(frame \d+, being read\), )?Ann's 1 announced tear not yet seen$`,
		errLines[w+1])
	assert.NotContains(t, all, "context canceled")
	assert.Empty(t, stdout.String())
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Players, 1)
	assert.Empty(t, doc.Players[0].Tears, "no ruling for the tear announced but not ruled")
}

// TestWatchOutputIsInput: no output of watch may be one of its inputs (as audit's): --json
// over the video or the plan replaced it with JSON (exit 0), and --db over them would too.
// Each is refused in one line (exit 2), and the input is left as it was.
func TestWatchOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "v2.avi")
	plan := filepath.Join(dir, "plan.yaml")
	tmpl := filepath.Join(dir, "t.json")
	videoBytes := []byte("not really a video: the check comes before it is opened")
	planBytes := []byte("players:\n  - name: Ann\n    skills: [A]\n    tears:\n      - {kind: use, skill: A}\n")
	require.NoError(t, os.WriteFile(video, videoBytes, 0o644))
	require.NoError(t, os.WriteFile(plan, planBytes, 0o644))
	require.NoError(t, os.WriteFile(tmpl, []byte(`{"name": "t", "polygon_mm": [[0,0],[30,0],[30,20],[0,20]]}`), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "y1-frames"), 0o755))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"json over the video", []string{"--source", video, "--session", plan, "--db", filepath.Join(dir, "y1.db"), "--json", video},
			"tearcam: --json " + video + ": is the --source video, which watch reads: choose another file\n"},
		{"json over the plan", []string{"--source", video, "--session", plan, "--db", filepath.Join(dir, "y1.db"), "--json", plan},
			"tearcam: --json " + plan + ": is the manifest, which watch reads: choose another file\n"},
		{"db over the plan", []string{"--source", video, "--session", plan, "--db", plan},
			"tearcam: --db " + plan + ": is the manifest, which watch reads: choose another file\n"},
		{"json over the template", []string{"--source", video, "--skills", "A", "--template", tmpl, "--db", filepath.Join(dir, "y1.db"), "--json", tmpl},
			"tearcam: --json " + tmpl + ": is the template, which watch reads: choose another file\n"},
		{"json over the database", []string{"--source", video, "--session", plan, "--db", filepath.Join(dir, "y1.db"), "--json", filepath.Join(dir, "y1.db")},
			"tearcam: --json " + filepath.Join(dir, "y1.db") + ": is also the --db file: choose another file\n"},
		{"json over the frames folder", []string{"--source", video, "--session", plan, "--db", filepath.Join(dir, "y1.db"), "--json", filepath.Join(dir, "y1-frames")},
			"tearcam: --json " + filepath.Join(dir, "y1-frames") + ": is also the frames folder: choose another file\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			iostreams, stdout, stderr := testIO()
			code := runWatchCmd(tc.args, iostreams, func(o *watchOptions) { o.NewPipeline = newFakePipeline })
			assert.Equal(t, 2, code, stderr.String())
			assert.Empty(t, stdout.String())
			assert.Equal(t, tc.want, stderr.String())
			got, err := os.ReadFile(video)
			require.NoError(t, err)
			assert.Equal(t, videoBytes, got, "the video was overwritten")
			got, err = os.ReadFile(plan)
			require.NoError(t, err)
			assert.Equal(t, planBytes, got, "the plan was overwritten")
		})
	}
}

// TestWatchWarnsUnreadableSkill: watch, like audit and judge, says up front that a skill in
// another script cannot be read (a tester), before it fails on the missing camera.
func TestWatchWarnsUnreadableSkill(t *testing.T) {
	if _, err := os.Stat("/dev/video0"); err == nil {
		t.Skip("a camera is attached")
	}
	iostreams, _, stderr := testIO()
	assert.Equal(t, 1, Main([]string{"watch", "--source", "0", "--player", "Ann", "--skills", "Cooking,Ёжик"}, iostreams), stderr.String())
	assert.Contains(t, stderr.String(), `note: Ann's skill "Ёжик" has letters outside the Latin alphabet (Ёжик), which tearcam's OCR (Tesseract, English model) cannot read`)
	assert.NotContains(t, stderr.String(), `"Cooking"`)
}

// TestWatchRestartedRefusesOrResumes: restarted after a crash with the same --db and
// --session, watch silently started a new session, took the torn sheet as the fresh one
// (skills located 0/9) and overwrote --json (a tester). It now refuses in one line (exit 2,
// --json untouched), saying how to continue; with --resume it takes the recorded frames again
// (the same rulings, the database's re-used) and goes on with the source.
func TestWatchRestartedRefusesOrResumes(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	require.NoError(t, os.WriteFile(plan, []byte("paper: a4\ntemplate: default\nplayers:\n  - name: Ann\n    skills: [Archery, Cooking]\n    tears:\n"+
		"      - {kind: use, skill: Archery}\n      - {kind: damage, skill: Cooking}\n      - {kind: use, skill: Cooking}\n"), 0o644))
	// What the killed watch recorded: the fresh sheet and two tears (the fake Eye's photos).
	ok := fake.Photo{RemovedAreaMM2: 1000, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true}
	two := ok
	two.Pieces = 2
	frames, _, video := recordedWatch(t, dir, "plan", ok, "damage", two, 5)
	db := filepath.Join(dir, "w.db")
	out := filepath.Join(dir, "out.json")
	before := []byte(`{"kept": "the rulings so far"}`)
	require.NoError(t, os.WriteFile(out, before, 0o644))
	args := []string{"--source", video, "--session", plan, "--db", db, "--json", out}
	fakePipe := func(o *watchOptions) { o.NewPipeline = newFakePipeline }

	iostreams, stdout, stderr := testIO()
	code := runWatchCmd(args, iostreams, fakePipe)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout.String())
	assert.Equal(t, "tearcam: watch: "+db+" already holds a watch of this session ("+frames+": Ann's fresh sheet and 2 tears ruled); "+
		"a new one would take the torn sheet for a fresh one: add --resume to continue it, or give another --db to start anew with an untorn sheet\n", stderr.String())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, before, got, "--json untouched")

	iostreams, stdout, stderr = testIO()
	var res *watch.Result
	code = runWatchCmd(append(args, "--resume"), iostreams, func(o *watchOptions) {
		fakePipe(o)
		o.Result = func(r *watch.Result) { res = r }
	})
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "resuming the watch recorded in "+frames+" (Ann's fresh sheet and 2 tears ruled): its frames are taken again, then the source's, numbered from 152")
	assert.Contains(t, stdout.String(), "Ann tear 1: use Archery (frame:80): faux_pas [no_full_letter]")
	assert.Contains(t, stdout.String(), "Ann tear 2: damage Cooking (frame:151): faux_pas [no_full_letter, several_pieces]")
	require.NotNil(t, res)
	assert.Equal(t, 5, res.Frames)
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Players, 1)
	assert.Equal(t, "frame:12", doc.Players[0].Sheet.Photo)
	// The two recorded tears, and the third, never seen, undecided.
	require.Len(t, doc.Players[0].Tears, 3)
	assert.Equal(t, []judge.Fault{judge.FaultNoFullLetter}, doc.Players[0].Tears[0].Faults)
	assert.Equal(t, []judge.Fault{judge.FaultNoFullLetter, judge.FaultSeveralPieces}, doc.Players[0].Tears[1].Faults)
	assert.Equal(t, judge.Undecided, doc.Players[0].Tears[2].Verdict)
	assert.Contains(t, doc.Players[0].Tears[2].UndecidedReason, "never seen")
	// The session continued is the recorded one: its manifest, its frames.
	dirs, _ := filepath.Glob(filepath.Join(dir, "w-frames", "*"))
	assert.Equal(t, []string{frames}, dirs)
}

// TestWatchGMRulingLive: the GM rules a tear on stdin ("gm 1 ..."): stdout says what the GM
// ruled and the later tear it re-rules, --json holds it (tears[].gm_ruling), and a resumed
// watch keeps it (the frames' manifest records it as gm:). A bad command: one line on
// stderr, nothing changed.
func TestWatchGMRulingLive(t *testing.T) {
	dir := t.TempDir()
	doubt := fake.Photo{RemovedAreaMM2: 1000, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RSSSSSS"}, Doubts: []string{"the two pieces may be one"}}
	ok := fake.Photo{RemovedAreaMM2: 1000, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Cooking": "RSSSSSS"}}
	_, manifest, video := recordedWatch(t, dir, "watch", doubt, "use", ok, 15) // 1 s in real time
	db := filepath.Join(dir, "w.db")
	out := filepath.Join(dir, "out.json")
	args := []string{"--source", video, "--player", "Ann", "--skills", "Archery,Cooking", "--db", db, "--json", out, "--resume", "--realtime"}
	fakePipe := func(o *watchOptions) { o.NewPipeline = newFakePipeline }

	iostreams, stdout, stderr := testIO()
	iostreams.In = strings.NewReader("gm 3 valid\ngm 1 remaining Archery=6\ngm 1 faux_pas several_pieces\ngm 1 remaining Fishing=1\n")
	code := runWatchCmd(args, iostreams, fakePipe)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "Ann tear 1: use Archery (frame:80): undecided (")
	assert.Contains(t, stdout.String(), "Ann tear 2: use Cooking (frame:151): valid; letters left: Archery 6, Cooking 6\n")
	assert.Contains(t, stdout.String(), "Ann tear 1: undecided → GM ruled faux_pas (several_pieces); letters left (as before this tear): Archery 7?, Cooking 7? (?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read); tears owed: 1\n")
	assert.Contains(t, stdout.String(), "Ann tear 2: use Cooking (frame:151): valid; letters left: Archery 6, Cooking 6; tears owed: 1 (re-ruled after the GM's ruling on tear 1)\n")
	assert.Contains(t, stderr.String(), "tearcam watch: gm 3 for Ann ignored: Ann has 2 tears ruled; nothing changed\n")
	assert.Contains(t, stderr.String(), "tearcam watch: gm 1 for Ann ignored: no verdict: want valid or faux_pas; nothing changed\n", "a count alone adds to a GM's ruling: there is none yet")
	assert.Contains(t, stderr.String(), "tearcam watch: gm 1 for Ann ignored: remaining: unknown skill \"Fishing\": not among the player's skills (Archery, Cooking); nothing changed\n")
	var doc judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Players[0].Tears, 2)
	require.NotNil(t, doc.Players[0].Tears[0].GMRuling)
	assert.Equal(t, judge.FauxPas, doc.Players[0].Tears[0].GMRuling.Verdict)
	assert.Equal(t, judge.Undecided, doc.Players[0].Tears[0].Verdict, "tearcam's own verdict is kept")
	assert.Equal(t, 1, doc.Players[0].Tears[1].OwedTears)
	m, err := os.ReadFile(manifest)
	require.NoError(t, err)
	assert.Contains(t, string(m), `- {photo: "frame-000080.png", kind: use, skill: "Archery", gm: {"verdict":"faux_pas","faults":["several_pieces"]}}`)

	// Resumed again: the GM's ruling stands without being typed again.
	iostreams, stdout, stderr = testIO()
	code = runWatchCmd(args, iostreams, fakePipe)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "Ann tear 1: undecided → GM ruled faux_pas (several_pieces); letters left (as before this tear): Archery 7?, Cooking 7? (?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read); tears owed: 1\n")
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	var again judge.Rulings
	require.NoError(t, json.Unmarshal(b, &again))
	assert.Equal(t, doc.Players, again.Players)
}

// recordedWatch writes in dir what a killed watch of session name recorded for Ann (Archery,
// Cooking): her fresh sheet (frame 12), "use Archery" on frame 80 (the fake photo first) and
// "KIND Cooking" on frame 151 (second); and a video of n frames of an empty table, to resume
// with. It returns the frames folder, its manifest and the video.
func recordedWatch(t *testing.T, dir, name string, first fake.Photo, kind string, second fake.Photo, n int) (frames, manifest, video string) {
	t.Helper()
	frames = filepath.Join(dir, "w-frames", name+"-20260101T000000Z")
	require.NoError(t, os.MkdirAll(frames, 0o755))
	for name, b := range map[string][]byte{"frame-000012.png": fake.JSON(fake.Sheet{Sheet: true}),
		"frame-000080.png": fake.JSON(first), "frame-000151.png": fake.JSON(second)} {
		require.NoError(t, os.WriteFile(filepath.Join(frames, name), b, 0o644))
	}
	manifest = filepath.Join(frames, "session.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("paper: \"a4\"\ntemplate: \"default\"\nplayers:\n  - name: \"Ann\"\n    skills: [\"Archery\", \"Cooking\"]\n"+
		"    sheet: \"frame-000012.png\"\n    tears:\n      - {photo: \"frame-000080.png\", kind: use, skill: \"Archery\"}\n"+
		"      - {photo: \"frame-000151.png\", kind: "+kind+", skill: \"Cooking\"}\n"), 0o644))
	video = filepath.Join(dir, "rest.avi")
	grey := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 60, 60, 0), 48, 64, gocv.MatTypeCV8UC3)
	defer grey.Close()
	writeVideo(t, video, n, func(int) gocv.Mat { return grey }) // no sheet in view
	return frames, manifest, video
}

// TestWatchGMAdvice: watch's undecided reasons end with what the GM types there (named by the
// player when several play, as the announcement parser needs) and, with --http, the page's
// form, not the manifest's gm: that audit's advise.
func TestWatchGMAdvice(t *testing.T) {
	for _, tc := range []struct {
		named, page bool
		want        string
	}{
		{false, false, `types the ruling on this tear: "gm 3 valid" or "gm 3 faux_pas FAULT..."`},
		{true, false, `types the ruling on this tear: "Ann: gm 3 valid" or "Ann: gm 3 faux_pas FAULT..."`},
		{true, true, `types the ruling on this tear: "Ann: gm 3 valid" or "Ann: gm 3 faux_pas FAULT...", or uses the GM's form on the live page`},
	} {
		t.Run(fmt.Sprintf("named=%v,page=%v", tc.named, tc.page), func(t *testing.T) {
			got := watchGMAdvice(tc.named, tc.page)("Ann", 3)
			assert.Equal(t, tc.want, got)
			// What it says to type is a GM ruling the announcement parser takes.
			line := strings.Split(got, `"`)[1]
			a, err := watch.ParseAnnouncement(line)
			require.NoError(t, err, line)
			require.NotNil(t, a.GM)
			assert.Equal(t, judge.Valid, a.GM.Verdict)
			assert.Equal(t, 3, a.GMTear)
			if tc.named {
				assert.Equal(t, "Ann", a.Player)
			}
		})
	}
}

// TestAmendedLine: the follow-up line after the OCR re-read, printed after the ruling: a
// re-read that changes what was ruled prints the whole ruling as amended and what it was;
// one that only adds notes says so and that the ruling stands.
func TestAmendedLine(t *testing.T) {
	was := judge.TearRuling{Index: 2, Photo: "frame:90", Kind: judge.KindUse, Skill: "Archery", Verdict: judge.Valid, Faults: []judge.Fault{},
		Skills: []judge.SkillState{{Name: "Archery", Remaining: 4, Available: true, Measured: true}}}
	noted := was
	noted.Notes = []string{`ocr re-read: "Archery": letter 4 reads as gone`}
	assert.Equal(t, `Ann tear 2, after the OCR re-read: "Archery": letter 4 reads as gone; the ruling stands`, amendedLine("Ann", was, noted))
	doubted := noted
	doubted.Verdict, doubted.UndecidedReason = judge.Undecided, `ocr re-read: "Archery": letter 4 reads as gone`
	assert.Equal(t, `Ann tear 2, amended after the OCR re-read (was valid): use Archery (frame:90): undecided (ocr re-read: "Archery": letter 4 reads as gone); letters left: Archery 4`,
		amendedLine("Ann", was, doubted))
}
