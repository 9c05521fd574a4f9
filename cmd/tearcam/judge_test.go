package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/ocr"
	"tearcam/referee/fake"
)

func fakeJudge(iostreams *IO) *cobra.Command {
	return newJudgeCmd(iostreams, func(o *judgeOptions) error {
		o.NewPipeline = newFakePipeline
		return runJudge(context.Background(), o)
	})
}

func judgePhotos(t *testing.T) (before, after, bad string) {
	dir := t.TempDir()
	before, after, bad = filepath.Join(dir, "fresh.jpg"), filepath.Join(dir, "torn.jpg"), filepath.Join(dir, "bad.jpg")
	p := fake.Photo{RemovedAreaMM2: 1200, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RRSSSSS"}}
	require.NoError(t, os.WriteFile(before, fake.JSON(fake.Sheet{Sheet: true}), 0o644))
	require.NoError(t, os.WriteFile(after, fake.JSON(p), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("hello"), 0o644))
	return before, after, bad
}

func TestJudgeJSON(t *testing.T) {
	before, after, _ := judgePhotos(t)
	code, stdout, stderr := execute(t, fakeJudge, "--before", before, "--after", after, "--skills", "Archery, Cooking",
		"--tear", "use:archery", "--json")
	require.Equal(t, 0, code, stderr)
	var doc judge.Rulings
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	require.Len(t, doc.Players, 1)
	assert.Equal(t, "player", doc.Players[0].Name)
	require.Len(t, doc.Players[0].Tears, 1)
	r := doc.Players[0].Tears[0]
	assert.Equal(t, judge.FauxPas, r.Verdict)
	assert.Equal(t, []judge.Fault{judge.FaultSeveralPieces}, r.Faults)
	assert.Equal(t, "Archery", r.Skill, "spelled as in --skills")
	assert.Equal(t, 2, r.FullLettersRemoved)
	assert.Equal(t, after, r.Photo)
	assert.Equal(t, "a4", doc.Paper)
}

func TestJudgeTableAndBadPhoto(t *testing.T) {
	before, _, bad := judgePhotos(t)
	code, stdout, stderr := execute(t, fakeJudge, "--before", before, "--after", bad, "--skills", "Archery,Cooking", "--tear", "damage:Cooking")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "undecided  measurement refused: "+bad+": not a readable image")
	// What the unreadable photo's tear took is not measured: the counts carry "?".
	assert.Contains(t, stdout, "letters left (as before this tear): Archery 7?, Cooking 7?")
	assert.Equal(t, "tearcam: "+bad+": not a readable image (player's tear 1 is ruled undecided)\n", stderr,
		"one line naming the file, as audit prints it")
}

// TestJudgePaperAssumed: without --paper, judge measures the sheet as A4 (the flag's default)
// and says so in the ruling's notes and under the table, not on stderr (one line per bad
// photo there): A4 and US letter look alike in a photo. With --paper given, nothing is said.
func TestJudgePaperAssumed(t *testing.T) {
	before, after, _ := judgePhotos(t)
	const note = "paper assumed a4 (--paper not given): a US letter sheet looks alike in a photo and would be measured at the wrong scale (6% in height): give --paper a4 or --paper letter"
	for _, tc := range []struct {
		paper []string
		want  bool
	}{{nil, true}, {[]string{"--paper", "a4"}, false}, {[]string{"--paper", "letter"}, false}} {
		args := append([]string{"--before", before, "--after", after, "--skills", "Archery", "--tear", "use:Archery"}, tc.paper...)
		code, stdout, stderr := execute(t, fakeJudge, append(args, "--json")...)
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, stderr, "%v", tc.paper)
		var doc judge.Rulings
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		assert.Equal(t, tc.want, slices.Contains(doc.Players[0].Tears[0].Notes, note), "%v: %q", tc.paper, doc.Players[0].Tears[0].Notes)

		code, stdout, stderr = execute(t, fakeJudge, args...)
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, stderr, "%v", tc.paper)
		assert.Equal(t, tc.want, strings.HasSuffix(stdout, "\n       "+note+"\n"), "%v: %s", tc.paper, stdout)
		assert.Equal(t, tc.want, strings.Contains(stdout, "paper assumed"), "%v: %s", tc.paper, stdout)
	}
}

// TestJudgeGMAdvice: an undecided ruling's advice to the GM says what a judge user can do;
// it said "gm: in the manifest", and judge has no manifest (a tester).
func TestJudgeGMAdvice(t *testing.T) {
	dir := t.TempDir()
	before, after := filepath.Join(dir, "fresh.jpg"), filepath.Join(dir, "torn.jpg")
	p := fake.Photo{RemovedAreaMM2: 1200, Pieces: 2, EdgeToEdge: true, TemplateFits: true, PaperFits: true,
		Letters: map[string]string{"Archery": "RSSSSSS"}, Doubts: []string{"the two pieces may be one"}}
	require.NoError(t, os.WriteFile(before, fake.JSON(fake.Sheet{Sheet: true}), 0o644))
	require.NoError(t, os.WriteFile(after, fake.JSON(p), 0o644))
	code, stdout, stderr := execute(t, fakeJudge, "--before", before, "--after", after, "--skills", "Archery", "--tear", "use:Archery", "--json")
	require.Equal(t, 0, code, stderr)
	var doc judge.Rulings
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	r := doc.Players[0].Tears[0]
	require.Equal(t, judge.Undecided, r.Verdict, "the doubt on the pieces leaves several_pieces undecided")
	assert.True(t, strings.HasSuffix(r.UndecidedReason, ", then rules on this tear (tearcam judge keeps no record; tearcam audit records the ruling as this tear's gm: in the session manifest)"), r.UndecidedReason)
	assert.NotContains(t, r.UndecidedReason, "(gm: in the manifest)")
}

