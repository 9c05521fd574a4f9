package referee_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/referee/fake"
	"tearcam/session"
	"tearcam/store"
	"tearcam/store/storetest"
	"tearcam/template"
	"tearcam/vision"
)

// writeSession writes a manifest and its fake photos into a new folder and loads it.
func writeSession(t *testing.T, manifest string, photos map[string][]byte) *session.Manifest {
	t.Helper()
	dir := t.TempDir()
	for name, data := range photos {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	path := filepath.Join(dir, "session.yaml")
	require.NoError(t, os.WriteFile(path, []byte(manifest), 0o644))
	m, err := session.Load(path, session.Audit)
	require.NoError(t, err)
	return m
}

const twoPlayers = `paper: a4
players:
  - name: Ann
    skills: [Archery, Tea Ceremony]
    sheet: ann-0.jpg
    tears:
      - {photo: ann-1.jpg, kind: use, skill: Archery}
      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony}
      - {photo: ann-3.jpg, kind: penalty, skill: Tea Ceremony}
      - {kind: last_ditch, hit: true}
  - name: Bo
    skills: [Cooking]
    sheet: bo-0.jpg
    tears:
      - {photo: bo-1.jpg, kind: use, skill: Cooking}
      - {photo: bo-2.jpg, kind: use, skill: Cooking}
      - {photo: bo-3.jpg, kind: use, skill: Cooking}
`

// twoPlayerPhotos: Ann tears two letters of Archery (valid), then a damage tear that takes
// no full letter of Tea Ceremony (faux pas), then pays it with a valid penalty tear and
// throws the sheet. Bo's first photo is not an image, his second cannot be registered, his
// third takes the last letters of Cooking.
func twoPlayerPhotos() map[string][]byte {
	valid := fake.Photo{RemovedAreaMM2: 1520.44, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true}
	ann1, ann2, ann3 := valid, valid, valid
	ann1.Letters = map[string]string{"Archery": "RRSSSSS"}
	ann2.Letters = map[string]string{"Archery": "GGSSSSS", "Tea Ceremony": "SSSSSSSSSSC"}
	ann3.Letters = map[string]string{"Archery": "GGSSSSS", "Tea Ceremony": "RRRSSSSSSSG"}
	bo3 := valid
	bo3.Letters = map[string]string{"Cooking": "RRRRRRR"}
	return map[string][]byte{
		"ann-0.jpg": fake.JSON(fake.Sheet{Sheet: true}),
		"ann-1.jpg": fake.JSON(ann1), "ann-2.jpg": fake.JSON(ann2), "ann-3.jpg": fake.JSON(ann3),
		"bo-0.jpg": fake.JSON(fake.Sheet{Sheet: true}),
		"bo-1.jpg": []byte("GIF89a garbage"),
		"bo-2.jpg": fake.JSON(fake.Photo{RegisterError: "cannot align photo with the fresh sheet: only 7 matching features"}),
		"bo-3.jpg": fake.JSON(bo3),
	}
}

func newReferee(db *store.DB) (*referee.Referee, *fake.Eye) {
	eye := &fake.Eye{}
	return &referee.Referee{Eye: eye, Reader: fake.Reader{}, DB: db, Session: "session.yaml", Command: "audit",
		Versions: store.Versions{Tearcam: "test", OpenCV: "4.6.0", Tesseract: "5.3.0"}}, eye
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	return b
}

func TestAuditRulesEveryTear(t *testing.T) {
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	r, eye := newReferee(nil)
	var reported []string
	r.OnRuling = func(player string, tr judge.TearRuling, reused bool) {
		reported = append(reported, player+":"+string(tr.Verdict))
	}
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	doc := res.Rulings
	assert.Equal(t, judge.Schema, doc.Schema)
	assert.Equal(t, "a4", doc.Paper)
	require.Len(t, doc.Players, 2)

	ann := doc.Players[0]
	assert.True(t, ann.Sheet.Found)
	assert.Equal(t, []judge.SkillResult{{Name: "Archery", Letters: 7, Located: 7, Confidence: 0.9}, {Name: "Tea Ceremony", Letters: 11, Located: 11, Confidence: 0.9}}, ann.Sheet.Skills)
	require.Len(t, ann.Tears, 4)
	assert.Equal(t, judge.Valid, ann.Tears[0].Verdict, ann.Tears[0].UndecidedReason)
	assert.Equal(t, 2, ann.Tears[0].FullLettersRemoved)
	assert.Equal(t, 1520.4, ann.Tears[0].RemovedAreaMM2, "rounded to 0.1 mm²")
	assert.Equal(t, "ann-1.jpg", ann.Tears[0].Photo)
	assert.Len(t, ann.Tears[0].SHA256, 64)
	assert.Equal(t, judge.FauxPas, ann.Tears[1].Verdict)
	assert.Equal(t, []judge.Fault{judge.FaultNoFullLetter}, ann.Tears[1].Faults)
	assert.Equal(t, 1, ann.Tears[1].OwedTears)
	assert.Equal(t, judge.Valid, ann.Tears[2].Verdict)
	assert.Equal(t, 0, ann.Tears[2].OwedTears)
	assert.Equal(t, []judge.SkillState{{Name: "Archery", Remaining: 5, Available: true, Measured: true},
		{Name: "Tea Ceremony", Remaining: 7, Available: true, Measured: true}}, ann.Tears[2].Skills)
	assert.Equal(t, judge.OutLastDitch, ann.Tears[3].OutReason)
	assert.True(t, ann.Out)

	bo := doc.Players[1]
	require.Len(t, bo.Tears, 3)
	assert.Equal(t, judge.Undecided, bo.Tears[0].Verdict)
	assert.Equal(t, "measurement refused: bo-1.jpg: not a readable image; use the original photo file", bo.Tears[0].UndecidedReason)
	assert.Equal(t, judge.Undecided, bo.Tears[1].Verdict)
	assert.Equal(t, "measurement refused: bo-2.jpg: cannot align photo with the fresh sheet: only 7 matching features", bo.Tears[1].UndecidedReason)
	// Tear 3 is measured against the fresh sheet: what tears 1 and 2 removed is in its
	// measurement, so it cannot be ruled with certainty.
	assert.Equal(t, judge.Undecided, bo.Tears[2].Verdict)
	assert.Equal(t, "the removed area's measurement is in doubt: measured against the sheet before tear 1, whose photo could not be measured: "+
		"the paper removed by that tear cannot be told apart from this one's; "+
		"to settle it, the GM compares the sheet with its photo before this tear, then records the ruling on this tear (gm: in the manifest)", bo.Tears[2].UndecidedReason)
	assert.False(t, bo.Tears[2].Out)
	// Its letters are measured all the same: applied, not carried from before.
	assert.False(t, bo.Tears[2].LettersAsBefore)
	assert.True(t, bo.Tears[0].LettersAsBefore)

	assert.Equal(t, []string{"Ann:valid", "Ann:faux_pas", "Ann:valid", "Ann:valid", "Bo:undecided", "Bo:undecided", "Bo:undecided"}, reported)
	assert.Equal(t, eye.Opened, eye.Closed, "every sheet closed")
	assert.Equal(t, 2, eye.FreshCalls, "the fresh sheet is found once per player")
	assert.NotContains(t, string(jsonOf(t, doc)), m.Dir, "no absolute paths in the rulings")
}

// TestUnlocatedSkillIsNotMeasured: a skill ocr never located keeps its full count, but the
// ruling says that count is not measured (measured: false, a note), and the annotation
// marks it; a tear naming it stays undecided.
func TestUnlocatedSkillIsNotMeasured(t *testing.T) {
	valid := fake.Photo{RemovedAreaMM2: 1520.44, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RRSSSSS"}}
	m := writeSession(t, `paper: a4
players:
  - name: Ann
    skills: [Archery, Dancing]
    sheet: ann-0.jpg
    tears:
      - {photo: ann-1.jpg, kind: use, skill: Archery}
      - {photo: ann-1.jpg, kind: use, skill: Dancing}
`, map[string][]byte{"ann-0.jpg": fake.JSON(fake.Sheet{Sheet: true, Unlocated: []string{"Dancing"}}), "ann-1.jpg": fake.JSON(valid)})
	r, _ := newReferee(nil)
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	tears := res.Rulings.Players[0].Tears
	assert.Equal(t, judge.Valid, tears[0].Verdict)
	assert.Equal(t, []judge.SkillState{{Name: "Archery", Remaining: 5, Available: true, Measured: true},
		{Name: "Dancing", Remaining: 7, Available: true, Measured: false}}, tears[0].Skills)
	assert.Contains(t, tears[0].Notes, "letters left not measured (not located on the fresh sheet, so counted as left): Dancing 7")
	assert.Contains(t, referee.AnnotationLines(tears[0]), "letters left: Archery 5, Dancing 7? (?: not certain: a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read)")
	assert.Equal(t, judge.Undecided, tears[1].Verdict)
	assert.Equal(t, `the letters of "Dancing" (the skill torn for) were not located: whether a full letter of it was removed cannot be told; `+
		`to settle it, the GM looks at the paper torn off for a letter of "Dancing" wholly on it (none: no_full_letter), then records the ruling on this tear (gm: in the manifest)`, tears[1].UndecidedReason)
	b := jsonOf(t, res.Rulings)
	assert.Contains(t, string(b), `"name": "Dancing",
              "remaining": 7,
              "available": true,
              "measured": false`)
}

func TestBeforeIsLastGoodSheet(t *testing.T) {
	// Bo's tears 1 and 2 are refused: tear 3 is measured against the fresh sheet. Register
	// is called once per photo (and fails for tears 1 and 2), never again for a refused one.
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	m.Players = m.Players[1:]
	r, eye := newReferee(nil)
	_, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, 3, eye.RegisterCalls)
	assert.Equal(t, 1, eye.MeasureCalls)
}

func TestRegistrationFallsBackToThePreviousSheet(t *testing.T) {
	photos := twoPlayerPhotos()
	var ann3 fake.Photo
	require.NoError(t, json.Unmarshal(photos["ann-3.jpg"], &ann3))
	ann3.FreshError = "cannot align photo with the fresh sheet: matching features cover too little of the sheet"
	photos["ann-3.jpg"] = fake.JSON(ann3)
	m := writeSession(t, twoPlayers, photos)
	r, eye := newReferee(nil)
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	tr := res.Rulings.Players[0].Tears[2]
	assert.Equal(t, judge.Valid, tr.Verdict, tr.UndecidedReason)
	assert.Contains(t, tr.Notes, "registered to the previous measured photo (to the fresh sheet: "+ann3.FreshError+")")
	assert.Equal(t, eye.Opened, eye.Closed)

	// The first tear has no previous sheet: refused.
	photos = twoPlayerPhotos()
	var ann1 fake.Photo
	require.NoError(t, json.Unmarshal(photos["ann-1.jpg"], &ann1))
	ann1.FreshError = "no match"
	photos["ann-1.jpg"] = fake.JSON(ann1)
	r, _ = newReferee(nil)
	res, err = r.Audit(context.Background(), writeSession(t, twoPlayers, photos))
	require.NoError(t, err)
	assert.Equal(t, "measurement refused: ann-1.jpg: no match", res.Rulings.Players[0].Tears[0].UndecidedReason)
}

// TestPaperMaskNoFallback: a photo whose paper mask contradicts the fresh sheet's writing
// (vision.ErrPaperMask) is refused; it is not registered to the previous measured sheet.
func TestPaperMaskNoFallback(t *testing.T) {
	photos := twoPlayerPhotos()
	var ann3 fake.Photo
	require.NoError(t, json.Unmarshal(photos["ann-3.jpg"], &ann3))
	ann3.PaperMask = true
	photos["ann-3.jpg"] = fake.JSON(ann3)
	r, _ := newReferee(nil)
	res, err := r.Audit(context.Background(), writeSession(t, twoPlayers, photos))
	require.NoError(t, err)
	tr := res.Rulings.Players[0].Tears[2]
	assert.Equal(t, judge.Undecided, tr.Verdict)
	assert.Equal(t, "measurement refused: ann-3.jpg: the paper mask cannot be trusted: 12 mm² of the sheet's writing or ruling at (50, 60) mm, on what it calls paper, does not show in the photo (the table taken for paper?); to judge this tear, photograph the sheet again before the next tear (on a plain table of another colour than the paper), or the GM rules", tr.UndecidedReason)
	for _, n := range tr.Notes {
		assert.NotContains(t, n, "registered to the previous measured photo")
	}
}

func TestResumeReusesUnchangedMeasurements(t *testing.T) {
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	db := storetest.MustOpenDB(t)
	ctx := context.Background()

	r1, eye1 := newReferee(db)
	res1, err := r1.Audit(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, 0, res1.Reused)
	assert.Equal(t, 4, eye1.MeasureCalls)

	r2, eye2 := newReferee(db)
	res2, err := r2.Audit(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, 7, res2.Reused)
	assert.Equal(t, 0, eye2.MeasureCalls+eye2.FreshCalls+eye2.RegisterCalls, "nothing recomputed, not even the fresh sheet")
	assert.Equal(t, string(jsonOf(t, res1.Rulings)), string(jsonOf(t, res2.Rulings)))

	// A new photo for Ann's tear 2 re-measures tears 2 and 3 only (against tear 1's sheet,
	// registered again); tear 1 and Bo are re-used.
	p := fake.Photo{RemovedAreaMM2: 900, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "GGSSSSS", "Tea Ceremony": "RSSSSSSSSSS"}}
	require.NoError(t, os.WriteFile(m.Path("ann-2.jpg"), fake.JSON(p), 0o644))
	r3, eye3 := newReferee(db)
	res3, err := r3.Audit(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, 1+2, eye3.MeasureCalls, "tear 1's sheet rebuilt (its letter history), then tears 2 and 3")
	assert.Equal(t, 1+3, res3.Reused, "Ann's tear 1 and Bo's three tears; the last ditch follows a changed tear")
	assert.Equal(t, judge.Valid, res3.Rulings.Players[0].Tears[1].Verdict)
	assert.Equal(t, eye3.Opened, eye3.Closed)

	// A new version re-measures everything.
	r4, eye4 := newReferee(db)
	r4.Versions.Tearcam = "test2"
	res4, err := r4.Audit(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, 0, res4.Reused)
	assert.Equal(t, 4, eye4.MeasureCalls)

	st, err := db.PlayerState(ctx, "session.yaml", "Ann")
	require.NoError(t, err)
	assert.True(t, st.Out)
	assert.Equal(t, judge.OutLastDitch, st.OutReason)
	assert.Equal(t, 4, st.Tears)
}

