package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/store"
	"tearcam/store/storetest"
)

var versions = store.Versions{Tearcam: "0.1.0", OpenCV: "4.6.0", Tesseract: "5.3.0"}

// seed makes a session with one player Ann (Archery, Tea Ceremony) and returns the ids.
func seed(t *testing.T, db *store.DB) (sessionID, playerID, runID int64) {
	t.Helper()
	ctx := context.Background()
	sessionID, err := db.PutSession(ctx, store.Session{Name: "s/session.yaml", Paper: "a4"})
	require.NoError(t, err)
	runID, err = db.StartRun(ctx, sessionID, "audit", versions)
	require.NoError(t, err)
	playerID, err = db.PutPlayer(ctx, store.Player{SessionID: sessionID, Name: "Ann", Position: 1,
		Skills: []string{"Archery", "Tea Ceremony"}, Sheet: store.Photo{SHA256: "aa", Path: "ann-0.jpg"}, Tears: 3})
	require.NoError(t, err)
	return sessionID, playerID, runID
}

func ruling(index int, verdict judge.Verdict, archery, tea int) judge.TearRuling {
	return judge.TearRuling{Index: index, Kind: judge.KindUse, Skill: "Archery", Verdict: verdict, Faults: []judge.Fault{},
		Skills: []judge.SkillState{{Name: "Archery", Remaining: archery, Available: archery > 0}, {Name: "Tea Ceremony", Remaining: tea, Available: tea > 0}}}
}

func TestOpenAppliesMigrationsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	for range 2 {
		db, err := store.Open(path)
		require.NoError(t, err)
		names, err := db.Migrations(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"0001_init.sql", "0002_images.sql", "0003_gm_verdict.sql"}, names)
		require.NoError(t, db.Close())
	}
	_, err := store.Open(filepath.Join(t.TempDir(), "no", "such", "folder", "t.db"))
	assert.ErrorContains(t, err, "open database")
}

func TestOddPaths(t *testing.T) {
	for _, name := range []string{"a?b.db", "c#d.db", "e%20f.db", "g h.db"} {
		path := filepath.Join(t.TempDir(), name)
		db, err := store.Open(path)
		require.NoError(t, err, name)
		require.NoError(t, db.Close())
		_, err = os.Stat(path)
		assert.NoError(t, err, "the database is at the path given")
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	db := storetest.MustOpenDB(t)
	_, err := db.PutPlayer(context.Background(), store.Player{SessionID: 999, Name: "Ghost"})
	assert.ErrorContains(t, err, "FOREIGN KEY")
}

func TestRulingsKeptAndReused(t *testing.T) {
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	_, pid, run := seed(t, db)

	for i, r := range []judge.TearRuling{ruling(1, judge.Valid, 5, 11), ruling(2, judge.FauxPas, 5, 11), ruling(3, judge.Valid, 2, 11)} {
		_, err := db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: i + 1, Key: "k" + string(rune('1'+i)),
			Photo: store.Photo{SHA256: "h", Path: "p.jpg"}, Ruling: r, Measurement: []byte(`{"m":1}`), RunID: run, Annotated: []byte{0xff, 0xd8}})
		require.NoError(t, err)
	}
	got, err := db.FindRuling(ctx, pid, 2, "k2")
	require.NoError(t, err)
	assert.Equal(t, judge.FauxPas, got.Ruling.Verdict)
	assert.Equal(t, `{"m":1}`, string(got.Measurement))
	assert.Equal(t, store.Photo{SHA256: "h", Path: "p.jpg"}, got.Photo)
	assert.Equal(t, []byte{0xff, 0xd8}, got.Annotated)
	v, err := db.RunVersions(ctx, got.RunID)
	require.NoError(t, err)
	assert.Equal(t, versions, v)
	_, err = db.FindRuling(ctx, pid, 2, "other")
	assert.True(t, errors.Is(err, store.ErrNotFound))

	// A changed input on tear 2 supersedes the old ruling but keeps it.
	_, err = db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: 2, Key: "k2b", Ruling: ruling(2, judge.Valid, 4, 11), RunID: run})
	require.NoError(t, err)
	cur, err := db.Rulings(ctx, pid)
	require.NoError(t, err)
	require.Len(t, cur, 3)
	assert.Equal(t, judge.Valid, cur[1].Ruling.Verdict)
	_, err = db.FindRuling(ctx, pid, 2, "k2")
	assert.NoError(t, err, "old ruling kept as history")
	// Reverting the input makes the old ruling current again.
	_, err = db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: 2, Key: "k2", Ruling: ruling(2, judge.FauxPas, 5, 11), RunID: run})
	require.NoError(t, err)
	cur, _ = db.Rulings(ctx, pid)
	assert.Equal(t, judge.FauxPas, cur[1].Ruling.Verdict)

	// The manifest shrinks to 2 tears: tear 3 is no longer current.
	sid := int64(1)
	_, err = db.PutPlayer(ctx, store.Player{SessionID: sid, Name: "Ann", Position: 1, Skills: []string{"Archery", "Tea Ceremony"}, Tears: 2})
	require.NoError(t, err)
	cur, _ = db.Rulings(ctx, pid)
	assert.Len(t, cur, 2)
}

