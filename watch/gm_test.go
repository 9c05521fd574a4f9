package watch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/referee/fake"
	"tearcam/session"
)

// fakeSettled is a settled frame whose recorded photo is a fake one (the referee reads the PNG).
func fakeSettled(no int, photo any) settled {
	return settled{kind: settleTaken, no: no, frame: gocv.NewMat(), readAt: time.Now(), png: fake.JSON(photo)}
}

// TestGMRulingLive: the GM rules an undecided tear live ("gm 1 ..."): the ruling is recorded
// in the frames' manifest (gm:) and the database (an audit of the manifest re-uses it), the
// event says it, the next tear is ruled from the GM's state (letters left, owed tears), a
// changed GM ruling re-rules the later tears, and bad commands change nothing, in one line.
func TestGMRulingLive(t *testing.T) {
	players := []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}}
	a := newFakeAuditReferee(t, context.Background(), players)
	var log bytes.Buffer
	var events []Event
	c := newController(Config{Players: players, Log: &log, Now: time.Now, OnEvent: func(e Event) {
		if e.Ruling != nil {
			events = append(events, e)
		}
	}}, a)
	announce := func(line string) {
		an, err := ParseAnnouncement(line)
		require.NoError(t, err, line)
		c.onAnnouncement(an)
	}
	c.onSettle(fakeSettled(3, fake.Sheet{Sheet: true}))
	announce("use Archery")
	c.onSettle(fakeSettled(50, fake.Photo{RemovedAreaMM2: 1500, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RRSSSSS"}, Doubts: []string{"the two pieces may be one"}}))
	require.Len(t, c.players[0].rulings.Tears, 1)
	first := c.players[0].rulings.Tears[0]
	require.Equal(t, judge.Undecided, first.Verdict)
	assert.Equal(t, "Archery 7, Cooking 7", left(first.Skills), "as before the tear: its measurement is in doubt")
	assert.Equal(t, 0, first.OwedTears)

	events = nil
	announce("gm 1 faux_pas several_pieces")
	require.Len(t, events, 1)
	e := events[0]
	require.True(t, e.GM)
	require.NotNil(t, e.Ruling.GMRuling)
	assert.Equal(t, "undecided → GM ruled faux_pas (several_pieces)", judge.GMLine(*e.Ruling))
	assert.Equal(t, judge.Undecided, e.Ruling.Verdict, "tearcam's own verdict is kept")
	assert.Equal(t, "frame:50", e.Ruling.Photo, "the frame watch ruled it on")
	assert.Equal(t, "Archery 7, Cooking 7", left(e.Ruling.Skills))
	assert.Equal(t, 1, e.Ruling.OwedTears, "a faux pas the GM ruled owes a tear")
	assert.Equal(t, *e.Ruling, e.Rulings.Players[0].Tears[0], "the rulings document (--json, the page) holds it")
	assert.Contains(t, log.String(), "tearcam watch: Ann tear 1: undecided → GM ruled faux_pas (several_pieces)\n")

	// Recorded: the manifest's gm:, and the database (audit of the manifest re-uses it).
	m, err := session.Load(a.ManifestPath(), session.Audit)
	require.NoError(t, err)
	require.NotNil(t, m.Players[0].Tears[0].GM)
	assert.Equal(t, judge.FauxPas, m.Players[0].Tears[0].GM.Verdict)
	assert.Equal(t, []judge.Fault{judge.FaultSeveralPieces}, m.Players[0].Tears[0].GM.Faults)
	res, err := a.Ref.Audit(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, e.Ruling.GMRuling, res.Rulings.Players[0].Tears[0].GMRuling)

	// The next tear is ruled from the GM's state.
	announce("use Cooking")
	c.onSettle(fakeSettled(80, fake.Photo{RemovedAreaMM2: 1500, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Cooking": "RSSSSSS"}}))
	require.Len(t, c.players[0].rulings.Tears, 2)
	second := c.players[0].rulings.Tears[1]
	assert.Equal(t, judge.Valid, second.Verdict, second.UndecidedReason)
	assert.Equal(t, "Archery 5, Cooking 6", left(second.Skills), "as measured: the two letters tear 1 removed are gone")
	assert.Equal(t, 1, second.OwedTears, "the tear the GM's faux pas owes is still owed")

	// Bad commands: one line each, nothing changed.
	before := c.rulings()
	manifest, err := os.ReadFile(a.ManifestPath())
	require.NoError(t, err)
	events = nil
	log.Reset()
	announce("gm 3 valid")
	announce("gm 1 remaining Fishing=2")
	announce("gm 1 remaining Archery=9")
	announce("Bob: gm 1 valid")
	_, err = ParseAnnouncement("gm 1 faux_pas")
	assert.ErrorContains(t, err, "faux_pas needs faults")
	assert.Equal(t, "tearcam watch: gm 3 for Ann ignored: Ann has 2 tears ruled; nothing changed\n"+
		"tearcam watch: gm 1 for Ann ignored: remaining: unknown skill \"Fishing\": not among the player's skills (Archery, Cooking); nothing changed\n"+
		"tearcam watch: gm 1 for Ann ignored: remaining: \"Archery\" has 7 letters: want 0 to 7, not 9; nothing changed\n"+
		"tearcam watch: announcement: no player named \"Bob\"\n", log.String())
	assert.Empty(t, events, "a bad command rules nothing")
	assert.Equal(t, before, c.rulings())
	after, err := os.ReadFile(a.ManifestPath())
	require.NoError(t, err)
	assert.Equal(t, string(manifest), string(after))

	// The GM adds a letter count to their ruling (the verdict stays), then changes it to valid
	// (the count stays): tear 2 is re-ruled from it (nothing owed).
	events = nil
	announce("gm 1 remaining archery=5")
	require.Len(t, events, 1)
	assert.Equal(t, "undecided → GM ruled faux_pas (several_pieces); letters left Archery 5", judge.GMLine(*events[0].Ruling))
	assert.Equal(t, "Archery 5, Cooking 7", left(events[0].Ruling.Skills))
	require.Len(t, events[0].Reruled, 0, "tear 2 measured the same two letters gone: its state does not change")
	assert.Equal(t, "Archery 5, Cooking 6", left(c.players[0].rulings.Tears[1].Skills), "tear 2 from the GM's count, not the count less the letters again")
	events = nil
	announce("gm 1 valid")
	require.Len(t, events, 1)
	assert.Equal(t, "undecided → GM ruled valid; letters left Archery 5", judge.GMLine(*events[0].Ruling))
	require.Len(t, events[0].Reruled, 1)
	assert.Equal(t, 2, events[0].Reruled[0].Index)
	assert.Equal(t, 1, second.OwedTears)
	assert.Equal(t, 0, events[0].Reruled[0].OwedTears, "the GM's valid owes nothing")
	assert.Equal(t, "frame:80", events[0].Reruled[0].Photo)
	assert.Equal(t, events[0].Reruled[0], c.players[0].rulings.Tears[1])

	// A watch resumed from what was recorded (--resume) keeps the GM's ruling.
	m, err = session.Load(a.ManifestPath(), session.Audit)
	require.NoError(t, err)
	b := newFakeAuditReferee(t, context.Background(), players)
	c2 := newController(Config{Players: players, Log: &log, Now: time.Now}, b)
	var rs []Replayed
	rs = append(rs, Replayed{Player: 0, No: 3, PNG: fake.JSON(fake.Sheet{Sheet: true})})
	for i, tr := range m.Players[0].Tears {
		png, err := os.ReadFile(m.Path(tr.Photo))
		require.NoError(t, err)
		tear := tr.Tear
		rs = append(rs, Replayed{Player: 0, No: []int{50, 80}[i], PNG: png, Tear: &tear, GM: tr.GM})
	}
	require.NoError(t, c2.replay(rs))
	assert.Equal(t, c.rulings(), c2.rulings())
}

// left is the letters left after r, "Archery 5, Cooking 7".
func left(skills []judge.SkillState) string {
	var parts []string
	for _, s := range skills {
		parts = append(parts, fmt.Sprintf("%s %d", s.Name, s.Remaining))
	}
	return strings.Join(parts, ", ")
}

// TestPagePostsGMRuling: the page's form (POST /gm) gives the session the line the GM would
// type; a line that does not parse is refused at once, saying why, and nothing is queued.
func TestPagePostsGMRuling(t *testing.T) {
	page := NewPage()
	defer page.Close()
	srv := httptest.NewServer(page)
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(srv.URL+"/gm", url.Values{"player": {"Ann"}, "tear": {"3"}, "ruling": {"faux_pas no_full_letter"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	select {
	case line := <-page.Commands():
		assert.Equal(t, "Ann: gm 3 faux_pas no_full_letter", line)
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		assert.Equal(t, Announcement{Player: "Ann", GMTear: 3, GM: &judge.GMRuling{Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNoFullLetter}}}, a)
	default:
		t.Fatal("the ruling posted was not queued")
	}

	resp, err = noRedirect.PostForm(srv.URL+"/gm", url.Values{"player": {"Ann"}, "tear": {"x"}, "ruling": {"valid"}})
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "announcement \"Ann: gm x valid\": want gm N followed by the ruling (N: the tear's number, from 1)\n", string(body))
	resp, err = http.Get(srv.URL + "/gm")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	select {
	case line := <-page.Commands():
		t.Fatalf("queued %q", line)
	default:
	}
}

// TestRunTakesCommands: a GM line from Config.Commands (the page's form) is applied as one
// typed on stdin.
func TestRunTakesCommands(t *testing.T) {
	players := []Player{{Name: "Ann", Skills: []string{"Archery"}}}
	a := newFakeAuditReferee(t, context.Background(), players)
	doubt := fake.Photo{RemovedAreaMM2: 1000, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true, Doubts: []string{"the two pieces may be one"}}
	tear := judge.Tear{Kind: judge.KindUse, Skill: "Archery"}
	cmds := make(chan string, 1)
	cmds <- "gm 1 valid"
	var gm *judge.TearRuling
	cfg := Config{Players: players, Commands: cmds, Realtime: true, OnEvent: func(e Event) {
		if e.GM {
			gm = e.Ruling
		}
	}, Resume: []Replayed{{Player: 0, No: 1, PNG: fake.JSON(fake.Sheet{Sheet: true})}, {Player: 0, No: 2, PNG: fake.JSON(doubt), Tear: &tear}}, FirstFrame: 3}
	// An empty table for a second in real time: the command comes in meanwhile.
	path := filepath.Join(t.TempDir(), "table.avi")
	grey := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 60, 60, 0), 48, 64, gocv.MatTypeCV8UC3)
	defer grey.Close()
	vw, err := gocv.VideoWriterFile(path, "MJPG", 15, 64, 48, true)
	require.NoError(t, err)
	for i := 0; i < 15; i++ {
		require.NoError(t, vw.Write(grey))
	}
	require.NoError(t, vw.Close())
	src, err := OpenSource(path)
	require.NoError(t, err)
	defer src.Close()
	res, err := Run(context.Background(), cfg, src, a, nil)
	require.NoError(t, err)
	require.NotNil(t, gm, "the command was applied")
	assert.Equal(t, "undecided → GM ruled valid", judge.GMLine(*gm))
	assert.Equal(t, judge.Valid, res.Rulings.Players[0].Tears[0].GMRuling.Verdict)
}

// freshReferee reads fresh sheets by frame number (Medicine weak on some frames) and records
// the frames it was asked to read.
type freshReferee struct {
	scriptReferee
	weak  map[int]float64 // Medicine's confidence by frame number; 0.99 otherwise
	reads []int
}

func (r *freshReferee) Fresh(p int, f Frame) (judge.SheetResult, error) {
	r.reads = append(r.reads, f.No)
	conf, ok := r.weak[f.No]
	if !ok {
		conf = 0.99
	}
	return judge.SheetResult{Found: true, Skills: []judge.SkillResult{{Name: "Archery", Letters: 7, Located: 7, Confidence: 0.9},
		{Name: "Medicine", Letters: 8, Located: 8, Confidence: conf}}}, nil
}

// TestFreshSheetReadOnStillFrames: a fresh sheet is read on each frame of the still run the
// capture gave (the last two of the still run, then the first), and the best read is kept
// and recorded (the referee is asked for it again unless it was the first frame's, read
// last), the log naming the frames read; a frame that reads Medicine weakly (16%) loses to one that reads it at 99%.
func TestFreshSheetReadOnStillFrames(t *testing.T) {
	players := []Player{{Name: "Ann", Skills: []string{"Archery", "Medicine"}}}
	for _, tc := range []struct {
		name  string
		weak  map[int]float64
		reads []int
		kept  string
		log   string
	}{
		{name: "the middle frame reads best", weak: map[int]float64{5: 0.16, 12: 0.3}, reads: []int{11, 12, 5, 11}, kept: "frame:11",
			log: "tearcam watch: frame 11: Ann's fresh sheet taken (Archery 7/7, Medicine 8/8); read on 3 frames of the still sheet (5: 7/15 letters located (Medicine 8/8 (weak read, 16%)); 11: 15/15 letters located; 12: 7/15 letters located (Medicine 8/8 (weak read, 30%))): frame 11 kept, the most letters located by a strong read\n"},
		{name: "the first frame reads as well as any: kept, read last", weak: map[int]float64{11: 0.2}, reads: []int{11, 12, 5}, kept: "frame:5"},
		{name: "the last frame reads best", weak: map[int]float64{5: 0.2, 11: 0.2}, reads: []int{11, 12, 5, 12}, kept: "frame:12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := &freshReferee{weak: tc.weak}
			var log bytes.Buffer
			c := newController(Config{Players: players, Log: &log, Now: time.Now}, ref)
			s := settledAt(5, 0)
			s.kind = settleTaken
			for _, no := range []int{11, 12} {
				m := settledAt(no, 0)
				s.more = append(s.more, stillFrame{no: no, frame: m.frame})
			}
			c.onSettle(s)
			assert.Equal(t, tc.reads, ref.reads)
			assert.True(t, c.players[0].fresh)
			assert.Equal(t, tc.kept, c.players[0].rulings.Sheet.Photo)
			if tc.log != "" {
				assert.Equal(t, tc.log, log.String())
			}
		})
	}
}
