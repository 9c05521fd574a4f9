package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/engine"
	"tearcam/judge"
	"tearcam/store"
)

// rollStub is a characterSource with fixed standings that keeps what it records.
type rollStub struct {
	standings map[string]judge.Standing
	notes     map[string][]string // the last ruling's notes, per player
	records   []rollRecord
	closed    bool
	failWith  error
}

type rollRecord struct {
	player, kind string
	data         string
}

var _ characterSource = (*rollStub)(nil)

func (s *rollStub) Standing(player string) (judge.Standing, error) {
	st, ok := s.standings[player]
	if !ok {
		return judge.Standing{}, fmt.Errorf("player %q: %w", player, store.ErrNotFound)
	}
	return st, nil
}

func (s *rollStub) Notes(player string) ([]string, error) { return s.notes[player], nil }

func (s *rollStub) RecordRoll(player, kind string, roll any) error {
	if s.failWith != nil {
		return s.failWith
	}
	b, err := json.Marshal(roll)
	if err != nil {
		return err
	}
	s.records = append(s.records, rollRecord{player, kind, string(b)})
	return nil
}

func (s *rollStub) Close() error { s.closed = true; return nil }

// newRollStub has Ann (Archery 7 letters left, Hopscotch lost, Poetry 0 left by a count
// that is not certain: a weak read at 21% located it, as her last ruling's notes say) and
// Bo (out, last ditch).
func newRollStub() *rollStub {
	return &rollStub{notes: map[string][]string{"Ann": weakReadNotes()}, standings: map[string]judge.Standing{
		"Ann": {Name: "Ann", Skills: []judge.SkillState{
			{Name: "Archery", Remaining: 7, Available: true, Measured: true}, {Name: "Hopscotch", Remaining: 0, Measured: true},
			{Name: "Poetry", Remaining: 0}}},
		"Bo": {Name: "Bo", Out: true, OutReason: judge.OutLastDitch, Skills: []judge.SkillState{
			{Name: "Cooking", Remaining: 7}}},
	}}
}

// weakReadNotes are the notes judge writes on a ruling after which Poetry, located by a weak
// read (21%), has no letter left where that read put it.
func weakReadNotes() []string {
	layout := func(name string, conf float64) judge.SkillLayout {
		l := judge.SkillLayout{Name: name, Confidence: conf}
		for i, r := range judge.LetterRunes(name) {
			x := float64(i * 2)
			l.Letters = append(l.Letters, judge.Letter{Char: string(r), Outline: []judge.Point{{X: x}, {X: x + 1}, {X: x + 1, Y: 1}, {X: x, Y: 1}}})
			l.Located++
		}
		return l
	}
	c := judge.NewCharacterFromLayouts("Ann", []judge.SkillLayout{layout("Archery", 0.9), layout("Poetry", 0.21)})
	states := func(n int, s judge.LetterState) []judge.LetterState {
		out := make([]judge.LetterState, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	r := c.Rule(1, judge.Tear{Kind: judge.KindUse, Skill: "Archery"}, judge.Measurement{
		RemovedAreaMM2: 1500, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFitsTemplate: true,
		Letters: []judge.SkillLetters{{Name: "Archery", States: append([]judge.LetterState{judge.LetterRemoved}, states(6, judge.LetterOnSheet)...)},
			{Name: "Poetry", States: states(6, judge.LetterRemoved)}}})
	return r.Notes
}

func (s *rollStub) opener() func(string, string) (characterSource, error) {
	return func(string, string) (characterSource, error) { return s, nil }
}

func TestThrowFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		check func(t *testing.T, o *throwOptions)
	}{
		{"defaults", "", func(t *testing.T, o *throwOptions) {
			assert.Equal(t, 1, o.Series)
			assert.Equal(t, 0, o.Attribute)
			assert.Equal(t, "random", o.GM)
			assert.Equal(t, "crypto/rand", o.Source.Name)
			assert.False(t, o.Focus)
		}},
		{"everything", "--skill Archery --attribute -2 --attribute-name Swords --series 5 --focus --choice stones,swords --choice scrolls --gm-choice rock --gm prompt --seed 7 --json",
			func(t *testing.T, o *throwOptions) {
				assert.Equal(t, "Archery", o.Skill)
				assert.Equal(t, -2, o.Attribute)
				assert.Equal(t, "Swords", o.AttributeName)
				assert.Equal(t, 5, o.Series)
				assert.True(t, o.Focus)
				assert.Equal(t, []string{"stones", "swords", "scrolls"}, o.Choices)
				assert.Equal(t, []string{"rock"}, o.GMChoices)
				assert.Equal(t, "prompt", o.GM)
				assert.Equal(t, "seed:7", o.Source.Name)
				assert.True(t, o.JSON)
			}},
		{"gm confirms", "--gm-confirms", func(t *testing.T, o *throwOptions) { assert.True(t, o.GMConfirms) }},
		{"series bo3", "--series bo3", func(t *testing.T, o *throwOptions) { assert.Equal(t, 3, o.Series) }},
		{"series BO5", "--series BO5", func(t *testing.T, o *throwOptions) { assert.Equal(t, 5, o.Series) }},
		{"database", "--db t.db --player Ann --session s.yaml --skill Archery", func(t *testing.T, o *throwOptions) {
			assert.Equal(t, "t.db", o.DB)
			assert.Equal(t, "Ann", o.Player)
			assert.Equal(t, "s.yaml", o.Session)
		}},
		{"commit-reveal", "--player-commit a,b --player-reveal stones:n1 --gm-commit c --gm-reveal swords:n2 --allow-attribute --attribute 5",
			func(t *testing.T, o *throwOptions) {
				assert.Equal(t, []string{"a", "b"}, o.PlayerCommit)
				assert.Equal(t, []string{"stones:n1"}, o.PlayerReveal)
				assert.Equal(t, []string{"c"}, o.GMCommit)
				assert.Equal(t, []string{"swords:n2"}, o.GMReveal)
				assert.True(t, o.AllowAttribute)
				assert.Equal(t, 5, o.Attribute)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iostreams, _, _ := testIO()
			var got *throwOptions
			cmd := newThrowCmd(iostreams, func(o *throwOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tc.args))
			require.NoError(t, cmd.Execute())
			require.NotNil(t, got)
			tc.check(t, got)
		})
	}
}

