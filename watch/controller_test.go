package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

func TestParseAnnouncement(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		line string
		want Announcement
		err  string
	}{
		{line: "use Swordsmanship", want: Announcement{Tear: judge.Tear{Kind: judge.KindUse, Skill: "Swordsmanship"}}},
		{line: "  damage   Tea   Ceremony ", want: Announcement{Tear: judge.Tear{Kind: judge.KindDamage, Skill: "Tea Ceremony"}}},
		{line: "penalty Hopscotch", want: Announcement{Tear: judge.Tear{Kind: judge.KindPenalty, Skill: "Hopscotch"}}},
		{line: "penalty", want: Announcement{Tear: judge.Tear{Kind: judge.KindPenalty}}},
		{line: "last-ditch hit", want: Announcement{Tear: judge.Tear{Kind: judge.KindLastDitch, Hit: true}}},
		{line: "LAST_DITCH Miss", want: Announcement{Tear: judge.Tear{Kind: judge.KindLastDitch}}},
		{line: "Bob: use Archery", want: Announcement{Player: "Bob", Tear: judge.Tear{Kind: judge.KindUse, Skill: "Archery"}}},
		{line: "sheet Bob", want: Announcement{Player: "Bob", Sheet: true}},
		// Names go through session.Name, as the manifest's and --skills do: e plus a
		// combining acute is é, a zero-width space and a ligature vanish.
		{line: "Zo\u0065\u0301: use Cafe\u0301", want: Announcement{Player: "Zo\u00e9", Tear: judge.Tear{Kind: judge.KindUse, Skill: "Caf\u00e9"}}},
		{line: "damage Te\u200bxt \ufb01sh", want: Announcement{Tear: judge.Tear{Kind: judge.KindDamage, Skill: "Text fish"}}},
		{line: "", err: "empty announcement"},
		{line: "# a comment", err: "empty announcement"},
		{line: "use", err: "use needs a skill"},
		{line: "last-ditch maybe", err: "want last-ditch hit or last-ditch miss"},
		{line: "throw Archery", err: "want use, damage, penalty, last-ditch, sheet or gm"},
		{line: ": use Archery", err: "empty player name"},
		// The GM's ruling on a tear (ParseGM).
		{line: "gm 3 faux_pas no_full_letter", want: Announcement{GMTear: 3, GM: &judge.GMRuling{Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNoFullLetter}}}},
		{line: "Ann: gm 1 valid", want: Announcement{Player: "Ann", GMTear: 1, GM: &judge.GMRuling{Verdict: judge.Valid}}},
		{line: "GM 2 Faux-Pas several-pieces, not_edge_to_edge paper short", want: Announcement{GMTear: 2, GM: &judge.GMRuling{Verdict: judge.FauxPas,
			Faults: []judge.Fault{judge.FaultSeveralPieces, judge.FaultNotEdgeToEdge}, PaperFitsTemplate: &no}}},
		{line: "gm 3 remaining Archery=4", want: Announcement{GMTear: 3, GM: &judge.GMRuling{Remaining: map[string]int{"Archery": 4}}}},
		{line: "gm 3 valid remaining Tea Ceremony=0, archery=2 paper fits out no_skills_left note the S went, out too",
			want: Announcement{GMTear: 3, GM: &judge.GMRuling{Verdict: judge.Valid, Remaining: map[string]int{"Tea Ceremony": 0, "archery": 2},
				PaperFitsTemplate: &yes, Out: judge.OutNoSkillsLeft, Note: "the S went, out too"}}},
		{line: "gm valid", err: "want gm N followed by the ruling"},
		{line: "gm 0 valid", err: "want gm N followed by the ruling"},
		{line: "gm 3", err: "the GM's ruling is missing"},
		{line: "gm 3 faux_pas", err: "faux_pas needs faults"},
		{line: "gm 3 valid no_full_letter", err: "valid takes no faults"},
		{line: "gm 3 valid faux_pas no_full_letter", err: "verdict given twice"},
		{line: "gm 3 remaining Archery", err: `remaining "Archery": want SKILL=N`},
		{line: "gm 3 maybe", err: `unknown word "maybe"`},
		{line: "gm 3 valid paper maybe", err: "want paper fits"},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			got, err := ParseAnnouncement(tc.line)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// scriptReferee identifies sheets by the frame's grey level (player = level/50 - 1) and rules