// TestResumeIsByteIdentical audits Ann's tears up to each point with a database, then all of
// them: the JSON must be byte-identical to a fresh audit's. Her tear 2 photo shows Archery's
// first two letters as on the sheet, but tear 1 removed them: only the letter history the
// sheet after tear 1 carries makes them gone (5 left, not 7), so a resumed audit must measure
// tear 2 against that very sheet, not the photo registered again.
func TestResumeIsByteIdentical(t *testing.T) {
	photos := twoPlayerPhotos()
	var ann2 fake.Photo
	require.NoError(t, json.Unmarshal(photos["ann-2.jpg"], &ann2))
	ann2.Letters["Archery"] = "SSSSSSS"
	ann2.Letters["Tea Ceremony"] = "ASSSSSSSSSC"
	photos["ann-2.jpg"] = fake.JSON(ann2)
	full := strings.SplitAfter(twoPlayers, "  - name: Bo")[0]
	full = strings.TrimSuffix(full, "  - name: Bo")
	tears := []string{
		"      - {photo: ann-1.jpg, kind: use, skill: Archery}\n",
		"      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony}\n",
		"      - {photo: ann-3.jpg, kind: penalty, skill: Tea Ceremony}\n",
	}
	require.Contains(t, full, strings.Join(tears, ""))
	m := writeSession(t, full, photos)
	r, _ := newReferee(nil)
	fresh, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	want := string(jsonOf(t, fresh.Rulings))
	ann := fresh.Rulings.Players[0]
	require.Equal(t, "Archery", ann.Tears[1].Skills[0].Name)
	assert.Equal(t, 5, ann.Tears[1].Skills[0].Remaining, "tear 1 took 2 of Archery's 7 letters")
	assert.Contains(t, ann.Tears[1].UndecidedReason, `whether a full letter of "Tea Ceremony" was removed is too close to call: letter 1 ('T') of "Tea Ceremony"`)
	// Tear 3 removes letters 2 and 3 of Tea Ceremony whole, so it is valid whatever the
	// letter still in doubt (1, T) is; that letter is counted as left and the count flagged:
	// 11 letters - 2 removed - 1 gone (y, cut in tear 2) = 8, not measured.
	assert.Equal(t, judge.Valid, ann.Tears[2].Verdict)
	assert.Equal(t, judge.SkillState{Name: "Tea Ceremony", Remaining: 8, Available: true, Measured: false}, ann.Tears[2].Skills[1])

	for cut := 1; cut <= len(tears); cut++ {
		t.Run(fmt.Sprintf("after tear %d", cut), func(t *testing.T) {
			partial := strings.Replace(full, strings.Join(tears[cut:], ""), "", 1)
			require.NoError(t, os.WriteFile(m.File, []byte(partial), 0o644))
			pm, err := session.Load(m.File, session.Audit)
			require.NoError(t, err)
			db := storetest.MustOpenDB(t)
			r1, _ := newReferee(db)
			_, err = r1.Audit(context.Background(), pm)
			require.NoError(t, err)

			require.NoError(t, os.WriteFile(m.File, []byte(full), 0o644))
			r2, eye := newReferee(db)
			res, err := r2.Audit(context.Background(), m)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, res.Reused, cut, "the tears audited before are re-used")
			assert.Equal(t, want, string(jsonOf(t, res.Rulings)))
			assert.Equal(t, eye.Opened, eye.Closed, "every sheet rebuilt is closed")
		})
	}
}