func TestThrowBadUsageExitsTwo(t *testing.T) {
	for _, args := range []string{
		"throw --series 2",
		"throw --series x",
		"throw --series bo2",
		"throw --series 7",
		"throw --attribute 4 --choice stones --gm-choice swords",
		"throw --attribute -4 --choice stones --gm-choice swords",
		"throw --choice wands",
		"throw --gm cheat",
		"throw --commit wands",
		"throw --player Ann",
		"throw --player-commit abc --player-reveal stones:0123456789abcdef",
		"throw extra-arg",
		"throw --db /nonexistent/t.db --player Ann --skill Archery --choice stones --gm-choice swords",
	} {
		t.Run(args, func(t *testing.T) {
			iostreams, out, errOut := testIO()
			assert.Equal(t, 2, Main(strings.Fields(args), iostreams))
			assert.Empty(t, out.String())
			assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
		})
	}
}

func throwOpts(t *testing.T) (*throwOptions, *strings.Builder) {
	t.Helper()
	iostreams, _, _ := testIO()
	o := &throwOptions{IO: iostreams, Series: 1, GM: "random", Source: engine.SeededRand(1)}
	var sb strings.Builder
	o.IO.Out = &sb
	return o, &sb
}

func TestRunThrowOutput(t *testing.T) {
	o, out := throwOpts(t)
	o.Skill, o.AttributeName, o.Attribute, o.Series = "Archery", "Swords", 2, 3
	// stones-swords won, stones-stones draw, scrolls-swords lost, swords-scrolls won: 2-1 with
	// 1 draw. Outcome 2 + 1 + 1 = 4.
	o.Choices = []string{"stones", "stones", "scrolls", "swords"}
	o.GMChoices = []string{"swords", "stones", "swords", "scrolls"}
	require.NoError(t, runThrow(o))
	assert.Equal(t, `Throw with Archery: Swords +2, best of 3
round 1: stones vs swords: won
round 2: stones vs stones: draw
round 3: scrolls vs swords: lost
round 4: swords vs scrolls: won
series won 2-1, 1 draw
Outcome Number +4 (positive) = Attribute +2, Throw Winner +1, Draw Break +1
`, out.String())
}

