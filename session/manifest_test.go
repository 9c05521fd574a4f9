package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// designExample is the manifest of DESIGN.md "audit", as written there.
const designExample = `paper: a4                  # a4 | letter | WxH in millimetres, e.g. 210x297
template: default          # or a path to a template JSON file
players:
  - name: "Ann"
    skills: ["Swordsmanship", "Investigation", "Tea Ceremony", "Hopscotch", "Archery", "Cooking"]
    sheet: "ann-0.jpg"     # the untorn sheet
    tears:                 # in order; each photo shows the sheet after that tear
      - {photo: "ann-1.jpg", kind: use, skill: "Swordsmanship"}
      - {photo: "ann-2.jpg", kind: damage, skill: "Hopscotch"}
      - {photo: "ann-3.jpg", kind: penalty, skill: "Hopscotch"}   # the extra tear after a faux pas
      - {kind: last_ditch, hit: true}                             # no photo
`

func TestParseDesignExample(t *testing.T) {
	m, err := Parse("session.yaml", []byte(designExample), Audit)
	require.NoError(t, err)
	assert.Equal(t, "a4", m.PaperName)
	assert.False(t, m.PaperAssumed)
	assert.Equal(t, 210.0, m.Paper.WidthMM)
	assert.Equal(t, template.Default(), m.Template)
	require.Len(t, m.Players, 1)
	p := m.Players[0]
	assert.Equal(t, "Ann", p.Name)
	assert.Equal(t, 4, p.Line)
	assert.Len(t, p.Skills, 6)
	assert.Equal(t, "ann-0.jpg", p.Sheet)
	require.Len(t, p.Tears, 4)
	assert.Equal(t, Tear{Tear: judge.Tear{Kind: judge.KindUse, Skill: "Swordsmanship"}, Photo: "ann-1.jpg", Line: 8}, p.Tears[0])
	assert.Equal(t, judge.KindPenalty, p.Tears[2].Kind)
	assert.Equal(t, Tear{Tear: judge.Tear{Kind: judge.KindLastDitch, Hit: true}, Line: 11}, p.Tears[3])
	assert.Equal(t, 4, m.Tears())
}

func TestParsePlan(t *testing.T) {
	// watch --session: the same manifest without sheet and photos.
	plan := `players:
  - name: Bo
    skills: [Archery, Cooking]
    tears:
      - {kind: use, skill: archery}
`
	m, err := Parse("plan.yaml", []byte(plan), Plan)
	require.NoError(t, err)
	assert.Equal(t, "Archery", m.Players[0].Tears[0].Skill, "skill spelled as declared")
	_, err = Parse("plan.yaml", []byte(plan), Audit)
	assert.ErrorContains(t, err, `plan.yaml:2: player "Bo": no sheet`)

	// An audit manifest given as a plan: its photos would be ignored, so it is refused, at
	// the line of the first photo named.
	_, err = Parse("plan.yaml", []byte("players:\n  - name: Bo\n    skills: [Archery]\n    sheet: bo-0.jpg\n    tears: []\n"), Plan)
	assert.EqualError(t, err, `plan.yaml:4: player "Bo": sheet: a watch plan names no photos, the frames come from --source: leave out sheet and photo (tearcam audit judges photos)`)
	_, err = Parse("plan.yaml", []byte("players:\n  - name: Bo\n    skills: [Archery]\n    tears:\n      - {kind: use, skill: Archery}\n      - {photo: bo-2.jpg, kind: use, skill: Archery}\n"), Plan)
	assert.EqualError(t, err, `plan.yaml:6: player "Bo": tear 2: photo: a watch plan names no photos, the frames come from --source: leave out sheet and photo (tearcam audit judges photos)`)
}

