package judge

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/template"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestRulingsGolden rules a whole session (every verdict, fault order, owed and penalty
// tears, an undecided tear caught up by the next one, both ways out) and compares the
// --json document with testdata/rulings.golden.json, a readable dump reviewed by hand.
// Run with -update to rewrite it after a deliberate change, and review the diff.
func TestRulingsGolden(t *testing.T) {
	ann := PlayerInput{Name: "Ann", Skills: []string{"Hop", "Axe"},
		Sheet:   SheetResult{Photo: "ann-0.jpg", SHA256: "a0", Found: true, Skills: []SkillResult{{"Hop", 3, 3, 0.9}, {"Axe", 3, 3, 0.9}}},
		Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
		Tears: []TearInput{
			// H removed: valid, Hop 2.
			{Photo: "ann-1.jpg", SHA256: "a1", Tear: use("Hop"), Measurement: meas("ROO", "OOO")},
			// A only cut, and two pieces: faux pas [no_full_letter several_pieces], owes 1.
			{Photo: "ann-2.jpg", SHA256: "a2", Tear: damage("Axe"), Measurement: with(meas("GOO", "COO"), func(m *Measurement) { m.Pieces = 2 })},
			// ambiguous o: undecided, nothing changes.
			{Photo: "ann-3.jpg", SHA256: "a3", Tear: penalty("Hop"), Measurement: meas("GAO", "GOO")},
			// o gone in tear 3 after all, x removed: valid penalty, pays: owed 0. Hop 1, Axe 1.
			{Photo: "ann-4.jpg", SHA256: "a4", Tear: penalty("Axe"), Measurement: with(meas("GGO", "GRO"), func(m *Measurement) { m.PaperFitsTemplate = false })},
			// asked to tear with too little paper: out.
			{Photo: "ann-5.jpg", SHA256: "a5", Tear: use("Hop"), Measurement: meas("GGR", "GGO")},
		}}
	bo := PlayerInput{Name: "Bo", Skills: []string{"Hop", "Axe"},
		Sheet:   SheetResult{Photo: "bo-0.jpg", SHA256: "b0", Found: true, Skills: []SkillResult{{"Hop", 3, 3, 0.9}, {"Axe", 3, 3, 0.9}}},
		Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
		Tears: []TearInput{
			{Photo: "bo-1.jpg", SHA256: "b1", Tear: use("Axe"), Measurement: Measurement{Refused: "sheet not found in bo-1.jpg"}},
			{Tear: Tear{Kind: KindLastDitch, Skill: "Flying", Hit: true}},
		}}
	cy := PlayerInput{Name: "Cy", Skills: []string{"Hop", "Axe"},
		Sheet:   SheetResult{Photo: "cy-0.jpg", SHA256: "c0", Found: true, Skills: []SkillResult{{"Hop", 3, 3, 0.9}, {"Axe", 3, 3, 0.9}}},
		Layouts: []SkillLayout{layout("Hop"), layout("Axe")},
		Tears: []TearInput{
			// every letter gone: no skills left.
			{Photo: "cy-1.jpg", SHA256: "c1", Tear: use("Hop"), Measurement: meas("RRR", "CRC")},
		}}
	doc := NewRulings("a4", template.Default(), []PlayerRulings{RulePlayer(ann), RulePlayer(bo), RulePlayer(cy)})
	got, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", "rulings.golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