// TestJudgeBadBefore: an untorn sheet's photo that is no image (a tester: exit 0, an
// undecided ruling, and not a word on stderr) gives the undecided ruling, exit status 0
// (a ruling was written, as audit does for a bad photo) and one line on stderr naming it.
func TestJudgeBadBefore(t *testing.T) {
	_, after, bad := judgePhotos(t)
	for _, args := range [][]string{{}, {"--json"}} {
		code, stdout, stderr := execute(t, fakeJudge, append([]string{"--before", bad, "--after", after, "--skills", "Archery", "--tear", "use:Archery"}, args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "undecided")
		assert.Equal(t, "tearcam: "+bad+": not a readable image (the untorn sheet of player: its tear is ruled undecided)\n", stderr)
	}
}

func TestJudgeUsage(t *testing.T) {
	before, after, _ := judgePhotos(t)
	base := []string{"--before", before, "--after", after}
	huge := filepath.Join(t.TempDir(), "huge.json")
	require.NoError(t, os.WriteFile(huge, []byte(`{"name":"huge","polygon_mm":[[0,0],[1000,0],[1000,1000],[0,1000]]}`), 0o644))
	tests := []struct {
		args []string
		want string
	}{
		{append(base, "--skills", "Archery", "--tear", "use:Cooking"), `"Cooking" is not among --skills`},
		{append(base, "--skills", "Archery", "--tear", "rip:Archery"), `want KIND:SKILL with KIND use, damage or penalty`},
		{append(base, "--skills", "Archery", "--tear", "use"), `name the skill`},
		{append(base, "--skills", "Archery,archery", "--tear", "use:Archery"), `--skills: "archery" given twice (as "Archery" and "archery")`},
		// "Café" with a precomposed é, then with e and a combining accent: the same skill.
		{append(base, "--skills", "Caf\u00e9,Cafe\u0301", "--tear", "use:Caf\u00e9"), `given twice`},
		{append(base, "--skills", "Archery", "--tear", "use:Archery", "--template", huge), `does not fit on the paper a4`},
		{append(base, "--skills", " , ", "--tear", "use:Archery"), `no skill given`},
		{append(base, "--skills", "Archery,,Cooking", "--tear", "use:Archery"), `--skills "Archery,,Cooking": skill 2 is empty`},
		{append(base, "--skills", "Archery,Cooking,", "--tear", "use:Archery"), `--skills "Archery,Cooking,": skill 3 is empty`},
		{append(base, "--skills", ",Archery", "--tear", "use:Archery"), `--skills ",Archery": skill 1 is empty`},
		{append(base, "--skills", "Archery", "--tear", "use:Archery", "--paper", "b5"), `--paper`},
		{append(base, "--skills", "Archery", "--tear", "use:Archery", "--template", "nope.json"), `template nope.json`},
		{[]string{"--before", before + ".missing", "--after", after, "--skills", "Archery", "--tear", "use:Archery"}, `--before`},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.args[4:]), func(t *testing.T) {
			code, stdout, stderr := execute(t, fakeJudge, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"))
		})
	}
	// One tear: a second --tear (or any flag given twice) is bad usage, not the last taken.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--skills", "Archery,Cooking", "--tear", "use:Archery", "--tear", "use:Cooking"}, `tearcam: invalid argument "use:Cooking" for "--tear" flag: given twice (first "use:Archery"): give it once`},
		{[]string{"--skills", "Archery", "--skills", "Cooking", "--tear", "use:Cooking"}, `tearcam: invalid argument "Cooking" for "--skills" flag: given twice (first "Archery")`},
		{[]string{"--skills", "Archery", "--tear", "use:Archery", "--paper", "a4", "--paper", "letter"}, `"--paper" flag: given twice`},
	} {
		iostreams, stdout, errOut := testIO()
		assert.Equal(t, 2, Main(append([]string{"judge", "--before", before, "--after", after}, tc.args...), iostreams))
		assert.Empty(t, stdout.String())
		assert.Contains(t, errOut.String(), tc.want)
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"))
	}
	// Missing required flags are bad usage through Main too.
	iostreams, _, errOut := testIO()
	assert.Equal(t, 2, Main([]string{"judge", "--before", before}, iostreams))
	assert.Contains(t, errOut.String(), "required flag")
}

// A skill in another script is accepted (it is the player's), and the GM is told at once
// that the OCR's English model cannot read it, so its "not located" is no surprise.
func TestJudgeWarnsUnreadableSkill(t *testing.T) {
	before, after, _ := judgePhotos(t)
	code, _, stderr := execute(t, fakeJudge, "--before", before, "--after", after, "--skills", "Archery,Привет", "--tear", "use:Archery")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `note: player's skill "Привет" has letters outside the Latin alphabet (Привет), which tearcam's OCR (Tesseract, English model) cannot read: it will be reported not located`)
	assert.NotContains(t, stderr, `"Archery"`)
	assert.Equal(t, []rune("Ψ"), ocr.Unreadable("Caf\u00e9 Ψž"), "Latin letters with accents are read")
}