func TestRunThrowJSONSeededReproducible(t *testing.T) {
	run := func() string {
		o, out := throwOpts(t)
		o.Source, o.Series, o.Focus, o.JSON = engine.SeededRand(99), 5, true, true
		o.IO.In = strings.NewReader("")
		o.GM = "random"
		// The player's side is random too here: feed it through --choice from the same seed.
		src := engine.SeededRand(5)
		for range 40 {
			c, _ := engine.Random{Rand: src}.Choose(0)
			o.Choices = append(o.Choices, c.String())
		}
		require.NoError(t, runThrow(o))
		return out.String()
	}
	a := run()
	assert.Equal(t, a, run())
	var r throwReport
	require.NoError(t, json.Unmarshal([]byte(a), &r))
	assert.Equal(t, "player: --choice; GM: seed:99", r.Source)
	assert.True(t, r.Spec.Focus)
	assert.Equal(t, r.Spec.Modifier+r.Winner+r.DrawBreak, r.Outcome)
}

func TestRunThrowPrompt(t *testing.T) {
	o, out := throwOpts(t)
	var prompts strings.Builder
	o.IO.ErrOut = &prompts
	// A blank line and a typo are asked again; the GM's choices are given.
	o.IO.In = strings.NewReader("\nwands\nrock\nScissors\n")
	o.GMChoices = []string{"stones", "scrolls"}
	require.NoError(t, runThrow(o))
	assert.Equal(t, "round 1, player's throw (stones, scrolls, swords): "+
		"round 1, player's throw (stones, scrolls, swords): "+
		"\"wands\\n\": not stones, scrolls or swords\n"+
		"round 1, player's throw (stones, scrolls, swords): "+
		"round 2, player's throw (stones, scrolls, swords): ", prompts.String())
	assert.Contains(t, out.String(), "round 1: stones vs stones: draw\nround 2: swords vs scrolls: won\n")

	// Where the choices came from is part of the record.
	o, out = throwOpts(t)
	o.IO.In = strings.NewReader("rock\n")
	o.GMChoices, o.JSON = []string{"swords"}, true
	require.NoError(t, runThrow(o))
	assert.Contains(t, out.String(), `"source": "player: prompt; GM: --gm-choice"`)
	o, out = throwOpts(t)
	o.Focus, o.JSON = true, true
	require.NoError(t, runThrow(o))
	assert.Contains(t, out.String(), `"source": "no round thrown"`)
	o, out = throwOpts(t)
	o.Choices, o.GMChoices, o.JSON = []string{"rock", "rock"}, []string{"rock"}, true
	require.NoError(t, runThrow(o))
	assert.Contains(t, out.String(), `"source": "player: --choice; GM: --gm-choice, seed:1"`)

	o, _ = throwOpts(t)
	o.IO.In = strings.NewReader("")
	o.GMChoices = []string{"stones"}
	err := runThrow(o)
	var ue *UsageError
	assert.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, "throw: player: no throw for round 1: the input ended (give the player's throws with --choice, e.g. --choice stones,swords)")
}

// TestThrowEmptyInput: with no --choice and nothing to read, a clean one-line error that
// names --choice (not --gm-choice, the GM's flag), and no prompt fragment before it; input
// that ends after some throws ends the prompt's line first.
func TestThrowEmptyInput(t *testing.T) {
	iostreams, out, errOut := testIO()
	assert.Equal(t, 2, Main([]string{"throw", "--seed", "1"}, iostreams))
	assert.Empty(t, out.String())
	assert.Equal(t, "tearcam: throw: player: no throw for round 1: the input ended "+
		"(give the player's throws with --choice, e.g. --choice stones,swords)\n", errOut.String())

	iostreams, out, errOut = testIO()
	iostreams.In = strings.NewReader("stones\n")
	assert.Equal(t, 2, Main([]string{"throw", "--seed", "1", "--series", "3", "--gm-choice", "swords,stones"}, iostreams))
	assert.Empty(t, out.String())
	assert.Equal(t, "round 1, player's throw (stones, scrolls, swords): \n"+
		"tearcam: throw: player: no throw for round 2: the input ended "+
		"(give the player's throws with --choice, e.g. --choice stones,swords)\n", errOut.String())

	iostreams, _, errOut = testIO()
	assert.Equal(t, 2, Main([]string{"throw", "--choice", "stones", "--gm", "prompt"}, iostreams))
	assert.Equal(t, "tearcam: throw: opponent: no throw for round 1: the input ended "+
		"(give the GM's throws with --gm-choice, or --gm random)\n", errOut.String())
}