func TestRulingsAreReproducible(t *testing.T) {
	// The same photos, manifest and versions give byte-identical JSON, with or without a
	// database, in different folders.
	var docs [][]byte
	for i := range 3 {
		m := writeSession(t, twoPlayers, twoPlayerPhotos())
		var db *store.DB
		if i > 0 {
			db = storetest.MustOpenDB(t)
		}
		r, _ := newReferee(db)
		res, err := r.Audit(context.Background(), m)
		require.NoError(t, err)
		docs = append(docs, jsonOf(t, res.Rulings))
	}
	assert.True(t, bytes.Equal(docs[0], docs[1]))
	assert.True(t, bytes.Equal(docs[0], docs[2]))
}

func TestSheetProblems(t *testing.T) {
	manifest := `players:
  - name: Cy
    skills: [Archery]
    sheet: cy-0.jpg
    tears:
      - {photo: cy-1.jpg, kind: use, skill: Archery}
  - name: Di
    sheet: di-0.jpg
    tears:
      - {photo: di-1.jpg, kind: use, skill: Whatever}
`
	ok := fake.JSON(fake.Photo{Pieces: 1, RemovedAreaMM2: 1000, EdgeToEdge: true, TemplateFits: true, PaperFits: true})
	m := writeSession(t, manifest, map[string][]byte{
		"cy-0.jpg": fake.JSON(fake.Sheet{Sheet: true, NoSheet: true}), "cy-1.jpg": ok,
		"di-0.jpg": fake.JSON(fake.Sheet{Sheet: true, Words: []string{"Swordsmanship", "Tea"}}), "di-1.jpg": ok,
	})
	r, _ := newReferee(storetest.MustOpenDB(t))
	var words []referee.Word
	r.OnSheet = func(player string, s judge.SheetResult, w []referee.Word) {
		if player == "Di" {
			words = w
		}
	}
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	cy := res.Rulings.Players[0]
	assert.False(t, cy.Sheet.Found)
	assert.Equal(t, "cy-0.jpg: no sheet of paper found", cy.Sheet.Error)
	// The declared skills are listed, none located (not an empty list: a tester).
	assert.Equal(t, []judge.SkillResult{{Name: "Archery", Letters: 7}}, cy.Sheet.Skills)
	assert.Equal(t, judge.Undecided, cy.Tears[0].Verdict)
	assert.Equal(t, "measurement refused: the untorn sheet could not be read: cy-0.jpg: no sheet of paper found", cy.Tears[0].UndecidedReason)

	di := res.Rulings.Players[1]
	assert.True(t, di.Sheet.Found)
	assert.Equal(t, []judge.SkillResult{}, di.Sheet.Skills)
	// The words found are in the JSON too, not only in the reason's text (a tester).
	assert.Equal(t, []judge.FoundWord{{Text: "Swordsmanship", Confidence: 0.5}, {Text: "Tea", Confidence: 0.5}}, di.Sheet.Words)
	assert.True(t, strings.HasSuffix(di.Tears[0].UndecidedReason, "(percentages are Tesseract's own confidence, unreliable on handwriting: check each word on the sheet)"), di.Tears[0].UndecidedReason)
	assert.Empty(t, cy.Sheet.Words, "declared skills: no discovery")
	assert.Equal(t, []referee.Word{{Text: "Swordsmanship", Confidence: 0.5}, {Text: "Tea", Confidence: 0.5}}, words)
	assert.Equal(t, judge.Undecided, di.Tears[0].Verdict)
	assert.True(t, strings.HasPrefix(di.Tears[0].UndecidedReason, `no skills declared for Di: confirm them among the words found on the sheet`), di.Tears[0].UndecidedReason)
	assert.Contains(t, di.Tears[0].UndecidedReason, `"Swordsmanship" (50%)`)
}

