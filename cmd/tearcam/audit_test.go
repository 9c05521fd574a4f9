package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/referee/fake"
	"tearcam/store"
)

// fakePipeline is the fake vision and OCR of referee/fake, as a pipeline.
type fakePipeline struct {
	*fake.Eye
	fake.Reader
}

func (fakePipeline) Close() error { return nil }

func newFakePipeline() (pipeline, error) { return fakePipeline{Eye: &fake.Eye{}}, nil }

// execute runs a command built by newCmd with args on test streams, the way Main reports
// errors, and returns the exit status and both streams.
func execute(t *testing.T, newCmd func(*IO) *cobra.Command, args ...string) (int, string, string) {
	t.Helper()
	iostreams, out, errOut := testIO()
	cmd := newCmd(iostreams)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if err != nil {
		errOut.WriteString("tearcam: " + oneLine(err.Error()) + "\n")
	}
	return ExitCode(err), out.String(), errOut.String()
}

func fakeAudit(iostreams *IO) *cobra.Command {
	return newAuditCmd(iostreams, func(o *auditOptions) error {
		o.NewPipeline = newFakePipeline
		return runAudit(context.Background(), o)
	})
}

const fakeManifest = `paper: a4
players:
  - name: Ann
    skills: [Archery, Tea Ceremony]
    sheet: ann-0.jpg
    tears:
      - {photo: ann-1.jpg, kind: use, skill: Archery}
      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony}
      - {photo: ann-3.jpg, kind: use, skill: Archery}
      - {kind: last_ditch, hit: false}
`

// writeFakeSession writes a session of fake photos (referee/fake) and returns the manifest's
// path. sleepMS slows each measurement down.
func writeFakeSession(t *testing.T, sleepMS int, extraTears int) string {
	t.Helper()
	dir := t.TempDir()
	ok := fake.Photo{RemovedAreaMM2: 1000, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true, SleepMS: sleepMS}
	ann1, ann2 := ok, ok
	ann1.Letters = map[string]string{"Archery": "RSSSSSS"}
	ann2.Letters = map[string]string{"Archery": "GSSSSSS", "Tea Ceremony": "SSSSSSSSSSC"}
	files := map[string][]byte{
		"ann-0.jpg": fake.JSON(fake.Sheet{Sheet: true}), "ann-1.jpg": fake.JSON(ann1), "ann-2.jpg": fake.JSON(ann2),
		"ann-3.jpg": []byte("\xff\xd8\xff not really a jpeg"),
	}
	manifest := fakeManifest
	if extraTears > 0 {
		manifest = strings.Replace(manifest, "      - {kind: last_ditch, hit: false}\n", "", 1)
		for i := range extraTears {
			name := "ann-x" + string(rune('a'+i)) + ".jpg"
			p := ok
			p.Letters = map[string]string{"Archery": "GSSSSSS"}
			files[name] = fake.JSON(p)
			manifest += "      - {photo: " + name + ", kind: damage, skill: Tea Ceremony}\n"
		}
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	path := filepath.Join(dir, "session.yaml")
	require.NoError(t, os.WriteFile(path, []byte(manifest), 0o644))
	return path
}

func TestAuditFlags(t *testing.T) {
	tests := []struct {
		args []string
		want auditOptions
		code int
	}{
		{[]string{"s.yaml"}, auditOptions{Manifest: "s.yaml"}, 0},
		{[]string{"s.yaml", "--json", "-", "--report", "r.html", "--annotate", "ann", "--db", "x.db"},
			auditOptions{Manifest: "s.yaml", JSON: "-", Report: "r.html", Annotate: "ann", DB: "x.db"}, 0},
		{[]string{}, auditOptions{}, 2},
		{[]string{"a.yaml", "b.yaml"}, auditOptions{}, 2},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.args), func(t *testing.T) {
			var got *auditOptions
			iostreams, _, _ := testIO()
			cmd := newAuditCmd(iostreams, func(o *auditOptions) error { got = o; return nil })
			root := &cobra.Command{Use: "tearcam", SilenceErrors: true, SilenceUsage: true}
			root.AddCommand(cmd)
			root.SetArgs(append([]string{"audit"}, tc.args...))
			root.SetOut(&bytes.Buffer{})
			root.SetErr(&bytes.Buffer{})
			_, err := root.ExecuteC()
			if tc.code != 0 {
				require.Error(t, err)
				assert.True(t, isCobraUsage(err), err.Error())
				return
			}
			require.NoError(t, err)
			got.IO, got.NewPipeline = nil, nil
			assert.Equal(t, tc.want, *got)
		})
	}
}