// every tear valid, recording the calls.
type scriptReferee struct {
	calls     []string
	freshFail map[int]bool        // frame numbers not usable as fresh sheets
	covered   map[int]bool        // frame numbers where something covers the sheet
	untorn    map[int]bool        // frame numbers that show nothing removed
	skills    []judge.SkillResult // what Fresh locates
}

func (s *scriptReferee) Fresh(p int, f Frame) (judge.SheetResult, error) {
	s.calls = append(s.calls, fmt.Sprintf("fresh %d@%d", p, f.No))
	if s.freshFail[f.No] {
		return judge.SheetResult{Found: false, Error: "no sheet of paper found"}, nil
	}
	return judge.SheetResult{Found: true, Skills: append([]judge.SkillResult{}, s.skills...)}, nil
}

func (s *scriptReferee) Identify(f Frame, cands []int) (int, error) {
	p := int(f.Mat.GetUCharAt(0, 0))/50 - 1
	for _, c := range cands {
		if c == p {
			return p, nil
		}
	}
	return -1, nil
}

func (s *scriptReferee) Tear(p int, t judge.Tear, f *Frame) (judge.TearRuling, []byte, error) {
	at := "-"
	if f != nil {
		at = fmt.Sprint(f.No)
	}
	s.calls = append(s.calls, fmt.Sprintf("tear %d %s %s@%s", p, t.Kind, t.Skill, at))
	if t.Skill == "Broken" {
		return judge.TearRuling{}, nil, errors.New("registration refused")
	}
	if t.Skill == "Cancelled" {
		return judge.TearRuling{}, nil, fmt.Errorf("tear: %w", context.Canceled) // Ctrl-C while judging
	}
	if f != nil && s.covered[f.No] {
		return judge.TearRuling{}, nil, fmt.Errorf("%w at (10, 20) mm", ErrCovered)
	}
	if f != nil && s.untorn[f.No] {
		return judge.TearRuling{Kind: t.Kind, Skill: t.Skill, Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNothingRemoved}}, nil, nil
	}
	return judge.TearRuling{Kind: t.Kind, Skill: t.Skill, Verdict: judge.Valid, Faults: []judge.Fault{}}, nil, nil
}

// settledAt is a settled frame of player p's sheet (grey level 50*(p+1)).
func settledAt(no, p int) settled {
	m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(50*(p+1)), 0, 0, 0), 4, 4, gocv.MatTypeCV8UC3)
	return settled{no: no, frame: m, readAt: time.Now()}
}