func TestImagesForReport(t *testing.T) {
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	r, _ := newReferee(nil)
	r.Images = true
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	ann := res.Players[0]
	require.Len(t, ann.Tears, 4)
	assert.Equal(t, ann.Sheet, ann.Tears[0].Before, "tear 1 is measured against the fresh sheet")
	assert.Equal(t, ann.Tears[0].After, ann.Tears[1].Before)
	assert.Equal(t, "annotated valid", string(ann.Tears[0].Annotated))
	assert.Nil(t, ann.Tears[3].After, "last ditch has no photo")
	bo := res.Players[1]
	assert.Nil(t, bo.Tears[0].Annotated, "a photo that cannot be read has no annotated image")
	// A refused measurement of a photo that can be read: the photo itself with the ruling's
	// band (fake: "photo" and the verdict and first line), so the GM sees what was refused.
	assert.Equal(t, "photo undecided: tear 2: use Cooking: undecided", string(bo.Tears[1].Annotated))
	assert.Equal(t, bo.Tears[1].Annotated, bo.Tears[1].Thumb)
	assert.Equal(t, bo.Sheet, bo.Tears[2].Before, "Bo's refused photos are not the before of tear 3")
}

func TestMeasurementRoundTrip(t *testing.T) {
	assert.Equal(t, referee.MeasurementFields, reflect.TypeOf(judge.Measurement{}).NumField(),
		"judge.Measurement changed: update storedMeasurement")
	m := judge.Measurement{Refused: "", RemovedAreaMM2: 1.5, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFitsTemplate: true,
		Letters: []judge.SkillLetters{{Name: "A", States: []judge.LetterState{judge.LetterOnSheet, judge.LetterAmbiguous}}, {Name: "B"}},
		Doubts:  []string{"d"}, Notes: []string{"n"}, Uncertain: []judge.Doubt{{About: judge.AboutLetters, Skill: "A", Text: "t"}}}
	got, err := referee.RoundTripMeasurement(m)
	require.NoError(t, err)
	assert.Equal(t, m, got)
}