func TestRunThrowCommitReveal(t *testing.T) {
	o, out := throwOpts(t)
	o.NewNonce = func() (string, error) { return "0123456789abcdef", nil }
	o.Commit = "stones"
	require.NoError(t, runThrow(o))
	// printf 'stones:0123456789abcdef' | sha256sum
	assert.Equal(t, "commitment 9ad276a02f9f9b9e1637b0923a958b9f4e2e9a85927b682a0e73b5138300cf17\n"+
		"reveal stones:0123456789abcdef\n", out.String())

	pn, gn := "player-nonce-00001", "gm-nonce-000000001"
	o, out = throwOpts(t)
	o.PlayerCommit = []string{engine.Commitment(engine.Scrolls, pn)}
	o.PlayerReveal = []string{"scrolls:" + pn}
	o.GMCommit = []string{engine.Commitment(engine.Stones, gn)}
	o.GMReveal = []string{"stones:" + gn}
	o.JSON = true
	require.NoError(t, runThrow(o))
	assert.Contains(t, out.String(), `"source": "player: commit-reveal; GM: commit-reveal"`)
	assert.Contains(t, out.String(), `"player": "scrolls",`)

	// The GM reveals swords after seeing scrolls: refused, and not as bad usage (exit 1).
	o, _ = throwOpts(t)
	o.PlayerCommit = []string{engine.Commitment(engine.Scrolls, pn)}
	o.PlayerReveal = []string{"scrolls:" + pn}
	o.GMCommit = []string{engine.Commitment(engine.Stones, gn)}
	o.GMReveal = []string{"swords:" + gn}
	err := runThrow(o)
	assert.ErrorIs(t, err, engine.ErrCommitMismatch)
	assert.Equal(t, 1, ExitCode(err))
	assert.ErrorContains(t, err, "opponent: round 1")

	// A draw needs another committed round, which was not given: bad usage.
	o, _ = throwOpts(t)
	o.PlayerCommit = []string{engine.Commitment(engine.Stones, pn)}
	o.PlayerReveal = []string{"stones:" + pn}
	o.GMCommit = []string{engine.Commitment(engine.Stones, gn)}
	o.GMReveal = []string{"stones:" + gn}
	err = runThrow(o)
	assert.ErrorIs(t, err, engine.ErrNoChoice)
}