func TestAuditWritesEverything(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	out := t.TempDir()
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--json", filepath.Join(out, "r.json"),
		"--report", filepath.Join(out, "r.html"), "--annotate", filepath.Join(out, "ann"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "session database: "+filepath.Join(filepath.Dir(manifest), "tearcam.db")+
		" (the default; choose another with --db)\n"+
		// Tears 1 and 2 were measured; the others have no image, and the summary says why.
		"annotated images: 2 of 4 tears in "+filepath.Join(out, "ann")+
		"; Ann tear 3: no image: measurement refused; Ann tear 4: no image: no photo (last ditch)\n"+
		// The photo that is no image: one line naming it, exit status 0 (judge says the same).
		"tearcam: ann-3.jpg: not a readable image (Ann's tear 3 is ruled undecided)\n",
		stderr, "where the default database and the annotated images went, on stderr")
	want := `Ann: untorn sheet ann-0.jpg found; letters located: Archery 7/7, Tea Ceremony 11/11
    #  photo      kind        skill         verdict
    1  ann-1.jpg  use         Archery       valid
       letters left: Archery 6, Tea Ceremony 11
    2  ann-2.jpg  damage      Tea Ceremony  faux_pas   no_full_letter; 1 tear owed
       letters left: Archery 6, Tea Ceremony 10
    3  ann-3.jpg  use         Archery       undecided  1 tear owed; measurement refused: ann-3.jpg: not a readable image; use the original photo file
       letters left (as before this tear): Archery 6?, Tea Ceremony 10?
    4  -          last_ditch                valid      the ball missed the GM; 1 tear owed; OUT: last_ditch
       letters left: Archery 6?, Tea Ceremony 10?
       ?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read
`
	assert.Equal(t, want, stdout)

	var doc judge.Rulings
	b, err := os.ReadFile(filepath.Join(out, "r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, "tearcam.rulings/v1", doc.Schema)
	assert.Len(t, doc.Players[0].Tears, 4)
	html, err := os.ReadFile(filepath.Join(out, "r.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "not a readable image")
	ann, err := os.ReadDir(filepath.Join(out, "ann"))
	require.NoError(t, err)
	var names []string
	for _, e := range ann {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"Ann-01.jpg", "Ann-02.jpg"}, names)
	_, err = os.Stat(filepath.Join(filepath.Dir(manifest), "tearcam.db"))
	assert.NoError(t, err, "the database defaults to tearcam.db next to the manifest")
}

func TestAuditJSONIsReproducible(t *testing.T) {
	// Same photos, manifest and version: byte-identical JSON, from a fresh database, from a
	// resumed one, and from a copy of the session in another folder.
	manifest := writeFakeSession(t, 0, 0)
	var docs []string
	for _, db := range []string{"a.db", "b.db", "b.db"} {
		code, stdout, stderr := execute(t, fakeAudit, manifest, "--json", "-", "--db", filepath.Join(t.TempDir(), db))
		require.Equal(t, 0, code, stderr)
		docs = append(docs, stdout)
	}
	copyDir := t.TempDir()
	entries, _ := os.ReadDir(filepath.Dir(manifest))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jpg") || strings.HasSuffix(e.Name(), ".yaml") {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(manifest), e.Name()))
			require.NoError(t, os.WriteFile(filepath.Join(copyDir, e.Name()), b, 0o644))
		}
	}
	code, stdout, _ := execute(t, fakeAudit, filepath.Join(copyDir, "session.yaml"), "--json", "-")
	require.Equal(t, 0, code)
	docs = append(docs, stdout)
	for i := 1; i < len(docs); i++ {
		assert.Equal(t, docs[0], docs[i], "run %d", i)
	}
	assert.True(t, json.Valid([]byte(docs[0])))
	assert.NotContains(t, docs[0], filepath.Dir(manifest))
}

// TestAuditMissingPhoto: a photo the manifest names but that does not exist makes its tear
// undecided; every other ruling is still written (JSON and table), and the exit status is 2
// with one line naming the manifest line and the photo.
func TestAuditMissingPhoto(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	dir := filepath.Dir(manifest)
	full := filepath.Join(t.TempDir(), "full.json")
	code, _, _ := execute(t, fakeAudit, manifest, "--json", full, "--db", filepath.Join(t.TempDir(), "a.db"))
	require.Equal(t, 0, code)
	require.NoError(t, os.Remove(filepath.Join(dir, "ann-2.jpg")))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--json", out, "--db", filepath.Join(t.TempDir(), "b.db"))
	assert.Equal(t, 2, code)
	// ann-3.jpg is no image: its line comes with the rulings, the missing photo's last.
	assert.Equal(t, "tearcam: ann-3.jpg: not a readable image (Ann's tear 3 is ruled undecided)\n"+"tearcam: "+manifest+`:8: player "Ann": tear 2: ann-2.jpg: no such file (that tear is ruled undecided; every other ruling was written)`+"\n", stderr)
	assert.Contains(t, stdout, "ann-2.jpg")
	var got, want judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	b, err = os.ReadFile(full)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &want))
	tears, wantTears := got.Players[0].Tears, want.Players[0].Tears
	require.Len(t, tears, 4)
	assert.Equal(t, wantTears[0], tears[0], "tear 1 ruled as with every photo")
	assert.Equal(t, judge.Undecided, tears[1].Verdict)
	assert.Contains(t, tears[1].UndecidedReason, "ann-2.jpg")
	assert.Equal(t, judge.Kind("last_ditch"), tears[3].Kind)

	// A missing untorn sheet: all of that player's tears are undecided, and the line says so.
	require.NoError(t, os.Remove(filepath.Join(dir, "ann-0.jpg")))
	code, _, stderr = execute(t, fakeAudit, manifest, "--json", out, "--db", filepath.Join(t.TempDir(), "c.db"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "ann-0.jpg: no such file")
	assert.Contains(t, stderr, "(those tears, and all tears of a player whose untorn sheet is missing, are ruled undecided; every other ruling was written)")
}