// TestSamePhotoTwice: a photo file named for a second tear (or the untorn sheet's photo named
// for a tear) is ruled as measured, with a note naming the tear whose photo it is: the same
// picture, not a new one of the sheet (a tester: the second tear was ruled nothing_removed
// without a word).
func TestSamePhotoTwice(t *testing.T) {
	photos := twoPlayerPhotos()
	manifest := strings.NewReplacer("{photo: ann-2.jpg", "{photo: ann-1.jpg", "{photo: bo-1.jpg", "{photo: bo-0.jpg").Replace(twoPlayers)
	m := writeSession(t, manifest, photos)
	r, _ := newReferee(nil)
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	ann, bo := res.Rulings.Players[0], res.Rulings.Players[1]
	sha := ann.Tears[0].SHA256
	require.Equal(t, sha, ann.Tears[1].SHA256)
	assert.Contains(t, ann.Tears[1].Notes, "ann-1.jpg is the same file as tear 1's photo ann-1.jpg (SHA-256 "+sha[:12]+"…): the same picture, not a new one of the sheet")
	for _, n := range append(ann.Tears[0].Notes, ann.Tears[2].Notes...) {
		assert.NotContains(t, n, "same file")
	}
	assert.Contains(t, bo.Tears[0].Notes, "bo-0.jpg is the same file as the untorn sheet's photo bo-0.jpg (SHA-256 "+bo.Tears[0].SHA256[:12]+"…): the same picture, not a new one of the sheet")
}

// TestGMRulingReRulesReusedMeasurement: a GM ruling added to (or changed in) the manifest
// re-uses every measurement and re-rules the state; the JSON is byte-identical to a fresh
// audit's, and the database keeps the GM's ruling with the ruling.
func TestGMRulingReRulesReusedMeasurement(t *testing.T) {
	bo1 := "      - {photo: bo-1.jpg, kind: use, skill: Cooking}\n"
	bo3 := "      - {photo: bo-3.jpg, kind: use, skill: Cooking}\n"
	require.Contains(t, twoPlayers, bo1)
	require.Contains(t, twoPlayers, bo3)
	withGM := func(gm1, gm3 string) string {
		s := twoPlayers
		if gm1 != "" {
			s = strings.Replace(s, bo1, "      - {photo: bo-1.jpg, kind: use, skill: Cooking, gm: "+gm1+"}\n", 1)
		}
		if gm3 != "" {
			s = strings.Replace(s, bo3, "      - {photo: bo-3.jpg, kind: use, skill: Cooking, gm: "+gm3+"}\n", 1)
		}
		return s
	}
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	db := storetest.MustOpenDB(t)
	ctx := context.Background()
	r0, _ := newReferee(db)
	res0, err := r0.Audit(ctx, m)
	require.NoError(t, err)
	bo := res0.Rulings.Players[1]
	// Bo's first photo is not an image: undecided, and no tear owed while it waits; his
	// third tear takes Cooking's last letters but is undecided: he stays in.
	require.Equal(t, judge.Undecided, bo.Tears[0].Verdict)
	assert.Nil(t, bo.Tears[0].GMRuling)
	assert.Equal(t, 0, bo.Tears[2].OwedTears)
	assert.False(t, bo.Tears[2].Out)

	for _, tc := range []struct {
		gm1, gm3 string
		owed     int             // after Bo's tears 1 and 3 (no penalty tear follows)
		out      judge.OutReason // after tear 3
	}{
		{"{verdict: faux_pas, faults: [no_full_letter], note: hand slipped}", "", 1, judge.OutNone},
		{"{verdict: valid}", "", 0, judge.OutNone},
		// The GM rules the last tear valid: Cooking has no letter left as measured, Bo is out.
		{"{verdict: valid}", "{verdict: valid}", 0, judge.OutNoSkillsLeft},
	} {
		t.Run(tc.gm1+tc.gm3, func(t *testing.T) {
			require.NoError(t, os.WriteFile(m.File, []byte(withGM(tc.gm1, tc.gm3)), 0o644))
			gm, err := session.Load(m.File, session.Audit)
			require.NoError(t, err)
			r, eye := newReferee(db)
			res, err := r.Audit(ctx, gm)
			require.NoError(t, err)
			assert.Equal(t, 7, res.Reused, "every measurement re-used")
			assert.Equal(t, 0, eye.MeasureCalls+eye.RegisterCalls+eye.FreshCalls)
			bo := res.Rulings.Players[1]
			assert.Equal(t, judge.Undecided, bo.Tears[0].Verdict, "tearcam's own verdict is kept")
			require.NotNil(t, bo.Tears[0].GMRuling)
			assert.Equal(t, gm.Players[1].Tears[0].GM.Verdict, bo.Tears[0].GMRuling.Verdict)
			assert.Equal(t, tc.owed, bo.Tears[0].OwedTears)
			assert.Equal(t, tc.owed, bo.Tears[2].OwedTears, "carried to later tears")
			assert.Equal(t, judge.Undecided, bo.Tears[2].Verdict)
			assert.Equal(t, tc.out, bo.Tears[2].OutReason)
			assert.Equal(t, tc.out != judge.OutNone, bo.Out)

			fresh, _ := newReferee(nil)
			want, err := fresh.Audit(ctx, gm)
			require.NoError(t, err)
			assert.Equal(t, string(jsonOf(t, want.Rulings)), string(jsonOf(t, res.Rulings)), "byte-identical to a fresh audit")

			sp, err := db.FindPlayer(ctx, "session.yaml", "Bo")
			require.NoError(t, err)
			stored, err := db.Rulings(ctx, sp.ID)
			require.NoError(t, err)
			require.NotNil(t, stored[0].Ruling.GMRuling, "the store keeps the GM's ruling")
			assert.Equal(t, *bo.Tears[0].GMRuling, *stored[0].Ruling.GMRuling)
			assert.Equal(t, tc.owed, stored[0].Ruling.OwedTears)
			// throw and check read the standing from the store: it follows the GM too.
			st, err := db.PlayerState(ctx, "session.yaml", "Bo")
			require.NoError(t, err)
			assert.Equal(t, tc.out != judge.OutNone, st.Out)
			assert.Equal(t, tc.owed, st.Owed)
		})
	}
}