func TestParseErrors(t *testing.T) {
	head := "players:\n  - name: Ann\n    skills: [Archery, Cooking]\n    sheet: a.jpg\n    tears:\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"not yaml", "players: [", "m.yaml:1: not a valid manifest: did not find expected node content"},
		{"tabs", "players:\n\t- name: x", "m.yaml:2: not a valid manifest: found character that cannot start any token"},
		{"scalar", "hello", "m.yaml:1: a manifest is a mapping"},
		{"empty", "", "m.yaml: empty manifest"},
		{"comment only", "# nothing\n", "m.yaml: empty manifest"},
		{"two documents", "players: []\n---\nx: 1\n", "m.yaml:2: more than one YAML document"},
		{"unknown top key", "paper: a4\nplayer: []\n", `m.yaml:2: unknown manifest field "player"`},
		{"no players", "paper: a4\n", "m.yaml: no players"},
		{"bad paper", "paper: b5\nplayers: []\n", `m.yaml:1: paper "b5": want a4, letter or WxH`},
		{"template escapes", "template: ../t.json\nplayers: []\n", `m.yaml:1: template: path "../t.json" leaves the manifest's folder`},
		{"template absolute", "template: /etc/t.json\nplayers: []\n", `m.yaml:1: template: path "/etc/t.json" leaves`},
		{"player not mapping", "players:\n  - Ann\n", "m.yaml:2: a player is a mapping"},
		{"unknown player key", "players:\n  - name: Ann\n    skils: [A]\n", `m.yaml:3: unknown player field "skils"`},
		{"no name", "players:\n  - sheet: a.jpg\n", "m.yaml:2: player 1 has no name"},
		{"skills not list", "players:\n  - name: Ann\n    skills: 5\n", "m.yaml:3: not a valid manifest: cannot unmarshal !!int `5` into []string"},
		{"duplicate player", head + "  - name: ann\n    sheet: b.jpg\n", `m.yaml:6: duplicate player "ann" (first on line 2)`},
		{"duplicate skill", "players:\n  - name: Ann\n    skills: [Archery, archery]\n    sheet: a.jpg\n", `m.yaml:3: player "Ann": skill "archery" declared twice (as "Archery" and "archery")`},
		{"skill without letters", "players:\n  - name: Ann\n    skills: [\"--\"]\n    sheet: a.jpg\n", `skill "--" has no letters`},
		{"sheet escapes", "players:\n  - name: Ann\n    sheet: ../../etc/passwd\n", `m.yaml:3: player "Ann": sheet: path "../../etc/passwd" leaves the manifest's folder`},
		{"sheet absolute", "players:\n  - name: Ann\n    sheet: /etc/passwd\n", `sheet: path "/etc/passwd" leaves`},
		{"unknown kind", head + "      - {photo: b.jpg, kind: usage, skill: Archery}\n", `m.yaml:6: player "Ann": tear 1: unknown kind "usage"`},
		{"no kind", head + "      - {photo: b.jpg, skill: Archery}\n", `tear 1: no kind`},
		{"unknown skill", head + "      - {photo: b.jpg, kind: use, skill: Archery}\n      - {photo: c.jpg, kind: damage, skill: Hopscotch}\n", `m.yaml:7: player "Ann": tear 2: unknown skill "Hopscotch"`},
		{"no skill", head + "      - {photo: b.jpg, kind: use}\n", `tear 1: no skill`},
		{"no photo", head + "      - {kind: use, skill: Archery}\n", `m.yaml:6: player "Ann": tear 1: no photo`},
		{"photo escapes", head + "      - {photo: x/../../b.jpg, kind: use, skill: Archery}\n", `tear 1: photo: path "x/../../b.jpg" leaves`},
		{"backslash", head + "      - {photo: 'x\\b.jpg', kind: use, skill: Archery}\n", `use / between folders`},
		{"unknown tear key", head + "      - {photo: b.jpg, kind: use, skill: Archery, hits: 1}\n", `m.yaml:6: unknown tear field "hits"`},
		{"hit on use", head + "      - {photo: b.jpg, kind: use, skill: Archery, hit: true}\n", `tear 1: hit is only for last_ditch`},
		{"last ditch photo", head + "      - {photo: b.jpg, kind: last_ditch, hit: true}\n", `tear 1: last_ditch takes no photo`},
		{"last ditch without hit", head + "      - {kind: last_ditch}\n", `tear 1: last_ditch needs hit: true or false`},
		{"duplicate key", "paper: a4\npaper: letter\nplayers: []\n", `m.yaml:2: not a valid manifest: mapping key "paper" already defined at line 1`},
		{"not utf8", "players: [\xff]\n", "m.yaml: not UTF-8 text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.yaml", []byte(tc.yaml), Audit)
			require.Error(t, err)
			var me *Error
			require.True(t, errors.As(err, &me), "%T", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "m.yaml"), err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestLoadChecksFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	write("photos/ann-0.jpg", "x")
	write("photos/ann-1.jpg", "x")
	write("tri.json", `{"name":"tri","polygon_mm":[[0,0],[40,0],[0,30]]}`)
	write("bad.json", `{"polygon_mm":[[0,0]]}`)
	write("huge.json", `{"name":"huge","polygon_mm":[[0,0],[1000,0],[1000,1000],[0,1000]]}`)
	outside := filepath.Join(t.TempDir(), "secret.jpg")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.jpg")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.jpg"), 0o755))

	manifest := func(tmpl, sheet string) string {
		return write("session.yaml", "paper: letter\ntemplate: "+tmpl+"\nplayers:\n  - name: Ann\n    skills: [Archery]\n    sheet: "+sheet+
			"\n    tears:\n      - {photo: photos/ann-1.jpg, kind: use, skill: Archery}\n")
	}
	m, err := Load(manifest("tri.json", "photos/ann-0.jpg"), Audit)
	require.NoError(t, err)
	assert.Equal(t, "tri", m.Template.Name)
	assert.Equal(t, dir, m.Dir)
	assert.Equal(t, filepath.Join(dir, "photos", "ann-1.jpg"), m.Path(m.Players[0].Tears[0].Photo))

	// A photo that does not exist (or is a folder) is a bad photo, not a bad manifest: the
	// manifest loads and lists it in Missing, so that every other tear can still be ruled.
	for _, tc := range []struct{ sheet, want string }{
		{"photos/nope.jpg", `session.yaml:6: player "Ann": sheet: photos/nope.jpg: no such file`},
		{"folder.jpg", `session.yaml:6: player "Ann": sheet: folder.jpg: not a regular file`},
	} {
		m, err := Load(manifest("default", tc.sheet), Audit)
		require.NoError(t, err)
		require.Len(t, m.Missing, 1)
		assert.Equal(t, filepath.Join(dir, tc.want), m.Missing[0].Error())
		assert.True(t, m.Missing[0].Sheet, "a missing sheet rules all of the player's tears undecided")
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "photos", "ann-1.jpg")))
	m, err = Load(manifest("default", "photos/ann-0.jpg"), Audit)
	require.NoError(t, err)
	require.Len(t, m.Missing, 1)
	assert.Equal(t, filepath.Join(dir, `session.yaml:8: player "Ann": tear 1: photos/ann-1.jpg: no such file`), m.Missing[0].Error())
	assert.False(t, m.Missing[0].Sheet)

	tests := []struct{ name, tmpl, sheet, want string }{
		{"symlink out", "default", "link.jpg", `sheet: link.jpg: leads out of the manifest's folder`},
		// The template file's errors name the manifest's line, as every other manifest error.
		{"missing template", "t.json", "photos/ann-0.jpg", `session.yaml:2: template: t.json: no such file`},
		{"bad template", "bad.json", "photos/ann-0.jpg", `session.yaml:2: template bad.json: template polygon needs at least 3 points`},
		{"template larger than the paper", "huge.json", "photos/ann-0.jpg", `session.yaml:2: template "huge" (1000.0 x 1000.0 mm) does not fit on the paper letter (215.9 x 279.4 mm)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(manifest(tc.tmpl, tc.sheet), Audit)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), filepath.Join(dir, "session.yaml")), err.Error())
		})
	}
	_, err = Load(filepath.Join(dir, "nope.yaml"), Audit)
	assert.ErrorContains(t, err, "nope.yaml: no such file or directory")
	_, err = Load(dir, Audit)
	assert.ErrorContains(t, err, "is a folder")
}

// TestSkillDeclaredTwiceSpellings: a skill declared twice names both spellings when they
// differ ("Hand" and "HAND" look like two skills to whoever wrote them), and one when not.
func TestSkillDeclaredTwiceSpellings(t *testing.T) {
	for _, tc := range []struct{ skills, want string }{
		{"[Hand, HAND]", `m.yaml:3: player "Ann": skill "HAND" declared twice (as "Hand" and "HAND")`},
		{"[Hand, Archery, Hand]", `m.yaml:3: player "Ann": skill "Hand" declared twice`},
		{`[Hand, " hand "]`, `m.yaml:3: player "Ann": skill "hand" declared twice (as "Hand" and "hand")`},
	} {
		_, err := Parse("m.yaml", []byte("players:\n  - name: Ann\n    skills: "+tc.skills+"\n    sheet: a.jpg\n"), Audit)
		assert.EqualError(t, err, tc.want, tc.skills)
	}
}

// TestNamesAreNormalised: a skill typed as "Café" with a precomposed é and again with e
// plus a combining acute accent is the same skill declared twice.
func TestNamesAreNormalised(t *testing.T) {
	nfc, nfd := "Caf\u00e9", "Cafe\u0301"
	require.NotEqual(t, nfc, nfd)
	_, err := Parse("m.yaml", []byte("players:\n  - name: A\n    skills: [\""+nfc+"\", \""+nfd+"\"]\n"), Plan)
	assert.ErrorContains(t, err, "declared twice")
	m, err := Parse("m.yaml", []byte("players:\n  - name: A\n    skills: [\""+nfd+"\"]\n    tears:\n      - {kind: use, skill: \""+nfc+"\"}\n"), Plan)
	require.NoError(t, err)
	assert.Equal(t, nfc, m.Players[0].Skills[0])
	assert.Equal(t, nfc, m.Players[0].Tears[0].Skill)
	// A ligature and its letters, and a name with a zero-width space, are the same name.
	for _, pair := range [][2]string{{"\ufb01sh", "fish"}, {"Te\u200bxt", "Text"}} {
		_, err := Parse("m.yaml", []byte("players:\n  - name: A\n    skills: [\""+pair[0]+"\", \""+pair[1]+"\"]\n"), Plan)
		assert.ErrorContains(t, err, "declared twice", "%q", pair[0])
		assert.Equal(t, pair[1], Name(pair[0]))
	}
}

// A penalty tear may name no skill: the tear owed after a faux pas takes its full letter
// from any skill (judge), and `watch` writes such tears into the manifests it saves.
func TestParsePenaltyWithoutSkill(t *testing.T) {
	m, err := Parse("session.yaml", []byte(`players:
  - name: Bo
    skills: [Archery, Cooking]
    sheet: bo-0.jpg
    tears:
      - {photo: bo-1.jpg, kind: use, skill: Archery}
      - {photo: bo-2.jpg, kind: penalty}
`), Audit)
	require.NoError(t, err)
	assert.Equal(t, Tear{Tear: judge.Tear{Kind: judge.KindPenalty}, Photo: "bo-2.jpg", Line: 7}, m.Players[0].Tears[1])
	// No paper given: A4, and the manifest says it was assumed.
	assert.Equal(t, "a4", m.PaperName)
	assert.True(t, m.PaperAssumed)
	_, err = Parse("session.yaml", []byte(`players:
  - name: Bo
    skills: [Archery, Cooking]
    sheet: bo-0.jpg
    tears:
      - {photo: bo-1.jpg, kind: damage}
`), Audit)
	assert.ErrorContains(t, err, "tear 1: no skill: a damage tear names the skill")
}

// gmExample is a manifest with the GM's rulings on tears (README "The GM's ruling").
const gmExample = `paper: a4
players:
  - name: Mateo
    skills: ["Tea Ceremony", "Archery"]
    sheet: m-0.jpg
    tears:
      - {photo: m-1.jpg, kind: use, skill: archery, gm: {verdict: faux_pas, faults: [several_pieces, no_full_letter], note: "grip changed"}}
      - photo: m-2.jpg
        kind: penalty
        gm:
          verdict: valid
          remaining: {"tea ceremony": 0, Archery: 0}
          out: no_skills_left
      - {photo: m-3.jpg, kind: damage, skill: Archery, gm: {verdict: valid, paper_fits_template: false}}
`

func TestParseGMRuling(t *testing.T) {
	m, err := Parse("s.yaml", []byte(gmExample), Audit)
	require.NoError(t, err)
	ts := m.Players[0].Tears
	require.Len(t, ts, 3)
	assert.Equal(t, &judge.GMRuling{Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNoFullLetter, judge.FaultSeveralPieces},
		Note: "grip changed"}, ts[0].GM, "faults in reporting order")
	assert.Equal(t, &judge.GMRuling{Verdict: judge.Valid, Faults: []judge.Fault{}, Out: judge.OutNoSkillsLeft,
		Remaining: map[string]int{"Tea Ceremony": 0, "Archery": 0}}, ts[1].GM, "skills as declared")
	f := false
	assert.Equal(t, &judge.GMRuling{Verdict: judge.Valid, Faults: []judge.Fault{}, PaperFitsTemplate: &f}, ts[2].GM)
	assert.Equal(t, judge.Tear{Kind: judge.KindUse, Skill: "Archery"}, ts[0].Tear, "the tear as announced is unchanged")

	head := "players:\n  - name: Ann\n    skills: [Archery, Cooking]\n    sheet: a.jpg\n    tears:\n"
	tests := []struct{ name, tear, want string }{
		{"unknown verdict", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: fine}}",
			`s.yaml:6: player "Ann": tear 1: gm: unknown verdict "fine": want valid or faux_pas`},
		{"undecided", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: undecided}}",
			`s.yaml:6: player "Ann": tear 1: gm: verdict undecided: the GM decides, want valid or faux_pas (leave gm out to keep tearcam's ruling)`},
		{"unknown fault", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: faux_pas, faults: [grip]}}",
			`s.yaml:6: player "Ann": tear 1: gm: unknown fault "grip": want nothing_removed, no_full_letter, piece_too_small, not_edge_to_edge, several_pieces`},
		{"unknown skill", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {Swordsmanship: 3}}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining: unknown skill "Swordsmanship": not among the player's skills (Archery, Cooking)`},
		{"too many letters", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {Archery: 8}}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining: "Archery" has 7 letters: want 0 to 7, not 8`},
		{"unknown field", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, owed: 1}}",
			`s.yaml:6: unknown gm field "owed": want verdict, faults, remaining, paper_fits_template, out, note`},
		{"not a mapping", "{photo: b.jpg, kind: use, skill: Archery, gm: valid}",
			`s.yaml:6: a tear's gm is a mapping with verdict, faults, remaining, paper_fits_template, out, note`},
		{"last ditch", "{kind: last_ditch, hit: true, gm: {verdict: valid}}",
			`s.yaml:6: player "Ann": tear 1: gm: a last_ditch is not measured, there is nothing to rule (hit says how it went)`},
		{"not a number", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {Archery: many}}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining: "Archery": want a whole number of letters, not "many"`},
		{"a fraction", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {Archery: 2.5}}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining: "Archery": want a whole number of letters, not "2.5"`},
		{"a quoted number", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: {Archery: \"3\"}}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining: "Archery": want a whole number of letters, not "3"`},
		{"yes for true", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, paper_fits_template: \"yes\"}}",
			`s.yaml:6: player "Ann": tear 1: gm: paper_fits_template is true or false, not "yes"`},
		{"faults not a list", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: faux_pas, faults: no_full_letter}}",
			`s.yaml:6: player "Ann": tear 1: gm: faults is a list, e.g. faults: [no_full_letter]`},
		{"remaining not a mapping", "{photo: b.jpg, kind: use, skill: Archery, gm: {verdict: valid, remaining: 3}}",
			`s.yaml:6: player "Ann": tear 1: gm: remaining maps each skill to its letters left, e.g. remaining: {Archery: 4}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(head+"      - "+tc.tear+"\n"), Audit)
			assert.EqualError(t, err, tc.want)
			var me *Error
			assert.True(t, errors.As(err, &me))
		})
	}
	_, err = Parse("p.yaml", []byte("players:\n  - name: Bo\n    skills: [Archery]\n    tears:\n      - {kind: use, skill: Archery, gm: {verdict: valid}}\n"), Plan)
	assert.EqualError(t, err, `p.yaml:5: player "Bo": tear 1: gm: a watch plan says what the camera will see: the GM's rulings go in an audit manifest`)
}