// TestAuditFIFOPhoto: a photo that is a FIFO (named pipe) is not a photo: its tear is
// undecided and the audit goes on (opening it for reading used to wait for a writer for
// good, and neither Ctrl-C nor SIGTERM stopped it: a tester).
func TestAuditFIFOPhoto(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	dir := filepath.Dir(manifest)
	require.NoError(t, os.Remove(filepath.Join(dir, "ann-2.jpg")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "ann-2.jpg"), 0o644))
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := execute(t, fakeAudit, manifest, "--json", out, "--db", filepath.Join(t.TempDir(), "f.db"))
	assert.Equal(t, 2, code)
	assert.Equal(t, "tearcam: ann-3.jpg: not a readable image (Ann's tear 3 is ruled undecided)\n"+"tearcam: "+manifest+`:8: player "Ann": tear 2: ann-2.jpg: not a regular file (that tear is ruled undecided; every other ruling was written)`+"\n", stderr)
	var got judge.Rulings
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	tears := got.Players[0].Tears
	require.Len(t, tears, 4)
	assert.Equal(t, judge.Undecided, tears[1].Verdict)
	assert.Contains(t, tears[1].UndecidedReason, "ann-2.jpg: not a regular file")
	assert.NotEqual(t, judge.Undecided, tears[0].Verdict)
}

