package watch

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/referee/fake"
	"tearcam/session"
)

// TestRereadAfterRuling: with DeferReread the ruling is reported before the OCR re-read of its
// frame; the re-read, done right after, amends it (Event.Amended, Before the ruling as
// reported) with its disagreement, and the store holds the amended ruling (an audit of the
// frames' manifest rules the same). When the re-read's disagreement is a doubt
// (RereadDoubts), the amendment changes the verdict (valid → undecided) and says so. A tear
// whose re-read agrees is not amended.
func TestRereadAfterRuling(t *testing.T) {
	for _, doubts := range []bool{false, true} {
		t.Run(fmt.Sprintf("doubts=%v", doubts), func(t *testing.T) {
			players := []Player{{Name: "Ann", Skills: []string{"Archery", "Cooking"}}}
			a := newFakeAuditReferee(t, context.Background(), players)
			a.DeferReread, a.Ref.RereadDoubts = true, doubts
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
			valid := fake.Photo{RemovedAreaMM2: 1500, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
				Letters: map[string]string{"Archery": "RRSSSSS"}}
			c.onSettle(fakeSettled(3, fake.Sheet{Sheet: true}))
			announce("use Archery")
			c.onSettle(fakeSettled(50, valid))
			require.Len(t, events, 1, "re-read agrees: nothing to amend")
			assert.False(t, events[0].Amended)
			assert.Equal(t, judge.Valid, events[0].Ruling.Verdict)

			events = nil
			disagrees := valid
			disagrees.Letters = map[string]string{"Archery": "GGRSSSS"}
			disagrees.Reread = []string{`"Archery": letter 4 reads as gone`}
			announce("use Archery")
			c.onSettle(fakeSettled(90, disagrees))
			require.Len(t, events, 2)
			reported, amended := events[0], events[1]
			assert.False(t, reported.Amended)
			assert.Equal(t, judge.Valid, reported.Ruling.Verdict, "ruled before the re-read")
			assert.NotContains(t, reported.Ruling.Notes, `ocr re-read: "Archery": letter 4 reads as gone`)
			require.True(t, amended.Amended)
			assert.Equal(t, *reported.Ruling, *amended.Before)
			assert.Equal(t, 2, amended.Ruling.Index)
			assert.Equal(t, "frame:90", amended.Ruling.Photo)
			if doubts {
				assert.Equal(t, judge.Undecided, amended.Ruling.Verdict, "the re-read's doubt changes the verdict")
				assert.Contains(t, amended.Ruling.UndecidedReason, "letter 4 reads as gone")
			} else {
				assert.Equal(t, judge.Valid, amended.Ruling.Verdict)
				assert.Contains(t, amended.Ruling.Notes, `ocr re-read: "Archery": letter 4 reads as gone`)
			}
			assert.Equal(t, *amended.Ruling, amended.Rulings.Players[0].Tears[1], "the rulings document (--json, the page) holds it")
			assert.Equal(t, *amended.Ruling, c.players[0].rulings.Tears[1])

			// Stored: an audit of the frames' manifest with the database rules the same,
			// re-reading nothing.
			m, err := session.Load(a.ManifestPath(), session.Audit)
			require.NoError(t, err)
			res, err := a.Ref.Audit(context.Background(), m)
			require.NoError(t, err)
			assert.Equal(t, 0, res.Pending+res.Reread)
			got := res.Rulings.Players[0].Tears[1]
			assert.Equal(t, amended.Ruling.Verdict, got.Verdict)
			assert.Equal(t, amended.Ruling.UndecidedReason, got.UndecidedReason)
			assert.Equal(t, amended.Ruling.Notes, got.Notes)
		})
	}
}