func TestLayouts(t *testing.T) {
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	_, pid, run := seed(t, db)
	_, err := db.FindLayout(ctx, pid, "k")
	assert.ErrorIs(t, err, store.ErrNotFound)
	require.NoError(t, db.SaveLayout(ctx, store.Layout{PlayerID: pid, Key: "k", Sheet: store.Photo{SHA256: "aa", Path: "ann-0.jpg"}, JSON: []byte(`[1]`), RunID: run}))
	l, err := db.FindLayout(ctx, pid, "k")
	require.NoError(t, err)
	assert.Equal(t, `[1]`, string(l.JSON))
	assert.Equal(t, run, l.RunID)
}

func TestPlayerStateAndEvents(t *testing.T) {
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	_, pid, run := seed(t, db)

	st, err := db.PlayerState(ctx, "", "Ann")
	require.NoError(t, err)
	assert.Equal(t, "s/session.yaml", st.Session)
	assert.Equal(t, 0, st.Tears)
	assert.Equal(t, []judge.SkillState{{Name: "Archery", Remaining: 7, Available: true}, {Name: "Tea Ceremony", Remaining: 11, Available: true}}, st.Skills)
	assert.NoError(t, st.CanUse("Archery"))

	_, err = db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: 1, Key: "k1", Ruling: ruling(1, judge.Valid, 0, 3), RunID: run})
	require.NoError(t, err)
	st, err = db.PlayerState(ctx, "s/session.yaml", "Ann")
	require.NoError(t, err)
	assert.Equal(t, 1, st.Tears)
	assert.ErrorIs(t, st.CanUse("Archery"), judge.ErrSkillLost)
	assert.NoError(t, st.CanUse("tea ceremony"))

	_, err = db.RecordRoll(ctx, "", "Ann", "throw", map[string]string{"ann": "rock", "gm": "scissors"})
	require.NoError(t, err)
	_, err = db.RecordEvent(ctx, store.Event{Player: "Ann", Kind: store.EventLastDitch, Data: json.RawMessage(`{"hit":false}`)})
	require.NoError(t, err)
	st, err = db.PlayerState(ctx, "", "Ann")
	require.NoError(t, err)
	assert.True(t, st.Out)
	assert.Equal(t, judge.OutLastDitch, st.OutReason)
	assert.ErrorIs(t, st.CanUse("Tea Ceremony"), judge.ErrOut)

	evs, err := db.Events(ctx, "s/session.yaml", "")
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, "throw", evs[0].Kind)
	assert.JSONEq(t, `{"ann":"rock","gm":"scissors"}`, string(evs[0].Data))
	assert.Equal(t, "Ann", evs[1].Player)

	// The player as a GM types the name: any case (a tester: "--player breta" was not found).
	lower, err := db.PlayerState(ctx, "", "ann")
	require.NoError(t, err)
	assert.Equal(t, st.Standing, lower.Standing)

	_, err = db.PlayerState(ctx, "", "Nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)
	// A name typed wrong: the error names the players there are (a tester: "Bret" for Breta).
	assert.EqualError(t, err, `player state: player "Nobody": not found (players: "Ann")`)
	_, err = db.PlayerState(ctx, "other.yaml", "Ann")
	assert.EqualError(t, err, `player state: player "Ann" in session other.yaml: not found (no players)`)
	_, err = db.RecordEvent(ctx, store.Event{Player: "Nobody", Kind: "throw"})
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.RecordEvent(ctx, store.Event{Player: "Ann", Kind: "throw", Data: json.RawMessage(`{`)})
	assert.Error(t, err)
}

func TestLastDitchRulingRecordsEventOnce(t *testing.T) {
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	_, pid, run := seed(t, db)
	hit := true
	r := judge.TearRuling{Index: 3, Kind: judge.KindLastDitch, Hit: &hit, Verdict: judge.Valid, Out: true, OutReason: judge.OutLastDitch}
	for range 2 {
		_, err := db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: 3, Key: "k3", Ruling: r, RunID: run})
		require.NoError(t, err)
	}
	evs, err := db.Events(ctx, "", "Ann")
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, 3, evs[0].TearIndex)
	assert.JSONEq(t, `{"hit":true,"skill":""}`, string(evs[0].Data))
}

func TestSessionName(t *testing.T) {
	assert.Equal(t, "session.yaml", store.SessionName("a/b/session.yaml", "a/b/tearcam.db"))
	assert.Equal(t, "b/session.yaml", store.SessionName("a/b/session.yaml", "a/out.db"))
	abs, _ := filepath.Abs("a/b/session.yaml")
	assert.Equal(t, filepath.ToSlash(abs), store.SessionName("a/b/session.yaml", "c/out.db"))
}