// TestBadPhotosAreListed: a photo that is no image is listed once in Result.BadPhotos, naming
// the file and the tear ruled undecided, on a fresh audit and on a re-run that re-uses its
// measurement; a photo that registration refused is not (its ruling says why).
func TestBadPhotosAreListed(t *testing.T) {
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	db := storetest.MustOpenDB(t)
	want := []string{"bo-1.jpg: not a readable image (Bo's tear 1 is ruled undecided)"}
	for run := 1; run <= 2; run++ {
		r, _ := newReferee(db)
		res, err := r.Audit(context.Background(), m)
		require.NoError(t, err)
		assert.Equal(t, want, res.BadPhotos, "run %d", run)
	}
	photos := twoPlayerPhotos()
	photos["bo-0.jpg"] = []byte("GIF89a garbage")
	m = writeSession(t, twoPlayers, photos)
	r, _ := newReferee(nil)
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, []string{"bo-0.jpg: not a readable image (the untorn sheet of Bo: all of its tears are ruled undecided)"}, res.BadPhotos)
}

// linesEye records the text lines of each photo it annotates.
type linesEye struct {
	*fake.Eye
	drawn [][]string
}

func (e *linesEye) AnnotatePhoto(photo []byte, paper template.Paper, verdict string, lines []string) ([]byte, error) {
	e.drawn = append(e.drawn, lines)
	return e.Eye.AnnotatePhoto(photo, paper, verdict, lines)
}

// TestGMRulingRedrawsRefusedPhoto: a refused tear's image (the photo under the ruling's text)
// is drawn again when a GM's ruling re-rules its re-used measurement, with the GM's line; an
// unchanged re-run draws nothing.
func TestGMRulingRedrawsRefusedPhoto(t *testing.T) {
	bo2 := "      - {photo: bo-2.jpg, kind: use, skill: Cooking}\n"
	require.Contains(t, twoPlayers, bo2)
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	db := storetest.MustOpenDB(t)
	audit := func() *linesEye {
		r, eye := newReferee(db)
		le := &linesEye{Eye: eye}
		r.Eye, r.Images = le, true
		gm, err := session.Load(m.File, session.Audit)
		require.NoError(t, err)
		_, err = r.Audit(context.Background(), gm)
		require.NoError(t, err)
		return le
	}
	require.Len(t, audit().drawn, 2, "bo-1.jpg (no image: the drawing fails) and bo-2.jpg, refused, drawn on the first run")
	assert.Empty(t, audit().drawn, "re-used as it was")
	require.NoError(t, os.WriteFile(m.File, []byte(strings.Replace(twoPlayers, bo2,
		"      - {photo: bo-2.jpg, kind: use, skill: Cooking, gm: {verdict: valid}}\n", 1)), 0o644))
	le := audit()
	require.Len(t, le.drawn, 1, "bo-2.jpg only: bo-1's ruling and bo-3's measured image are as they were")
	assert.Contains(t, le.drawn[0], "undecided -> GM ruled valid", "ASCII: the image's font has no arrow")
}