func TestRunThrowCharacter(t *testing.T) {
	tests := []struct {
		name    string
		player  string
		skill   string
		wantErr string // "" for success
	}{
		{"available skill", "Ann", "Archery", ""},
		{"skill name as spoken", "Ann", "archery", ""},
		{"lost skill", "Ann", "Hopscotch", `Ann: "Hopscotch" has no full letter left`},
		{"lost by a count not certain", "Ann", "poetry", `Ann has no full letter of "Poetry" left by tearcam's count, but that count is not certain: a weak read at 21% located "Poetry" on the fresh sheet, so the letters counted gone may be another word's; if the GM sees a full letter of "Poetry" on the sheet, run again with --gm-confirms`},
		{"unknown skill", "Ann", "Juggling", `Ann has no skill "Juggling"`},
		{"out", "Bo", "Cooking", "Bo is out (last_ditch)"},
		{"unknown player", "Cy", "Archery", `player "Cy"`},
		{"no skill", "Ann", "", "--skill is required with --player"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stub := newRollStub()
			o, out := throwOpts(t)
			o.DB, o.Player, o.Skill, o.OpenSource = "t.db", tc.player, tc.skill, stub.opener()
			o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
			err := runThrow(o)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, 2, ExitCode(err), err.Error())
				assert.Contains(t, err.Error(), tc.wantErr)
				if strings.HasSuffix(tc.wantErr, "--gm-confirms") {
					// Not "...: skill lost": it may not be.
					assert.True(t, strings.HasSuffix(err.Error(), "--gm-confirms"), err.Error())
					assert.ErrorIs(t, err, judge.ErrSkillLost)
				}
				assert.Empty(t, stub.records)
				assert.Empty(t, out.String())
				return
			}
			require.NoError(t, err)
			require.Len(t, stub.records, 1)
			assert.Equal(t, "Ann", stub.records[0].player)
			assert.Equal(t, "throw", stub.records[0].kind)
			assert.Contains(t, stub.records[0].data, `"outcome":1`)
			assert.Contains(t, stub.records[0].data, `"player":"Ann"`)
			assert.True(t, stub.closed)
			// The skill is shown and recorded as declared, whatever the case typed (a
			// tester: "HAND" was recorded for hand).
			assert.Contains(t, out.String(), "Throw by Ann with Archery")
			assert.Contains(t, stub.records[0].data, `"skill":"Archery"`)
		})
	}

	// Tears owed after a faux pas do not stop a throw, but the player is reminded.
	stub := newRollStub()
	st := stub.standings["Ann"]
	st.Owed = 1
	stub.standings["Ann"] = st
	o, _ := throwOpts(t)
	var errOut strings.Builder
	o.IO.ErrOut = &errOut
	o.DB, o.Player, o.Skill, o.OpenSource = "t.db", "Ann", "Archery", stub.opener()
	o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
	require.NoError(t, runThrow(o))
	assert.Equal(t, "note: Ann still owes 1 tear after a faux pas\n", errOut.String())

	// A count above 0 that is not certain (here: a tear since whose paper loss was not
	// measured) does not stop a throw, but the GM is told to look at the sheet.
	stub = newRollStub()
	st = stub.standings["Ann"]
	st.Skills[0].Measured = false
	stub.standings["Ann"] = st
	o, _ = throwOpts(t)
	errOut.Reset()
	o.IO.ErrOut = &errOut
	o.DB, o.Player, o.Skill, o.OpenSource = "t.db", "Ann", "Archery", stub.opener()
	o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
	require.NoError(t, runThrow(o))
	assert.Equal(t, "note: Ann: tearcam's count of 7 letters of \"Archery\" left is not certain (the last ruling's notes say why): the GM looks at the sheet, and if no full letter of it is left there, the skill is lost and this roll does not stand\n", errOut.String())

	// --gm-confirms lets a skill whose 0 left is not certain be used, says so on stderr and
	// records it; it does not override a loss that is certain.
	stub = newRollStub()
	o, _ = throwOpts(t)
	errOut.Reset()
	o.IO.ErrOut = &errOut
	o.DB, o.Player, o.Skill, o.OpenSource, o.GMConfirms = "t.db", "Ann", "Poetry", stub.opener(), true
	o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
	require.NoError(t, runThrow(o))
	assert.Equal(t, "note: Ann: tearcam counts no full letter of \"Poetry\" left, not certainly (a weak read at 21% located it on the fresh sheet); the GM confirmed one is left\n", errOut.String())
	require.Len(t, stub.records, 1)
	assert.Contains(t, stub.records[0].data, `"gm_confirmed":"tearcam counts no full letter of \"Poetry\" left, not certainly (a weak read at 21% located it on the fresh sheet); the GM confirmed one is left"`)
	o, _ = throwOpts(t)
	o.DB, o.Player, o.Skill, o.OpenSource, o.GMConfirms = "t.db", "Ann", "Hopscotch", newRollStub().opener(), true
	o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
	err := runThrow(o)
	assert.Equal(t, 2, ExitCode(err))
	assert.ErrorContains(t, err, `Ann: "Hopscotch" has no full letter left: skill lost`)

	// A record that fails is an error, and nothing is reported.
	stub = newRollStub()
	stub.failWith = errors.New("disk full")
	o, out := throwOpts(t)
	o.DB, o.Player, o.Skill, o.OpenSource = "t.db", "Ann", "Archery", stub.opener()
	o.Choices, o.GMChoices = []string{"swords"}, []string{"scrolls"}
	assert.ErrorContains(t, runThrow(o), "record throw: disk full")
	assert.Empty(t, out.String())
}