// TestGMVerdictColumn: a ruling with a GM's ruling keeps it in ruling_json and its verdict in
// gm_verdict beside tearcam's; a re-rule of the same measurement (the GM's ruling changed)
// replaces both.
func TestGMVerdictColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gm.db")
	db, err := store.Open(path)
	require.NoError(t, err)
	ctx := context.Background()
	_, pid, run := seed(t, db)
	r := ruling(1, judge.Undecided, 7, 11)
	for _, gm := range []judge.Verdict{judge.FauxPas, judge.Valid} {
		r.GMRuling = &judge.GMRuling{Verdict: gm, Faults: []judge.Fault{}}
		if gm == judge.FauxPas {
			r.GMRuling.Faults = []judge.Fault{judge.FaultNoFullLetter}
		}
		_, err = db.SaveRuling(ctx, store.Ruling{PlayerID: pid, Index: 1, Key: "k1", Ruling: r, RunID: run})
		require.NoError(t, err)
		got, err := db.FindRuling(ctx, pid, 1, "k1")
		require.NoError(t, err)
		require.NotNil(t, got.Ruling.GMRuling)
		assert.Equal(t, *r.GMRuling, *got.Ruling.GMRuling)

		raw, err := sql.Open("sqlite", "file:"+path)
		require.NoError(t, err)
		var verdict, gmVerdict string
		require.NoError(t, raw.QueryRow("SELECT verdict, gm_verdict FROM rulings WHERE tear_index = 1 AND current = 1").Scan(&verdict, &gmVerdict))
		require.NoError(t, raw.Close())
		assert.Equal(t, "undecided", verdict, "tearcam's own")
		assert.Equal(t, string(gm), gmVerdict)
	}
	require.NoError(t, db.Close())
}

// TestFindElsewhere: a ruling or layout stored by the same player (name and sheet photo path)
// in another session is found under the same key and tear photo path; not the player's own
// (FindRuling finds those), not another player's, not another photo path, not another key.
func TestFindElsewhere(t *testing.T) {
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	put := func(session, player, sheet string) int64 {
		sid, err := db.PutSession(ctx, store.Session{Name: session})
		require.NoError(t, err)
		pid, err := db.PutPlayer(ctx, store.Player{SessionID: sid, Name: player, Position: 1, Skills: []string{"Archery"},
			Sheet: store.Photo{SHA256: "s0", Path: sheet}, Tears: 1})
		require.NoError(t, err)
		return pid
	}
	first := put("a.yaml", "Ann", "ann-0.jpg")
	_, err := db.SaveRuling(ctx, store.Ruling{PlayerID: first, Index: 1, Key: "k1", Photo: store.Photo{SHA256: "h1", Path: "ann-1.jpg"},
		Ruling: ruling(1, judge.Valid, 5, 11), Measurement: []byte(`{"m":1}`), Annotated: []byte{0xff, 0xd8}})
	require.NoError(t, err)
	require.NoError(t, db.SaveLayout(ctx, store.Layout{PlayerID: first, Key: "lk", JSON: []byte(`[1]`)}))

	copied := put("b.yaml", "Ann", "ann-0.jpg")
	got, err := db.FindRulingElsewhere(ctx, copied, 1, "k1", "ann-1.jpg")
	require.NoError(t, err)
	assert.Equal(t, first, got.PlayerID)
	assert.Equal(t, `{"m":1}`, string(got.Measurement))
	assert.Equal(t, []byte{0xff, 0xd8}, got.Annotated)
	l, err := db.FindLayoutElsewhere(ctx, copied, "lk")
	require.NoError(t, err)
	assert.Equal(t, `[1]`, string(l.JSON))

	for _, tc := range []struct {
		name      string
		pid       int64
		index     int
		key, path string
		layoutToo bool
	}{
		{"the player's own", first, 1, "k1", "ann-1.jpg", true},
		{"another tear photo path", copied, 1, "k1", "ann-1b.jpg", false},
		{"another key", copied, 1, "k2", "ann-1.jpg", false},
		{"another tear", copied, 2, "k1", "ann-1.jpg", false},
		{"another player", put("c.yaml", "Bo", "ann-0.jpg"), 1, "k1", "ann-1.jpg", true},
		{"another sheet photo path", put("d.yaml", "Ann", "other-0.jpg"), 1, "k1", "ann-1.jpg", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.FindRulingElsewhere(ctx, tc.pid, tc.index, tc.key, tc.path)
			assert.ErrorIs(t, err, store.ErrNotFound)
			if tc.layoutToo {
				_, err = db.FindLayoutElsewhere(ctx, tc.pid, "lk")
				assert.ErrorIs(t, err, store.ErrNotFound)
			}
		})
	}
}