// TestNothingRemovedAfterUnmeasuredTear: a tear measured against the sheet before an
// unmeasured one (its photo not an image) that finds no paper missing at all removed
// nothing, and neither did the unmeasured tear: nothing_removed for certain, with a note
// (a tester: it was undecided, "cannot be told apart"). With paper missing it stays
// undecided.
func TestNothingRemovedAfterUnmeasuredTear(t *testing.T) {
	nothing := fake.Photo{PaperFits: true}
	torn := fake.Photo{RemovedAreaMM2: 1520.44, Pieces: 1, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RRSSSSS"}}
	m := writeSession(t, `paper: a4
players:
  - name: Ann
    skills: [Archery]
    sheet: ann-0.jpg
    tears:
      - {photo: ann-1.jpg, kind: use, skill: Archery}
      - {photo: ann-2.jpg, kind: use, skill: Archery}
  - name: Bo
    skills: [Archery]
    sheet: bo-0.jpg
    tears:
      - {photo: bo-1.jpg, kind: use, skill: Archery}
      - {photo: bo-2.jpg, kind: use, skill: Archery}
`, map[string][]byte{
		"ann-0.jpg": fake.JSON(fake.Sheet{Sheet: true}), "ann-1.jpg": []byte("GIF89a garbage"), "ann-2.jpg": fake.JSON(nothing),
		"bo-0.jpg": fake.JSON(fake.Sheet{Sheet: true}), "bo-1.jpg": []byte("GIF89a garbage"), "bo-2.jpg": fake.JSON(torn),
	})
	r, _ := newReferee(nil)
	res, err := r.Audit(context.Background(), m)
	require.NoError(t, err)
	ann := res.Rulings.Players[0].Tears[1]
	assert.Equal(t, judge.FauxPas, ann.Verdict, ann.UndecidedReason)
	assert.Equal(t, []judge.Fault{judge.FaultNothingRemoved}, ann.Faults)
	assert.Contains(t, ann.Notes, "measured against the sheet before tear 1, whose photo could not be measured: no paper is missing since then, so that tear removed none either")
	bo := res.Rulings.Players[1].Tears[1]
	assert.Equal(t, judge.Undecided, bo.Verdict)
	assert.Contains(t, bo.UndecidedReason, "cannot be told apart from this one's")
}

// TestRetakeHint: a refused photo's reason says how to photograph the sheet again, fitting
// the refusal: closer for a registration that found too few features (a small remnant shows
// few at a distance), and what to look for when nothing was on the sheet.
func TestRetakeHint(t *testing.T) {
	reg := referee.RetakeHint(fmt.Errorf("%w: only 9 consistent feature matches", vision.ErrRegistration))
	assert.Contains(t, reg, "close enough that it fills most of the photo")
	assert.True(t, strings.HasSuffix(reg, "), or the GM rules"), reg)
	assert.Contains(t, referee.RetakeHint(nil), "if nothing was on it, the GM looks for a hole there")
	assert.Contains(t, referee.RetakeHint(vision.ErrSheetCutOff), "with the whole sheet in view")
	// A file that is no usable image: the original photo file is asked for; but a HEIC's
	// original is the HEIC, and its own message says to save it as JPEG (a tester).
	assert.Equal(t, "; use the original photo file", referee.RetakeHint(fmt.Errorf("a.jpg: %w", vision.ErrNotImage)))
	assert.Equal(t, "", referee.RetakeHint(fmt.Errorf("IMG_0001.HEIC: %w", vision.ErrUnsupportedFormat)))
}

// TestGMRulingRebandsMeasuredImage: a measured tear's annotated image, re-used when a GM's
// ruling re-rules its measurement, shows the ruling that stands (the fake's image names the
// headline it was drawn with): its text band is drawn again (Rebander), with the GM's verdict
// beside tearcam's, and the database keeps the new image for the next run. Before, it kept
// "faux_pas" under a GM's valid.
func TestGMRulingRebandsMeasuredImage(t *testing.T) {
	ann2 := "      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony}\n"
	require.Contains(t, twoPlayers, ann2)
	m := writeSession(t, twoPlayers, twoPlayerPhotos())
	db := storetest.MustOpenDB(t)
	audit := func() *referee.Result {
		r, _ := newReferee(db)
		r.Images = true
		mm, err := session.Load(m.File, session.Audit)
		require.NoError(t, err)
		res, err := r.Audit(context.Background(), mm)
		require.NoError(t, err)
		return res
	}
	res := audit()
	require.Equal(t, judge.FauxPas, res.Rulings.Players[0].Tears[1].Verdict)
	assert.Equal(t, "annotated faux_pas", string(res.Players[0].Tears[1].Annotated))
	require.NoError(t, os.WriteFile(m.File, []byte(strings.Replace(twoPlayers, ann2,
		"      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony, gm: {verdict: valid}}\n", 1)), 0o644))
	for run := range 2 {
		res = audit()
		assert.Equal(t, 7, res.Reused, "run %d: every tear re-used (7 in the manifest)", run)
		r := res.Rulings.Players[0].Tears[1]
		require.NotNil(t, r.GMRuling)
		assert.Equal(t, "GM ruled valid (tearcam: faux_pas)", referee.AnnotationVerdict(r))
		assert.Equal(t, "annotated GM ruled valid (tearcam: faux_pas)", string(res.Players[0].Tears[1].Annotated), "run %d", run)
		assert.Equal(t, "annotated valid", string(res.Players[0].Tears[0].Annotated), "run %d: tear 1 as it was", run)
	}
}

// TestDeferredReread: with DeferReread the OCR re-read of each measured tear is left for later
// (the ruling is out first); the next audit without it does the re-read on the re-used
// measurement and rules as an audit that never deferred does, disagreements and all, and
// stores that. With RereadDoubts a disagreement changes the verdict (undecided): the later
// audit rules it so, never losing it.
func TestDeferredReread(t *testing.T) {
	photos := twoPlayerPhotos()
	var ann2 fake.Photo
	require.NoError(t, json.Unmarshal(photos["ann-2.jpg"], &ann2))
	ann2.Reread = []string{`"Tea Ceremony": letter 11 reads as on the sheet`}
	photos["ann-2.jpg"] = fake.JSON(ann2)
	for _, doubts := range []bool{false, true} {
		t.Run(fmt.Sprintf("doubts=%v", doubts), func(t *testing.T) {
			m := writeSession(t, twoPlayers, photos)
			audit := func(db *store.DB, deferred bool) *referee.Result {
				r, _ := newReferee(db)
				r.RereadDoubts, r.DeferReread = doubts, deferred
				res, err := r.Audit(context.Background(), m)
				require.NoError(t, err)
				return res
			}
			plain := audit(nil, false).Rulings
			db := storetest.MustOpenDB(t)
			first := audit(db, true)
			// Ann's three measured tears and Bo's one: re-reads deferred.
			assert.Equal(t, 4, first.Pending)
			tear2 := first.Rulings.Players[0].Tears[1]
			assert.NotContains(t, strings.Join(tear2.Notes, "\n"), "ocr re-read")
			assert.Equal(t, judge.FauxPas, tear2.Verdict, "ruled before the re-read")
			second := audit(db, false)
			assert.Equal(t, 0, second.Pending)
			assert.Equal(t, 4, second.Reread)
			assert.Equal(t, 7, second.Reused)
			assert.Equal(t, plain, second.Rulings, "as an audit that never deferred")
			if doubts {
				assert.Equal(t, judge.Undecided, second.Rulings.Players[0].Tears[1].Verdict, "the re-read's doubt changes the verdict")
			} else {
				assert.Contains(t, second.Rulings.Players[0].Tears[1].Notes, `ocr re-read: "Tea Ceremony": letter 11 reads as on the sheet`)
			}
			// Stored so: a third audit re-reads nothing and rules the same.
			third := audit(db, false)
			assert.Equal(t, 0, third.Reread+third.Pending)
			assert.Equal(t, plain, third.Rulings)
			p, err := db.FindPlayer(context.Background(), "session.yaml", "Ann")
			require.NoError(t, err)
			stored, err := db.Rulings(context.Background(), p.ID)
			require.NoError(t, err)
			require.Len(t, stored, 4)
			assert.Equal(t, plain.Players[0].Tears[1].Verdict, stored[1].Ruling.Verdict)
		})
	}
}

// TestCopiedManifestReusesMeasurements: the manifest copied under a new name (here to add a
// GM's ruling) is a session of its own in the database, but measures nothing again: each
// fresh sheet's layout and each tear's measurement is re-used from the first session, as
// their inputs (photos' SHA-256, skills, paper, template, versions) and the player's name and
// photo paths are the same; the rulings are those of an audit of the copy from scratch. A
// tear whose photo is named by another path is measured again (measurements may quote it).
func TestCopiedManifestReusesMeasurements(t *testing.T) {
	photos := twoPlayerPhotos()
	m := writeSession(t, twoPlayers, photos)
	db := storetest.MustOpenDB(t)
	audit := func(path, name string, db *store.DB) (*referee.Result, *fake.Eye) {
		r, eye := newReferee(db)
		r.Session = name
		mm, err := session.Load(path, session.Audit)
		require.NoError(t, err)
		res, err := r.Audit(context.Background(), mm)
		require.NoError(t, err)
		return res, eye
	}
	_, eye := audit(m.File, "session.yaml", db)
	require.Positive(t, eye.MeasureCalls)

	ann2 := "      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony}\n"
	copied := filepath.Join(m.Dir, "session-gm.yaml")
	require.NoError(t, os.WriteFile(copied, []byte(strings.Replace(twoPlayers, ann2,
		"      - {photo: ann-2.jpg, kind: damage, skill: Tea Ceremony, gm: {verdict: valid}}\n", 1)), 0o644))
	plain, _ := audit(copied, "session-gm.yaml", nil)
	res, eye := audit(copied, "session-gm.yaml", db)
	assert.Equal(t, 7, res.Reused, "every tear re-used")
	assert.Zero(t, eye.FreshCalls+eye.RegisterCalls+eye.MeasureCalls, "nothing found, registered or measured again")
	assert.Equal(t, plain.Rulings, res.Rulings)
	sessions, err := db.Sessions(context.Background())
	require.NoError(t, err)
	assert.Len(t, sessions, 2, "the copy is a session of its own")
	st, err := db.PlayerState(context.Background(), "", "Ann")
	require.NoError(t, err)
	assert.Equal(t, "session-gm.yaml", st.Session, "throw and check take the most recent")

	// Ann's tear 2's photo under another name: measured again (its path may be quoted).
	require.NoError(t, os.WriteFile(filepath.Join(m.Dir, "ann-2b.jpg"), photos["ann-2.jpg"], 0o644))
	renamed := filepath.Join(m.Dir, "session-renamed.yaml")
	require.NoError(t, os.WriteFile(renamed, []byte(strings.Replace(twoPlayers, "photo: ann-2.jpg", "photo: ann-2b.jpg", 1)), 0o644))
	res, eye = audit(renamed, "session-renamed.yaml", db)
	assert.Equal(t, 6, res.Reused, "all but ann-2b.jpg's tear")
	assert.Equal(t, 2, eye.MeasureCalls, "ann-2b.jpg's tear, and ann-1.jpg's sheet made again as its before")
}