func TestAuditBadInput(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	dir := filepath.Dir(manifest)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	photo, err := os.ReadFile(filepath.Join(dir, "ann-1.jpg"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Ann-01.jpg"), photo, 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not yaml", []string{write("bad.yaml", "players: [")}, "bad.yaml:1: not a valid manifest"},
		{"escaping path", []string{write("esc.yaml", "players:\n  - name: A\n    skills: [X]\n    sheet: ../ann-0.jpg\n")}, `leaves the manifest's folder`},
		{"unknown kind", []string{write("kind.yaml", "players:\n  - name: A\n    skills: [X]\n    sheet: ann-0.jpg\n    tears:\n      - {photo: ann-1.jpg, kind: rip, skill: X}\n")}, `kind.yaml:6: player "A": tear 1: unknown kind "rip"`},
		{"no manifest", []string{filepath.Join(dir, "none.yaml")}, "none.yaml: no such file or directory"},
		{"json folder missing", []string{manifest, "--json", filepath.Join(dir, "no", "r.json")}, "--json"},
		{"db folder missing", []string{manifest, "--db", filepath.Join(dir, "no", "t.db")}, "--db"},
		{"report is a folder", []string{manifest, "--report", dir}, "is a folder"},
		{"json inside a file", []string{manifest, "--json", filepath.Join(dir, "ann-1.jpg", "o.json")}, filepath.Join(dir, "ann-1.jpg") + " is a file, not a folder"},
		{"report to stdout", []string{manifest, "--report", "-"}, "--report -: the report is a file"},
		// Outputs that are the audit's own inputs, or each other.
		{"json over a photo", []string{manifest, "--json", filepath.Join(dir, "ann-1.jpg")}, "is the photo ann-1.jpg, which the audit reads"},
		{"report over the manifest", []string{manifest, "--report", manifest}, "is the manifest, which the audit reads"},
		{"json over the database", []string{manifest, "--db", filepath.Join(dir, "a.db"), "--json", filepath.Join(dir, "a.db")}, "--db " + filepath.Join(dir, "a.db") + ": is also the --json file"},
		{"json and report the same file", []string{manifest, "--json", filepath.Join(dir, "same"), "--report", filepath.Join(dir, "same")}, "is also the --json file"},
		// --annotate DIR writes DIR/<player>-<tear>.jpg: never over a photo the audit reads.
		{"annotated image over a photo", []string{write("ann.yaml", "players:\n  - name: Ann\n    skills: [X]\n    sheet: ann-0.jpg\n    tears:\n      - {photo: ann-1.jpg, kind: use, skill: X}\n      - {photo: Ann-01.jpg, kind: use, skill: X}\n"),
			"--annotate", dir}, "--annotate " + filepath.Join(dir, "Ann-01.jpg") + ": is the photo Ann-01.jpg, which the audit reads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := execute(t, fakeAudit, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		})
	}
}

// TestAuditHelperProcess is not a test: TestAuditKilledMidway runs the test binary with
// TEARCAM_AUDIT_HELPER set to audit in a child process it can kill.
func TestAuditHelperProcess(t *testing.T) {
	auditChild(t, "TEARCAM_AUDIT_HELPER", os.Stdout, "")
}

// auditChild audits, in a child process the test binary was started as, with the arguments
// (JSON) in the environment variable env, then exits with the audit's status; it skips when
// env is not set (the test binary run normally). Errors go to stderr after prefix.
func auditChild(t *testing.T, env string, out io.Writer, prefix string) {
	args := os.Getenv(env)
	if args == "" {
		t.Skip("helper process: " + env + " not set")
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		os.Exit(3)
	}
	cmd := fakeAudit(&IO{In: os.Stdin, Out: out, ErrOut: os.Stderr})
	cmd.SetArgs(argv)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if err != nil {
		os.Stderr.WriteString(prefix + oneLine(err.Error()) + "\n")
	}
	os.Exit(ExitCode(err))
}

func TestAuditKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	manifest := writeFakeSession(t, 200, 8) // 3 + 8 tears, 0.2 s each
	dbPath := filepath.Join(t.TempDir(), "kill.db")
	reported, werr, _ := auditUntilFirstRuling(t, syscall.SIGKILL, manifest, "--db", dbPath)
	require.Error(t, werr, "the child was killed")
	require.NotEmpty(t, reported, "a ruling was reported before the kill")

	db, err := store.Open(dbPath)
	require.NoError(t, err, "the database opens cleanly after the kill")
	defer db.Close()
	ctx := context.Background()
	p, err := db.FindPlayer(ctx, "", "Ann")
	require.NoError(t, err)
	rs, err := db.Rulings(ctx, p.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rs), len(reported), "every reported ruling is in the database")
	assert.Less(t, len(rs), 11, "the audit was stopped early")
	for i, line := range reported {
		assert.Contains(t, line, string(rs[i].Ruling.Verdict))
		assert.Contains(t, line, rs[i].Photo.Path)
	}
	runs, err := db.Runs(ctx, p.SessionID)
	require.NoError(t, err)
	assert.Equal(t, "running", runs[len(runs)-1].Status, "a killed run stays marked running")

	// Resuming re-uses what was committed and finishes the audit.
	db.Close()
	code, _, stderr := execute(t, fakeAudit, manifest, "--db", dbPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "re-used")
}

