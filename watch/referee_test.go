package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/referee/fake"
	"tearcam/session"
	"tearcam/store"
	"tearcam/template"
)

// newFakeAuditReferee is an AuditReferee on referee/fake's vision and OCR, with a database
// and a frames folder in a new temporary folder, for an A4 sheet and the default template.
func newFakeAuditReferee(t *testing.T, ctx context.Context, players []Player) *AuditReferee {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "w.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ref := &referee.Referee{Eye: &fake.Eye{}, Reader: fake.Reader{}, DB: db, Session: "w", Command: "watch"}
	a, err := NewAuditReferee(ctx, ref, filepath.Join(dir, "frames"), template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297}, template.Default(), players)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a
}

// TestAuditRefereeInterruptedTear: a tear whose audit is interrupted (Ctrl-C while it is
// judged) is not ruled, and the frames' manifest must not list it either (README: "no tear
// is listed that was not ruled"). It listed it: session.yaml named the tear's frame while
// watch said 1 ruling was made and kept (a tester).
func TestAuditRefereeInterruptedTear(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := newFakeAuditReferee(t, ctx, []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}})
	frames := a.Dir

	sheet, err := a.Fresh(0, Frame{No: 3, PNG: fake.JSON(fake.Sheet{Sheet: true})})
	require.NoError(t, err)
	require.True(t, sheet.Found)
	torn := fake.JSON(fake.Photo{RemovedAreaMM2: 1500, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RSSSSSS"}})
	r, _, err := a.Tear(0, judge.Tear{Kind: judge.KindUse, Skill: "Archery"}, &Frame{No: 50, PNG: torn})
	require.NoError(t, err)
	assert.Equal(t, judge.Valid, r.Verdict)

	cancel() // Ctrl-C: the next tear's audit stops before ruling it
	_, _, err = a.Tear(0, judge.Tear{Kind: judge.KindUse, Skill: "Cooking"}, &Frame{No: 109, PNG: torn})
	require.ErrorIs(t, err, context.Canceled)

	m, err := session.Load(a.ManifestPath(), session.Audit)
	require.NoError(t, err)
	require.Len(t, m.Players, 1)
	assert.Equal(t, "frame-000003.png", m.Players[0].Sheet)
	var photos []string
	for _, tr := range m.Players[0].Tears {
		photos = append(photos, tr.Photo)
	}
	assert.Equal(t, []string{"frame-000050.png"}, photos, "the manifest lists only the tear ruled")
	_, err = os.Stat(filepath.Join(frames, "frame-000109.png"))
	assert.NoError(t, err, "the frame itself is kept")
}

// TestAuditRefereeRefusedTearImage: a tear whose measurement is refused (the frame cannot be
// registered) comes with an image, the frame under the ruling's band, as audit's does, so
// the GM sees what was refused; it came with none.
func TestAuditRefereeRefusedTearImage(t *testing.T) {
	a := newFakeAuditReferee(t, context.Background(), []Player{{Name: "Ann", Skills: []string{"Archery"}}})
	_, err := a.Fresh(0, Frame{No: 3, PNG: fake.JSON(fake.Sheet{Sheet: true})})
	require.NoError(t, err)
	r, img, err := a.Tear(0, judge.Tear{Kind: judge.KindUse, Skill: "Archery"}, &Frame{No: 50, PNG: fake.JSON(fake.Photo{RegisterError: "only 7 matching features"})})
	require.NoError(t, err)
	assert.Equal(t, judge.Undecided, r.Verdict)
	assert.Equal(t, "measurement refused: frame-000050.png: only 7 matching features", r.UndecidedReason)
	assert.Equal(t, "photo undecided: tear 1: use Archery: undecided", string(img))
}

// TestAuditRefereeDoubt: a frame the controller found the sheet changed on more than once
// since the last ruling (Doubter) is ruled undecided, saying why, recorded so (an audit of
// the manifest with the session's database re-uses it), and the manifest says it in a comment.
func TestAuditRefereeDoubt(t *testing.T) {
	a := newFakeAuditReferee(t, context.Background(), []Player{{Name: "Ann", Skills: []string{"Archery"}}})
	_, err := a.Fresh(0, Frame{No: 3, PNG: fake.JSON(fake.Sheet{Sheet: true})})
	require.NoError(t, err)
	torn := Frame{No: 50, PNG: fake.JSON(fake.Photo{RemovedAreaMM2: 1500, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RSSSSSS"}})}
	why := "the sheet changed more than once since the last ruling with one tear announced: frame 20 ..."
	a.Doubt(torn, why)
	r, _, err := a.Tear(0, judge.Tear{Kind: judge.KindUse, Skill: "Archery"}, &torn)
	require.NoError(t, err)
	assert.Equal(t, judge.Undecided, r.Verdict)
	assert.Equal(t, "the removed area's measurement is in doubt: "+why+"; to settle it, the GM compares the sheet with its photo before this tear, then records the ruling on this tear (gm: in the manifest)", r.UndecidedReason)
	assert.Equal(t, 6, r.Skills[0].Remaining, "the letters left as measured")

	// An audit with the session's database but vision without the doubt re-uses the ruling.
	plain := *a.Ref
	plain.Eye, plain.Reader = &fake.Eye{}, fake.Reader{}
	res, err := plain.Audit(context.Background(), a.manifest())
	require.NoError(t, err)
	assert.Equal(t, r, res.Rulings.Players[0].Tears[0], "re-used from the database")
	b, err := os.ReadFile(a.ManifestPath())
	require.NoError(t, err)
	assert.Contains(t, string(b), "      # frame-000050.png: watch ruled it undecided: "+why+"\n")
}
