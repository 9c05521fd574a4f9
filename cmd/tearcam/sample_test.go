package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/session"
)

// TestAuditSampleSession runs `make run`'s audit through Main, with the real vision and OCR:
// rulings for every tear, in the contract's shape, and a report.
func TestAuditSampleSession(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pipeline")
	}
	manifest := filepath.Join("..", "..", "testdata", "images", "sample", "session.yaml")
	m, err := session.Load(manifest, session.Audit)
	if err != nil {
		t.Skipf("no sample session: %v", err)
	}
	out := t.TempDir()
	iostreams, stdout, stderr := testIO()
	code := Main([]string{"audit", manifest, "--json", "-", "--db", filepath.Join(out, "s.db"),
		"--report", filepath.Join(out, "r.html"), "--annotate", filepath.Join(out, "ann")}, iostreams)
	require.Equal(t, 0, code, stderr.String())
	var doc judge.Rulings
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), "stdout holds only the JSON with --json -")
	assert.Equal(t, judge.Schema, doc.Schema)
	require.Len(t, doc.Players, len(m.Players))
	for i, p := range doc.Players {
		assert.Equal(t, m.Players[i].Name, p.Name)
		assert.Len(t, p.Sheet.SHA256, 64)
		require.Len(t, p.Tears, len(m.Players[i].Tears))
		for j, tr := range p.Tears {
			assert.Equal(t, j+1, tr.Index)
			assert.Contains(t, []judge.Verdict{judge.Valid, judge.FauxPas, judge.Undecided}, tr.Verdict)
			if tr.Verdict == judge.Undecided && tr.Kind != judge.KindLastDitch {
				assert.NotEmpty(t, tr.UndecidedReason)
			}
			assert.Len(t, tr.Skills, len(m.Players[i].Skills))
		}
	}
	// The sample's tears are the generator's on a real photo (truth.json): no tear decided
	// against the truth, nor letters left miscounted on a decided tear. Tear 1 ('h' of
	// "hand" removed whole, its neighbour 'a' cut 1.1 mm from the 'h''s outline) is decided:
	// before the split doubt looked at where the cut letter's ink lies, a removed letter beside
	// any cut one in joined writing was "removed or cut", and tear 1 was undecided.
	truth, err := synth.LoadTruth(filepath.Dir(manifest))
	require.NoError(t, err)
	require.Len(t, truth.Players, len(doc.Players))
	for i, p := range doc.Players {
		require.Len(t, truth.Players[i].Tears, len(p.Tears))
		for j, tr := range p.Tears {
			want := truth.Players[i].Tears[j].Expected
			if tr.Verdict == judge.Undecided {
				continue
			}
			assert.Equal(t, want.Verdict, tr.Verdict, "tear %d", tr.Index)
			assert.Equal(t, want.Faults, tr.Faults, "tear %d", tr.Index)
			for k, sk := range want.Skills {
				if k < len(tr.Skills) && tr.Skills[k].Measured {
					assert.Equal(t, sk.Remaining, tr.Skills[k].Remaining, "tear %d: %s left", tr.Index, sk.Name)
				}
			}
		}
	}
	t1 := doc.Players[0].Tears[0]
	assert.Equal(t, judge.Valid, t1.Verdict, "tear 1: %s", t1.UndecidedReason)
	for k, sk := range truth.Players[0].Tears[0].Expected.Skills {
		if sk.Name == t1.Skill && assert.Less(t, k, len(t1.Skills)) {
			// Counted right; marked "?" since the placement doubt (vision/measure.go): ocr/
			// rates the placement of "hand"'s letters 0.887 (3 of its 4 letters read, divided
			// along the baseline), as it rated "Haggling" on seed 10's set where a letter
			// outlined on its neighbour's glyph made a count one off presented as measured.
			assert.Equal(t, sk.Remaining, t1.Skills[k].Remaining, "tear 1: %s left", sk.Name)
		}
	}
	st, err := os.Stat(filepath.Join(out, "r.html"))
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10000), "the report inlines its images")
}

// TestAuditSampleResumeIsByteIdentical audits the sample session up to tear 1 (and tear 2)
// into a database, then the whole session with it: the JSON must be byte-identical to a
// from-scratch audit's, with the real vision and OCR (tournaments need reproducible rulings).
func TestAuditSampleResumeIsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pipeline five times")
	}
	src := filepath.Join("..", "..", "testdata", "images", "sample")
	full, err := os.ReadFile(filepath.Join(src, "session.yaml"))
	if err != nil {
		t.Skipf("no sample session: %v", err)
	}
	dir := t.TempDir()
	names, err := filepath.Glob(filepath.Join(src, "*.jpg"))
	require.NoError(t, err)
	for _, n := range names {
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(n)), b, 0o644))
	}
	manifest := filepath.Join(dir, "session.yaml")
	audit := func(t *testing.T, yaml []byte, db string) []byte {
		t.Helper()
		require.NoError(t, os.WriteFile(manifest, yaml, 0o644))
		iostreams, stdout, stderr := testIO()
		code := Main([]string{"audit", manifest, "--json", "-", "--db", db}, iostreams)
		require.Equal(t, 0, code, stderr.String())
		return stdout.Bytes()
	}
	want := audit(t, full, filepath.Join(dir, "fresh.db"))
	// The manifest's tears, one per line, in order.
	var tearLines []int
	lines := strings.SplitAfter(string(full), "\n")
	for i, l := range lines {
		if strings.Contains(l, "{photo:") {
			tearLines = append(tearLines, i)
		}
	}
	require.GreaterOrEqual(t, len(tearLines), 3)
	for _, cut := range []int{1, 2} {
		t.Run(fmt.Sprintf("after tear %d", cut), func(t *testing.T) {
			partial := strings.Join(append(lines[:tearLines[cut]:tearLines[cut]], lines[tearLines[len(tearLines)-1]+1:]...), "")
			db := filepath.Join(t.TempDir(), "resume.db")
			audit(t, []byte(partial), db)
			assert.Equal(t, string(want), string(audit(t, full, db)))
		})
	}
}