// auditUntilFirstRuling audits in a child process, sends it sig as soon as the first ruling
// is reported on stdout, and returns the rulings reported, the child's exit error and its
// stderr.
func auditUntilFirstRuling(t *testing.T, sig syscall.Signal, args ...string) ([]string, error, string) {
	t.Helper()
	argv, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAuditHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TEARCAM_AUDIT_HELPER="+string(argv))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var reported []string
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) >= 5 && f[0] != "#" && strings.HasSuffix(f[1], ".jpg") {
			reported = append(reported, line)
			require.NoError(t, cmd.Process.Signal(sig))
			break
		}
	}
	for sc.Scan() { // drain, so the child is never blocked writing
	}
	werr := cmd.Wait()
	return reported, werr, stderr.String()
}

// TestAuditInterrupted: Ctrl-C (SIGINT) mid-audit says how many rulings were made, where
// they are kept and how to resume, in one line, exit 1; no partial documents are written.
func TestAuditInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	manifest := writeFakeSession(t, 200, 8)
	dbPath := filepath.Join(t.TempDir(), "int.db")
	out := filepath.Join(t.TempDir(), "r.json")
	reported, werr, stderr := auditUntilFirstRuling(t, syscall.SIGINT, manifest, "--db", dbPath, "--json", out)
	require.NotEmpty(t, reported)
	var ee *exec.ExitError
	require.ErrorAs(t, werr, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Regexp(t, `^audit .*session.yaml: interrupted after ([1-9][0-9]*) of 11 tear rulings (was|were) reported; .*int.db keeps ([1-9][0-9]*) of them, and running the same command again resumes from them`, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.NoFileExists(t, out)
}

// TestAuditInterruptedResumed: an audit interrupted before it reported any ruling (here: at
// once) says how many rulings the database keeps from earlier runs; it said "after 0 of 4
// tear ruling(s); they are kept" while they were all there (a tester).
func TestAuditInterruptedResumed(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	dbPath := filepath.Join(t.TempDir(), "n4.db")
	code, _, stderr := execute(t, fakeAudit, manifest, "--db", dbPath)
	require.Equal(t, 0, code, stderr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before anything was reported
	code, _, stderr = execute(t, func(iostreams *IO) *cobra.Command {
		return newAuditCmd(iostreams, func(o *auditOptions) error {
			o.NewPipeline = newFakePipeline
			return runAudit(ctx, o)
		})
	}, manifest, "--db", dbPath)
	assert.Equal(t, 1, code)
	assert.Equal(t, "tearcam: audit "+manifest+": interrupted after 0 of 4 tear rulings were reported; "+dbPath+
		" keeps 4 of them, and running the same command again resumes from them\n", stderr,
		"no output asked for: none named as not written")
}

// TestAuditNotWritten: an interrupted audit names the outputs asked for that it did not
// write, and only those (a tester: it named --annotate when it was not given).
func TestAuditNotWritten(t *testing.T) {
	for _, tc := range []struct {
		opts auditOptions
		want string
	}{
		{auditOptions{}, ""},
		{auditOptions{JSON: "-"}, " (no --json written)"},
		{auditOptions{JSON: "r.json", Annotate: "ann"}, " (no --json or --annotate written)"},
		{auditOptions{Report: "r.html"}, " (no --report written)"},
		{auditOptions{JSON: "r.json", Report: "r.html", Annotate: "ann"}, " (no --json, --report or --annotate written)"},
	} {
		assert.Equal(t, tc.want, tc.opts.notWritten(), "%+v", tc.opts)
	}
}

// TestAuditTableMarksWeakRead: the fresh sheet's line marks a skill located by a weak read,
// and how weak: "Archery 7/7" alone hid that its count is not certain (a tester).
func TestAuditTableMarksWeakRead(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(manifest), "ann-0.jpg"),
		fake.JSON(fake.Sheet{Sheet: true, Weak: map[string]float64{"Archery": 0.21}}), 0o644))
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--db", filepath.Join(t.TempDir(), "t.db"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "letters located: Archery 7/7 (weak read, 21%), Tea Ceremony 11/11\n")
}