// The real session database: a throw and a check are rollRecord as events, and a lost skill
// or an out character is refused.
func TestThrowAndCheckWithStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tearcam.db")
	db, err := store.Open(path)
	require.NoError(t, err)
	ctx := context.Background()
	sid, err := db.PutSession(ctx, store.Session{Name: "session.yaml", Paper: "a4"})
	require.NoError(t, err)
	_, err = db.PutPlayer(ctx, store.Player{SessionID: sid, Name: "Ann", Position: 1,
		Skills: []string{"Archery", "Hop"}, Tears: 1})
	require.NoError(t, err)
	require.NoError(t, db.Close())

	iostreams, out, errOut := testIO()
	code := Main([]string{"throw", "--db", path, "--player", "Ann", "--skill", "Archery",
		"--choice", "stones", "--gm-choice", "swords", "--json"}, iostreams)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), `"outcome": 1`)

	// The player typed in another case is shown and recorded as declared (a tester: "Throw
	// by breta" for Breta).
	iostreams, out, errOut = testIO()
	code = Main([]string{"check", "--db", path, "--player", "ann", "--skill", "Hop",
		"--dice", "3,4,5", "--ts", "12"}, iostreams)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "by Ann")
	assert.NotContains(t, out.String(), "by ann")
	// So is the skill typed in another case: shown and recorded as declared.
	iostreams, out, errOut = testIO()
	code = Main([]string{"check", "--db", path, "--player", "Ann", "--skill", "HOP",
		"--dice", "3,4,5", "--ts", "12"}, iostreams)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "Check by Ann with Hop\n")

	iostreams, _, errOut = testIO()
	code = Main([]string{"throw", "--db", path, "--player", "Ann", "--skill", "Cooking",
		"--choice", "stones", "--gm-choice", "swords"}, iostreams)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), `Ann has no skill "Cooking"`)

	iostreams, _, errOut = testIO()
	code = Main([]string{"throw", "--db", path, "--player", "Nobody", "--skill", "Archery",
		"--choice", "stones", "--gm-choice", "swords"}, iostreams)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "not found")

	db, err = store.Open(path)
	require.NoError(t, err)
	defer db.Close()
	evs, err := db.Events(ctx, "session.yaml", "Ann")
	require.NoError(t, err)
	require.Len(t, evs, 3)
	assert.Equal(t, "throw", evs[0].Kind)
	assert.Equal(t, "check", evs[1].Kind)
	assert.Contains(t, string(evs[1].Data), `"dice":[3,4,5]`)
	assert.Contains(t, string(evs[1].Data), `"player":"Ann"`)
	assert.Contains(t, string(evs[2].Data), `"skill":"Hop"`)
	assert.NotContains(t, string(evs[2].Data), `HOP`)
}

// TestNotADatabase: a file that is not a database given as --db (a photo) is refused in one
// line naming it, exit 2, by every command that opens one; throw said "open database t1.jpg:
// journal mode: file is not a database (26)", exit 1 (a tester). The file is left alone.
func TestNotADatabase(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	photo := filepath.Join(t.TempDir(), "t1.jpg")
	data := []byte("\xff\xd8\xff\xe0 a photo, not a database, long enough to hold SQLite's header and then some more bytes")
	require.NoError(t, os.WriteFile(photo, data, 0o644))
	want := "tearcam: --db " + photo + ": not a tearcam session database (not an SQLite database at all): choose another file\n"
	for _, args := range [][]string{
		{"throw", "--db", photo, "--player", "Ann", "--skill", "Archery"},
		{"check", "--db", photo, "--player", "Ann", "--skill", "Archery", "--ts", "10"},
		{"audit", manifest, "--db", photo},
	} {
		t.Run(args[0], func(t *testing.T) {
			iostreams, stdout, stderr := testIO()
			assert.Equal(t, 2, Main(args, iostreams))
			assert.Empty(t, stdout.String())
			assert.Equal(t, want, stderr.String())
			got, err := os.ReadFile(photo)
			require.NoError(t, err)
			assert.Equal(t, data, got)
		})
	}
}

// TestFIFOInputsRefused: a FIFO (named pipe) given as the manifest, a watch plan, a template
// or the session database is refused in one line naming it, exit 2. Opening a FIFO for
// reading waits for a writer for good, and the audit could then be stopped only by SIGKILL
// (a tester); a FIFO as a photo is refused too (TestAuditFIFOPhoto).
func TestFIFOInputsRefused(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	fifo := filepath.Join(t.TempDir(), "fifo.jpg")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	dir := filepath.Dir(manifest)
	before, after := filepath.Join(dir, "ann-0.jpg"), filepath.Join(dir, "ann-1.jpg")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"audit manifest", []string{"audit", fifo}, fifo + ": not a regular file"},
		{"audit --db", []string{"audit", manifest, "--db", fifo}, "--db " + fifo + ": not a regular file"},
		{"throw --db", []string{"throw", "--db", fifo, "--player", "Ann", "--skill", "Archery"}, "--db " + fifo + ": not a regular file"},
		{"judge --template", []string{"judge", "--before", before, "--after", after, "--skills", "A", "--tear", "use:A", "--template", fifo}, "template " + fifo + ": not a regular file"},
		{"watch --session", []string{"watch", "--source", before, "--session", fifo}, fifo + ": not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iostreams, stdout, stderr := testIO()
			done := make(chan int, 1)
			go func() { done <- Main(tc.args, iostreams) }()
			select {
			case code := <-done:
				assert.Equal(t, 2, code, stderr.String())
				assert.Empty(t, stdout.String())
				assert.Contains(t, stderr.String(), tc.want)
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
			case <-time.After(60 * time.Second):
				// Unblock the reader so the test process can end, then fail.
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("%v still running after 60 s: it waits on the FIFO", tc.args)
			}
		})
	}
}
