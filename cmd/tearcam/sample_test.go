package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	st, err := os.Stat(filepath.Join(out, "r.html"))
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10000), "the report inlines its images")
}