// TestAuditTableMarksUnmeasured: a skill never located on the fresh sheet is counted as left
// but marked in the table, so nobody takes its count for a measurement.
func TestAuditTableMarksUnmeasured(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(manifest), "ann-0.jpg"),
		fake.JSON(fake.Sheet{Sheet: true, Unlocated: []string{"Tea Ceremony"}}), 0o644))
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--db", filepath.Join(t.TempDir(), "t.db"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "letters located: Archery 7/7, Tea Ceremony 0/11\n")
	assert.Contains(t, stdout, "    1  ann-1.jpg  use         Archery       valid\n"+
		"       letters left: Archery 6, Tea Ceremony 11?\n")
	// The "?" is explained once, at the end of the player's block, not on every row.
	// Tear 3's photo is unreadable: what it took is not measured, and Archery's 6 is marked.
	assert.True(t, strings.HasSuffix(stdout, "letters left: Archery 6?, Tea Ceremony 11?\n"+
		"       ?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read\n"), stdout)
	assert.Equal(t, 1, strings.Count(stdout, "not certain"), stdout)
}

// A manifest that gives no paper is audited as A4, and the audit says so once on stderr: a US
// letter sheet looks like A4 in a photo and would be measured at the wrong scale.
func TestAuditSaysPaperAssumed(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	b, err := os.ReadFile(manifest)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(manifest, bytes.Replace(b, []byte("paper: a4\n"), nil, 1), 0o644))
	code, _, stderr := execute(t, fakeAudit, manifest, "--json", filepath.Join(t.TempDir(), "r.json"), "--db", filepath.Join(t.TempDir(), "a.db"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, manifest+": no paper given: A4 assumed (a US letter sheet looks alike in a photo and would be measured at the wrong scale: say paper: letter)\n"), stderr)

	require.NoError(t, os.WriteFile(manifest, b, 0o644))
	code, _, stderr = execute(t, fakeAudit, manifest, "--json", filepath.Join(t.TempDir(), "r.json"), "--db", filepath.Join(t.TempDir(), "b.db"))
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "no paper given")
}

// TestAuditDiscoveryTable: a player who declared no skills gets the words found on the sheet
// and tears undecided for it, with no empty "letters left" line (a tester).
func TestAuditDiscoveryTable(t *testing.T) {
	dir := t.TempDir()
	ok := fake.Photo{RemovedAreaMM2: 1000, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "di-0.jpg"), fake.JSON(fake.Sheet{Sheet: true, Words: []string{"Swordsmanship", "Tea"}}), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "di-1.jpg"), fake.JSON(ok), 0o644))
	manifest := filepath.Join(dir, "session.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("paper: a4\nplayers:\n  - name: Di\n    sheet: di-0.jpg\n    tears:\n      - {photo: di-1.jpg, kind: use, skill: Tea}\n"), 0o644))
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--db", filepath.Join(t.TempDir(), "t.db"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "undecided  no skills declared for Di")
	assert.NotContains(t, stdout, "letters left")
}