func TestControllerPairsFramesWithTears(t *testing.T) {
	two := []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}, {Name: "Bob", Skills: []string{"Hopscotch", "Archery"}}}
	type step struct {
		frame  int    // settled frame number (>= 0), or -1 for an announcement
		player int    // whose sheet the frame shows
		ann    string // the announcement line
	}
	cases := []struct {
		name     string
		players  []Player
		scripted bool
		steps    []step
		fail     map[int]bool
		want     []string
		log      string
		reasons  []string // the undecided reasons of the first player's tears, in order
	}{
		{name: "announced before the sheet settles", players: two[:1],
			steps: []step{{frame: 1}, {frame: -1, ann: "use Archery"}, {frame: 2}, {frame: 3}, {frame: -1, ann: "damage Cooking"}},
			want:  []string{"fresh 0@1", "tear 0 use Archery@2", "tear 0 damage Cooking@3"}},
		{name: "a frame settled again before an announcement supersedes the earlier", players: two[:1],
			steps: []step{{frame: 1}, {frame: 2}, {frame: 3}, {frame: -1, ann: "use Archery"}, {frame: -1, ann: "use Cooking"}, {frame: 4}},
			want:  []string{"fresh 0@1", "tear 0 use Archery@3", "tear 0 use Cooking@4"}, log: "frame 2 is dropped"},
		{name: "last ditch needs no frame", players: two[:1],
			steps: []step{{frame: 1}, {frame: -1, ann: "last-ditch hit"}, {frame: -1, ann: "use Archery"}},
			want:  []string{"fresh 0@1", "tear 0 last_ditch @-"}},
		{name: "a frame that is no sheet is not the fresh sheet", players: two[:1], fail: map[int]bool{1: true},
			steps: []step{{frame: 1}, {frame: 2}, {frame: -1, ann: "use Archery"}, {frame: 3}},
			want:  []string{"fresh 0@1", "fresh 0@2", "tear 0 use Archery@3"}, log: "not usable as Ann's fresh sheet"},
		{name: "scripted tears", players: []Player{{Name: "Ann", Skills: []string{"Archery"},
			Tears: []judge.Tear{{Kind: judge.KindUse, Skill: "Archery"}, {Kind: judge.KindLastDitch}, {Kind: judge.KindUse, Skill: "Archery"}}}},
			scripted: true, steps: []step{{frame: 1}, {frame: 2}, {frame: -1, ann: "use Archery"}},
			want: []string{"fresh 0@1", "tear 0 use Archery@2", "tear 0 last_ditch @-"}, log: "ignored: the tears come from the session manifest"},
		{name: "two players told apart by registration", players: two,
			steps: []step{{frame: 1, player: 0}, {frame: 2, player: 1}, {frame: -1, ann: "Bob: use Archery"}, {frame: -1, ann: "use Cooking"},
				{frame: 3, player: 0}, {frame: 4, player: 1}},
			want: []string{"fresh 0@1", "fresh 1@2", "tear 0 use Cooking@3", "tear 1 use Archery@4"}},
		{name: "unregistered frame goes to the only player waiting for one", players: two,
			steps: []step{{frame: 1, player: 0}, {frame: 2, player: 1}, {frame: -1, ann: "Bob: use Archery"}, {frame: 3, player: 5}},
			want:  []string{"fresh 0@1", "fresh 1@2", "tear 1 use Archery@3"}, log: "the only player with a tear waiting"},
		{name: "unregistered frame with two players waiting is ignored", players: two,
			steps: []step{{frame: 1, player: 0}, {frame: 2, player: 1}, {frame: -1, ann: "Bob: use Archery"}, {frame: -1, ann: "Ann: use Archery"}, {frame: 3, player: 5}},
			want:  []string{"fresh 0@1", "fresh 1@2"}, log: "matches no player's sheet; ignored"},
		{name: "ambiguous skill is refused", players: two,
			steps: []step{{frame: 1, player: 0}, {frame: 2, player: 1}, {frame: -1, ann: "use Archery"}},
			want:  []string{"fresh 0@1", "fresh 1@2"}, log: "is a skill of several players"},
		{name: "announced sheet", players: two,
			steps: []step{{frame: -1, ann: "sheet Bob"}, {frame: 1, player: 1}, {frame: 2, player: 0}},
			want:  []string{"fresh 1@1", "fresh 0@2"}},
		{name: "referee failure is an undecided ruling", players: []Player{{Name: "Ann", Skills: []string{"Archery", "Broken"}}},
			steps: []step{{frame: 1}, {frame: -1, ann: "use Broken"}, {frame: 2}},
			want:  []string{"fresh 0@1", "tear 0 use Broken@2"}, log: "registration refused"},
		// The source ends before a scripted tear is seen: it and the last ditch behind it are
		// undecided, the last ditch saying why (it has no sheet to see).
		{name: "scripted last ditch behind an unseen tear", players: []Player{{Name: "Ann", Skills: []string{"Archery"},
			Tears: []judge.Tear{{Kind: judge.KindUse, Skill: "Archery"}, {Kind: judge.KindLastDitch, Hit: true}}}},
			scripted: true, steps: []step{{frame: 1}},
			want: []string{"fresh 0@1"}, log: "2 tears announced but never seen",
			reasons: []string{"never seen settled on the table", "the last ditch effort comes after a tear that was never seen"}},
		// A mistyped skill is refused as typed: it does not take the next sheet's place.
		{name: "unknown skill refused as typed", players: two[:1],
			steps: []step{{frame: 1}, {frame: -1, ann: "damage Nope"}, {frame: -1, ann: "use archery"}, {frame: 2}},
			want:  []string{"fresh 0@1", "tear 0 use Archery@2"}, log: `announcement damage Nope ignored: Ann has no skill "Nope" (skills: Archery, Cooking)`},
		// A skill typed in another case is ruled under its declared spelling, as audit's.
		{name: "skill takes its declared spelling", players: two,
			steps: []step{{frame: 1, player: 0}, {frame: 2, player: 1}, {frame: -1, ann: "bob: damage HOPSCOTCH"}, {frame: -1, ann: "use cooking"},
				{frame: 3, player: 1}, {frame: 4, player: 0}},
			want: []string{"fresh 0@1", "fresh 1@2", "tear 1 damage Hopscotch@3", "tear 0 use Cooking@4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			ref := &scriptReferee{freshFail: tc.fail}
			c := newController(Config{Players: tc.players, Scripted: tc.scripted, Paper: template.Paper{Name: "a4"},
				Template: template.Default(), Log: &log, Now: time.Now}, ref)
			for _, s := range tc.steps {
				if s.frame < 0 {
					a, err := ParseAnnouncement(s.ann)
					require.NoError(t, err)
					c.onAnnouncement(a)
				} else {
					c.onSettle(settledAt(s.frame, s.player))
				}
			}
			c.finish(false)
			assert.Equal(t, tc.want, ref.calls)
			assert.Contains(t, log.String(), tc.log)
			doc := c.rulings()
			assert.Equal(t, judge.Schema, doc.Schema)
			for i, want := range tc.reasons {
				require.Greater(t, len(doc.Players[0].Tears), i)
				assert.Contains(t, doc.Players[0].Tears[i].UndecidedReason, want)
			}
			for _, p := range doc.Players {
				for i, r := range p.Tears {
					assert.Equal(t, i+1, r.Index)
					if r.Kind == judge.KindLastDitch || strings.Contains(r.UndecidedReason, "never seen") {
						assert.Empty(t, r.Photo) // no frame: ruled at once, or never seen
					} else {
						assert.Regexp(t, `^frame:\d+$`, r.Photo)
						assert.Len(t, r.SHA256, 64)
					}
					if r.Skill == "Broken" {
						assert.Equal(t, judge.Undecided, r.Verdict)
					}
				}
			}
		})
	}
}