// TestAuditGMRuling: a GM ruling on the tear tearcam left undecided (ann-3.jpg is no image)
// is printed under it ("undecided → GM ruled ...") and the state follows it: the faux pas owes
// a second tear; the JSON keeps tearcam's verdict and adds gm_ruling. A GM ruling naming an
// unknown fault is a bad manifest: exit 2, one line naming the manifest line and the tear.
func TestAuditGMRuling(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	b, err := os.ReadFile(manifest)
	require.NoError(t, err)
	tear3 := "      - {photo: ann-3.jpg, kind: use, skill: Archery}\n"
	require.Contains(t, string(b), tear3)
	withGM := func(gm string) {
		require.NoError(t, os.WriteFile(manifest, []byte(strings.Replace(string(b), tear3,
			"      - {photo: ann-3.jpg, kind: use, skill: Archery, gm: "+gm+"}\n", 1)), 0o644))
	}
	withGM("{verdict: faux_pas, faults: [no_full_letter], remaining: {archery: 5}}")
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := execute(t, fakeAudit, manifest, "--json", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `    3  ann-3.jpg  use         Archery       undecided  2 tears owed; measurement refused: ann-3.jpg: not a readable image; use the original photo file
       undecided → GM ruled faux_pas (no_full_letter); letters left Archery 5
       letters left: Archery 5, Tea Ceremony 10?
`)
	var doc judge.Rulings
	js, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &doc))
	r := doc.Players[0].Tears[2]
	assert.Equal(t, judge.Undecided, r.Verdict)
	require.NotNil(t, r.GMRuling)
	assert.Equal(t, map[string]int{"Archery": 5}, r.GMRuling.Remaining)
	assert.Equal(t, 2, r.OwedTears)

	withGM("{verdict: faux_pas, faults: [grip]}")
	code, _, stderr = execute(t, fakeAudit, manifest, "--json", out)
	assert.Equal(t, 2, code)
	assert.Equal(t, manifest+`:9: player "Ann": tear 3: gm: unknown fault "grip": want nothing_removed, no_full_letter, piece_too_small, not_edge_to_edge, several_pieces`,
		strings.TrimPrefix(strings.TrimSpace(stderr), "tearcam: "))
}

// TestAuditGMRulingTable: the GM's letter counts print in the sheet's declared order (Tea
// Ceremony before Archery here, not alphabetically), and a GM ruling on a tear after the
// character is out (after the last ditch effort) says in the table that it was ignored and
// why, not "GM ruled" alone.
func TestAuditGMRulingTable(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	b, err := os.ReadFile(manifest)
	require.NoError(t, err)
	s := strings.Replace(string(b), "skills: [Archery, Tea Ceremony]", "skills: [Tea Ceremony, Archery]", 1)
	s = strings.Replace(s, "      - {photo: ann-3.jpg, kind: use, skill: Archery}\n",
		"      - {photo: ann-3.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {archery: 5, tea ceremony: 9}}}\n", 1)
	s += "      - {photo: ann-2.jpg, kind: use, skill: Archery, gm: {verdict: faux_pas, faults: [no_full_letter]}}\n"
	require.NoError(t, os.WriteFile(manifest, []byte(s), 0o644))
	code, stdout, stderr := execute(t, fakeAudit, manifest)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "       undecided → GM ruled valid; letters left Tea Ceremony 9, Archery 5\n")
	assert.Contains(t, stdout, "       undecided → GM ruled faux_pas (no_full_letter): ignored, Ann is already out (last_ditch, tear 4): a ruling on a later tear changes nothing\n")
	assert.NotContains(t, stdout, "letters left Archery 5, Tea Ceremony 9")
}