// TestSheetNeverSeenSaysWhy: until the camera sees a player's untorn sheet settle, the
// player's sheet in the rulings is not found and says why (the JSON's sheet.error).
func TestSheetNeverSeenSaysWhy(t *testing.T) {
	c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Archery"}}}, Paper: template.Paper{Name: "a4"}}, nil)
	s := c.players[0].rulings.Sheet
	assert.False(t, s.Found)
	assert.Equal(t, "the untorn sheet was never seen settled by the camera", s.Error)
}

// TestUnseenTearsKeepTheStanding: tears announced for a sheet the camera never saw settle are
// undecided, with every declared skill at all its letters (not measured) and the template
// fitting on the untorn paper, as audit rules a session whose sheet photo is missing.
func TestUnseenTearsKeepTheStanding(t *testing.T) {
	players := []Player{{Name: "Ann", Skills: []string{"Archery", "Tea Ceremony"}}}
	var log strings.Builder
	c := newController(Config{Players: players, Paper: template.Paper{Name: "a4"}, Template: template.Default(), Log: &log}, &scriptReferee{})
	for _, line := range []string{"use Archery", "damage Tea Ceremony", "last-ditch hit"} {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	c.finish(false)
	tears := c.rulings().Players[0].Tears
	require.Len(t, tears, 3)
	want := []judge.SkillState{{Name: "Archery", Remaining: 7, Available: true}, {Name: "Tea Ceremony", Remaining: 11, Available: true}}
	for i, r := range tears {
		assert.Equal(t, i+1, r.Index)
		assert.Equal(t, judge.Undecided, r.Verdict)
		assert.Equal(t, want, r.Skills, "tear %d: every declared skill, all its letters, not measured", i+1)
		assert.True(t, r.PaperFitsTemplate, "tear %d: the untorn sheet fits the template", i+1)
		assert.True(t, r.LettersAsBefore)
		assert.False(t, r.Out)
	}
	assert.Contains(t, tears[0].UndecidedReason, "never seen settled on the table")
	// The notes audit gives a tear whose sheet photo is missing.
	assert.Contains(t, tears[0].Notes, "undecided: nothing measured reliably; letters, owed tears and paper carried unchanged")
	assert.Contains(t, tears[2].UndecidedReason, "the last ditch effort comes after a tear that was never seen")
	assert.Equal(t, 0, c.result().Ruled, "listed, not ruled nor recorded")
}

// TestFreshSheetLineMarksWeakRead: the line that says the fresh sheet was taken marks a
// skill located by a weak read, with how weak, as audit's table does: "Text 4/4" alone hid
// that its count is not certain until a tear was ruled (a tester).
func TestFreshSheetLineMarksWeakRead(t *testing.T) {
	var log strings.Builder
	ref := &scriptReferee{skills: []judge.SkillResult{{Name: "Text", Letters: 4, Located: 4, Confidence: 0.21},
		{Name: "hand", Letters: 4, Located: 4, Confidence: 0.93}}}
	c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Text", "hand"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Now: time.Now}, ref)
	c.onSettle(settledAt(1, 0))
	assert.Contains(t, log.String(), "frame 1: Ann's fresh sheet taken (Text 4/4 (weak read, 21%), hand 4/4)\n")
	c.finish(true)
}

// TestInterruptedListsNoUnseenTears: an interrupted session rules nothing more and logs
// nothing of it: the tear being judged and the tears announced but not ruled are not listed
// as rulings but in Result.NotRuled, for the caller's one line (README: Ctrl-C prints one line).
func TestInterruptedListsNoUnseenTears(t *testing.T) {
	var log strings.Builder
	c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Archery", "Cancelled"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Now: time.Now}, &scriptReferee{})
	c.onSettle(settledAt(1, 0))
	require.Contains(t, log.String(), "frame 1: Ann's fresh sheet taken")
	log.Reset()
	for _, line := range []string{"use Cancelled", "use Archery"} {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	c.onSettle(settledAt(2, 0)) // Ctrl-C while tear 1 is judged on frame 2
	c.finish(true)
	assert.Empty(t, c.rulings().Players[0].Tears)
	assert.Empty(t, log.String(), "the caller says it in one line")
	assert.Equal(t, []string{"Ann's tear 1 (use Cancelled, frame 2, being judged)", "Ann's 1 announced tear not yet seen"},
		c.result().NotRuled)
}

// retractingReferee is a scriptReferee that can retract, so the controller speculates.
type retractingReferee struct{ scriptReferee }

func (r *retractingReferee) Retract(p int) { r.calls = append(r.calls, fmt.Sprintf("retract %d", p)) }

// TestInterruptedSpeculation: interrupted while a tear is judged on the frame where the sheet
// stopped moving (Config.Speculate), that tear is said to be the one being judged, not an
// announced tear not yet seen, and nothing is logged.
func TestInterruptedSpeculation(t *testing.T) {
	var log strings.Builder
	c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Archery", "Cancelled"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Now: time.Now, Speculate: true}, &retractingReferee{})
	c.onSettle(settledAt(1, 0))
	log.Reset()
	for _, line := range []string{"use Cancelled", "use Archery"} {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	cand := settledAt(2, 0)
	cand.kind = settleCandidate
	c.onFrame(cand) // Ctrl-C while tear 1 is judged on frame 2, before it lay still
	c.finish(true)
	assert.Empty(t, c.rulings().Players[0].Tears)
	assert.Empty(t, log.String())
	assert.Equal(t, []string{"Ann's tear 1 (use Cancelled, frame 2, being judged)", "Ann's 1 announced tear not yet seen"},
		c.result().NotRuled)
}

// TestCoveredFramesWait: frames where something covers the sheet rule nothing; the tear is
// ruled on the next uncovered frame, the log says so once per tear, and each covered frame
// re-arms the capture.
func TestCoveredFramesWait(t *testing.T) {
	var log strings.Builder
	ref := &scriptReferee{covered: map[int]bool{2: true, 3: true, 5: true}}
	c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Now: time.Now}, ref)
	rearmed := 0
	c.rearm = func() { rearmed++ }
	c.onSettle(settledAt(1, 0))
	for _, line := range []string{"use Archery", "damage Cooking"} {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	for no := 2; no <= 6; no++ {
		c.onSettle(settledAt(no, 0))
	}
	c.finish(false)
	assert.Equal(t, []string{"fresh 0@1", "tear 0 use Archery@2", "tear 0 use Archery@3", "tear 0 use Archery@4",
		"tear 0 damage Cooking@5", "tear 0 damage Cooking@6"}, ref.calls)
	tears := c.rulings().Players[0].Tears
	require.Len(t, tears, 2)
	assert.Equal(t, PhotoName(4), tears[0].Photo)
	assert.Equal(t, PhotoName(6), tears[1].Photo)
	assert.Equal(t, 3, rearmed)
	assert.Equal(t, 1, strings.Count(log.String(), "Ann's tear 1 (use Archery) is not ruled on it"), log.String())
	assert.Contains(t, log.String(), "frame 2: something covers the sheet at (10, 20) mm; Ann's tear 1 (use Archery) is not ruled on it: waiting for the sheet to settle uncovered")
	assert.Contains(t, log.String(), "frame 5: something covers the sheet at (10, 20) mm; Ann's tear 2 (damage Cooking)")
}

// TestUntornLayDownIsHeld: a sheet picked up and put back untorn settles with nothing
// removed; it must not use up the waiting tear (a tester: tear 1 was ruled nothing_removed
// and every later tear against the wrong announcement). The ruling on it is retracted and the
// tear is ruled on the next frame of the sheet that settles, saying so in its notes; the
// held frame is ruled (nothing_removed) only when nothing else settles before the player's
// next announcement or the end of the source.
func TestUntornLayDownIsHeld(t *testing.T) {
	ann := func(c *controller, line string) {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	ann3 := []Player{{Name: "Lena", Skills: []string{"Etiquette", "Mechanics", "Medicine"}}}
	scripted := []Player{{Name: "Lena", Skills: ann3[0].Skills, Tears: []judge.Tear{
		{Kind: judge.KindDamage, Skill: "Mechanics"}, {Kind: judge.KindDamage, Skill: "Etiquette"}}}}
	cases := []struct {
		name      string
		players   []Player
		scripted  bool
		speculate bool
		run       func(c *controller)
		calls     []string
		photos    []string // the frame of each ruling, in order
		faults    [][]judge.Fault
		notes     []string // a note of each ruling ("" none expected)
		log       string
	}{
		{name: "announced up front: picked up, then torn twice", players: ann3,
			run: func(c *controller) {
				c.onSettle(settledAt(1, 0))
				ann(c, "damage Mechanics")
				ann(c, "damage Etiquette")
				ann(c, "use Medicine")
				for no := 2; no <= 4; no++ {
					c.onSettle(settledAt(no, 0))
				}
			},
			calls:  []string{"fresh 0@1", "tear 0 damage Mechanics@2", "retract 0", "tear 0 damage Mechanics@3", "tear 0 damage Etiquette@4"},
			photos: []string{"frame:3", "frame:4", ""}, faults: [][]judge.Fault{{}, {}, nil},
			notes: []string{"the sheet settled untorn (nothing removed) on frame 2 after the last ruling: taken as picked up and put back; this tear is ruled on frame 3", "", ""},
			log:   "frame 2: Lena's sheet settled with nothing removed: taken as the sheet put back untorn; tear 1 (damage Mechanics) is ruled on the next frame of the sheet that settles (nothing_removed on frame 2 if none comes before the next announcement for Lena or the end of the source)"},
		{name: "announced: the next announcement rules the held frame", players: ann3,
			run: func(c *controller) {
				c.onSettle(settledAt(1, 0))
				ann(c, "damage Mechanics")
				c.onSettle(settledAt(2, 0))
				ann(c, "damage Etiquette")
				c.onSettle(settledAt(3, 0))
			},
			calls:  []string{"fresh 0@1", "tear 0 damage Mechanics@2", "retract 0", "tear 0 damage Mechanics@2", "tear 0 damage Etiquette@3"},
			photos: []string{"frame:2", "frame:3"}, faults: [][]judge.Fault{{judge.FaultNothingRemoved}, {}},
			notes: []string{"nothing removed on frame 2, and no other frame of the sheet settled after it before the next announcement or the end of the source", ""},
			log:   "frame 2: no other frame of Lena's sheet settled before the next announcement: tear 1 (damage Mechanics) is ruled on frame 2"},
		{name: "scripted: the next changed frame, said in the notes", players: scripted, scripted: true,
			run: func(c *controller) {
				for no := 1; no <= 4; no++ {
					c.onSettle(settledAt(no, 0))
				}
			},
			calls:  []string{"fresh 0@1", "tear 0 damage Mechanics@2", "retract 0", "tear 0 damage Mechanics@3", "tear 0 damage Etiquette@4"},
			photos: []string{"frame:3", "frame:4"}, faults: [][]judge.Fault{{}, {}},
			notes: []string{"untorn (nothing removed) on frame 2", ""}},
		{name: "scripted: the source ends after the held frame", players: scripted, scripted: true,
			run: func(c *controller) {
				c.onSettle(settledAt(1, 0))
				c.onSettle(settledAt(2, 0))
			},
			calls:  []string{"fresh 0@1", "tear 0 damage Mechanics@2", "retract 0", "tear 0 damage Mechanics@2"},
			photos: []string{"frame:2", ""}, faults: [][]judge.Fault{{judge.FaultNothingRemoved}, {}},
			notes: []string{"nothing removed on frame 2", ""},
			log:   "no other frame of Lena's sheet settled before the end of the source"},
		{name: "speculated: judged where the sheet stopped, held once it lay still", players: scripted, scripted: true, speculate: true,
			run: func(c *controller) {
				c.onSettle(settledAt(1, 0))
				for no := 2; no <= 4; no++ {
					cand := settledAt(no, 0)
					cand.kind = settleCandidate
					c.onFrame(cand)
					c.onFrame(settled{kind: settleConfirm, no: no, frame: gocv.NewMat()})
				}
			},
			calls:  []string{"fresh 0@1", "tear 0 damage Mechanics@2", "retract 0", "tear 0 damage Mechanics@3", "tear 0 damage Etiquette@4"},
			photos: []string{"frame:3", "frame:4"}, faults: [][]judge.Fault{{}, {}},
			notes: []string{"untorn (nothing removed) on frame 2", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			ref := &retractingReferee{scriptReferee{untorn: map[int]bool{2: true}}}
			c := newController(Config{Players: tc.players, Scripted: tc.scripted, Speculate: tc.speculate, Paper: template.Paper{Name: "a4"},
				Template: template.Default(), Log: &log, Now: time.Now}, ref)
			tc.run(c)
			c.finish(false)
			assert.Equal(t, tc.calls, ref.calls)
			assert.Contains(t, log.String(), tc.log)
			tears := c.rulings().Players[0].Tears
			require.Len(t, tears, len(tc.photos))
			for i, r := range tears {
				assert.Equal(t, tc.photos[i], r.Photo, "tear %d", i+1)
				if tc.faults[i] != nil {
					assert.Equal(t, tc.faults[i], r.Faults, "tear %d", i+1)
				}
				if tc.notes[i] == "" {
					assert.Empty(t, r.Notes, "tear %d", i+1)
				} else {
					require.Len(t, r.Notes, 1, "tear %d", i+1)
					assert.Contains(t, r.Notes[0], tc.notes[i], "tear %d", i+1)
				}
			}
		})
	}
}

// paperReferee rules by the paper each frame shows (paper[frame], default 100): a tear that
// removed no paper since the last frame recorded is faux_pas nothing_removed, else valid;
// a frame it was told to doubt is undecided. It records like AuditReferee (Retract takes the
// last tear back).
type paperReferee struct {
	calls  []string
	paper  map[int]int
	stack  [][]int // per player: the fresh sheet's frame, then each tear's
	doubts map[int]string
}

func (r *paperReferee) level(no int) int {
	if v, ok := r.paper[no]; ok {
		return v
	}
	return 100
}

func (r *paperReferee) Fresh(p int, f Frame) (judge.SheetResult, error) {
	r.calls = append(r.calls, fmt.Sprintf("fresh %d@%d", p, f.No))
	for len(r.stack) <= p {
		r.stack = append(r.stack, nil)
	}
	r.stack[p] = []int{f.No}
	return judge.SheetResult{Found: true, Skills: []judge.SkillResult{}}, nil
}

func (r *paperReferee) Identify(Frame, []int) (int, error) { return 0, nil }

func (r *paperReferee) Tear(p int, t judge.Tear, f *Frame) (judge.TearRuling, []byte, error) {
	r.calls = append(r.calls, fmt.Sprintf("tear %s@%d", t.Skill, f.No))
	prev := r.stack[p][len(r.stack[p])-1]
	r.stack[p] = append(r.stack[p], f.No)
	ru := judge.TearRuling{Kind: t.Kind, Skill: t.Skill, Verdict: judge.Valid, Faults: []judge.Fault{}}
	if r.level(f.No) == r.level(prev) {
		ru.Verdict, ru.Faults = judge.FauxPas, []judge.Fault{judge.FaultNothingRemoved}
	}
	if why, ok := r.doubts[f.No]; ok {
		ru.Verdict, ru.Faults, ru.UndecidedReason = judge.Undecided, []judge.Fault{}, why
	}
	return ru, nil, nil
}

func (r *paperReferee) Retract(p int) {
	r.calls = append(r.calls, "retract")
	r.stack[p] = r.stack[p][:len(r.stack[p])-1]
}

func (r *paperReferee) Doubt(f Frame, why string) {
	r.calls = append(r.calls, fmt.Sprintf("doubt @%d", f.No))
	if r.doubts == nil {
		r.doubts = map[int]string{}
	}
	r.doubts[f.No] = why
}

// TestSheetChangedTwiceBeforeTheAnnouncement: the sheet settles torn (frame 2), settles again
// torn once more (frame 3), and only then is the tear announced. Ruled on frame 3 alone, two
// tears' removal was one ruling, stated with certainty (a tester: faux_pas several_pieces,
// truth valid). Frame 3 is now compared with the dropped frame 2: different paper makes the
// ruling undecided, naming frame 2 in the ruling; the same paper (picked up and put back), or
// nothing removed on frame 2 (put back untorn before the tear), rules frame 3 as usual.
func TestSheetChangedTwiceBeforeTheAnnouncement(t *testing.T) {
	cases := []struct {
		name   string
		paper  map[int]int
		calls  []string
		reason string // "" for a ruling as usual
		log    string
	}{
		{name: "torn twice", paper: map[int]int{2: 90, 3: 80, 4: 70},
			calls:  []string{"fresh 0@1", "tear Archery@2", "tear Archery@3", "retract", "retract", "doubt @3", "tear Archery@3", "tear Cooking@4"},
			reason: "the sheet changed more than once since the last ruling with one tear announced: frame 2, which settled with paper removed and was dropped, is not frame 3's paper",
			log:    "frame 3: Ann's tear 1 (use Archery) is undecided: the sheet changed more than once"},
		{name: "torn, then picked up and put back", paper: map[int]int{2: 90, 3: 90, 4: 70},
			calls: []string{"fresh 0@1", "tear Archery@2", "tear Archery@3", "retract", "retract", "tear Archery@3", "tear Cooking@4"},
			log:   "frame 3: Ann's dropped frame 2 shows the same paper: the sheet was picked up and put back"},
		{name: "put back untorn, then torn", paper: map[int]int{2: 100, 3: 90, 4: 70},
			calls: []string{"fresh 0@1", "tear Archery@2", "retract", "tear Archery@3", "tear Cooking@4"},
			log:   "frame 3: Ann's dropped frame 2 shows nothing removed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			ref := &paperReferee{paper: tc.paper}
			c := newController(Config{Players: []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}}, Paper: template.Paper{Name: "a4"},
				Template: template.Default(), Log: &log, Now: time.Now}, ref)
			c.onSettle(settledAt(1, 0))
			c.onSettle(settledAt(2, 0))
			c.onSettle(settledAt(3, 0))
			for _, line := range []string{"use Archery", "damage Cooking"} {
				a, err := ParseAnnouncement(line)
				require.NoError(t, err)
				c.onAnnouncement(a)
			}
			c.onSettle(settledAt(4, 0))
			c.finish(false)
			assert.Equal(t, tc.calls, ref.calls)
			assert.Contains(t, log.String(), "frame 3: Ann's sheet settled again before a tear was announced; frame 2 is dropped")
			assert.Contains(t, log.String(), tc.log)
			tears := c.rulings().Players[0].Tears
			require.Len(t, tears, 2)
			assert.Equal(t, PhotoName(3), tears[0].Photo)
			if tc.reason != "" {
				assert.Equal(t, judge.Undecided, tears[0].Verdict)
				assert.Contains(t, tears[0].UndecidedReason, tc.reason)
			} else {
				assert.Equal(t, judge.Valid, tears[0].Verdict)
			}
			assert.Equal(t, judge.Valid, tears[1].Verdict, "the next tear is ruled on its own frame, after frame 3")
		})
	}
}
