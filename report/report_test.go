package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

func samplePage() Page {
	hit := true
	ann := judge.PlayerRulings{Name: `Ann <script>alert(1)</script>`,
		Sheet: judge.SheetResult{Photo: "ann-0.jpg", SHA256: "0123456789abcdef0123", Found: true, Skills: []judge.SkillResult{{Name: "Archery", Letters: 7, Located: 7, Confidence: 0.9}}},
		Tears: []judge.TearRuling{
			{Index: 1, Photo: "ann-1.jpg", SHA256: "fedcba9876543210fedc", Kind: judge.KindUse, Skill: "Archery", Verdict: judge.Valid, Faults: []judge.Fault{},
				RemovedAreaMM2: 1520.4, Pieces: 1, EdgeToEdge: true, TemplateFits: true, FullLettersRemoved: 2,
				Skills: []judge.SkillState{{Name: "Archery", Remaining: 5, Available: true, Measured: true},
					{Name: "Dancing", Remaining: 7, Available: true}}, PaperFitsTemplate: true},
			{Index: 2, Photo: "ann-2.jpg", Kind: judge.KindDamage, Skill: "Archery", Verdict: judge.FauxPas,
				Faults: []judge.Fault{judge.FaultNoFullLetter, judge.FaultSeveralPieces}, OwedTears: 1,
				RemovedAreaMM2: 900, Pieces: 2, EdgeToEdge: true, TemplateFits: true,
				Skills: []judge.SkillState{{Name: "Archery", Remaining: 5, Measured: true, Available: true}}, PaperFitsTemplate: true},
			{Index: 3, Photo: "ann-3.jpg", Kind: judge.KindUse, Skill: "Archery", Verdict: judge.Undecided, Faults: []judge.Fault{},
				UndecidedReason: "measurement refused: ann-3.jpg: not a readable image",
				Skills:          []judge.SkillState{{Name: "Archery", Remaining: 5, Measured: true, Available: true}}},
			{Index: 4, Kind: judge.KindLastDitch, Hit: &hit, Verdict: judge.Valid, Faults: []judge.Fault{}, Out: true, OutReason: judge.OutLastDitch,
				Skills: []judge.SkillState{{Name: "Archery", Remaining: 5, Measured: true}}},
		}, Out: true}
	return Page{Title: "session.yaml", Version: "tearcam test", Rulings: judge.NewRulings("a4", template.Default(), []judge.PlayerRulings{ann}),
		Players: []Player{{Sheet: []byte{0xff, 0xd8, 1}, Tears: []Tear{{Before: []byte{1}, After: []byte{2}, Annotated: []byte{3}}}}}}
}

func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, samplePage()))
	html := buf.String()
	for _, want := range []string{
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`Ann &lt;script&gt;alert(1)&lt;/script&gt;`,
		`<img src="data:image/jpeg;base64,/9gB" alt="untorn sheet of Ann &lt;script&gt;alert(1)&lt;/script&gt;">`,
		`<img src="data:image/jpeg;base64,Aw==" alt="tear 1 annotated">`,
		// The annotated image's colours are explained under it (a tester: the report had no
		// key, and a GM on a phone cannot read the README's).
		`alt="tear 1 annotated"><figcaption>annotated: removed paper tinted red, outlined in magenta, tear lines in amber; letters outlined blue (left on the sheet), green (removed whole by this tear), red (cut), orange (too close to call), grey (gone before this tear)`,
		`Faults: <strong>no full letter, several pieces</strong>`,
		// A count of letters left that was never measured is marked; a measured one is not.
		`<tr><td>Dancing</td><td>7?</td></tr>`,
		`<tr><td>Archery</td><td>5</td></tr>`,
		`Undecided: measurement refused: ann-3.jpg: not a readable image`,
		`Last ditch effort: the ball hit the GM.`,
		`Removed 1520 mm² in 1 piece;`,
		`Removed 900 mm² in 2 pieces;`,
		`<td>Archery</td><td>5</td>`,
		`<span class="out">out (last ditch)</span>`,
		// The summary counts the last ditch effort as what it is, not as a valid tear.
		`<td data-label="tears">3</td><td data-label="valid">1</td><td data-label="faux pas">1</td><td data-label="undecided">1</td><td data-label="GM ruled">0</td><td data-label="last ditch">hit</td>`,
		`default (38.1 × 25.4 mm)`,
		// Each photo's SHA-256 ties the ruling to the file an auditor holds (sha256sum).
		`<code>ann-0.jpg</code> <span class="sha" title="SHA-256 0123456789abcdef0123">(SHA-256 0123456789ab)</span>`,
		`photo <code>ann-1.jpg</code> <span class="sha" title="SHA-256 fedcba9876543210fedc">SHA-256 fedcba987654</span>`,
	} {
		assert.Contains(t, html, want)
	}
	assert.NotContains(t, html, "<script>")
	assert.NotContains(t, html, "ZgotmplZ", "a URL was refused by html/template")
	assert.NotContains(t, html, "http", "self-contained: no external resources")

	var again bytes.Buffer
	require.NoError(t, Write(&again, samplePage()))
	assert.Equal(t, html, again.String(), "the same rulings give the same page")
	assert.Equal(t, 1, strings.Count(html, "<html"))
}

// TestUncertainLegend: the "?" of a count not certain is explained once, under its tear's
// table (not on every row), and truly: a count above 0 may hold letters counted as left; a
// 0 is uncertain only because a weak read located the skill, so it is never said to count
// letters as left (a tester).
func TestUncertainLegend(t *testing.T) {
	p := samplePage()
	tears := p.Rulings.Players[0].Tears
	tears[1].Skills = []judge.SkillState{{Name: "Archery", Remaining: 5, Available: true},
		{Name: "Dancing", Remaining: 6, Available: true}, {Name: "Haggling", Remaining: 0}}
	tears[2].Skills = []judge.SkillState{{Name: "Archery", Remaining: 5, Measured: true, Available: true}, {Name: "Haggling", Remaining: 0}}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	articles := strings.Split(buf.String(), "<article")[1:]
	require.Len(t, articles, 4)
	positive := "a letter not located on the fresh sheet, too close to a tear to call, or on paper a tear took that was not measured, is counted as left, or the skill was located by a weak read"
	zero := "a 0? skill was located on the fresh sheet by a weak read, which may be another word: the GM confirms whether a full letter of it is left"
	for i, want := range []string{
		`</table></div>` + "\n" + `<p class="unmeasured">?: not certain: ` + positive + `</p>`,
		`</table></div>` + "\n" + `<p class="unmeasured">?: not certain: ` + positive + "; " + zero + `</p>`,
		`</table></div>` + "\n" + `<p class="unmeasured">?: not certain: ` + zero + `</p>`,
		"",
	} {
		if want == "" {
			assert.NotContains(t, articles[i], "not certain", "tear %d: every count certain", i+1)
			continue
		}
		assert.Contains(t, articles[i], want, "tear %d", i+1)
		assert.Equal(t, 1, strings.Count(articles[i], "not certain"), "tear %d: once", i+1)
	}
	assert.Contains(t, articles[1], `<tr class="lost"><td>Haggling</td><td>0? (unavailable)</td></tr>`)
}

// TestRefusedTearShowsNoMeasurement: a tear undecided because its measurement was refused
// has no measured values (the JSON holds zeros and the paper flag carried from before), so
// the report says "not measured" where a measured tear shows its values.
func TestRefusedTearShowsNoMeasurement(t *testing.T) {
	p := samplePage()
	tears := p.Rulings.Players[0].Tears
	tears[2].PaperFitsTemplate = true // carried from before the tear, as judge does
	tears[2].LettersAsBefore = true   // as judge sets it for a refused measurement
	// An undecided tear that was measured: no "not measured" (its reason is no refusal), and
	// its letters left are as measured (judge applies them).
	measured := tears[2]
	measured.Index = 5
	measured.LettersAsBefore = false
	measured.UndecidedReason = "whether a full letter of Archery was removed is too close to call"
	measured.RemovedAreaMM2, measured.Pieces, measured.EdgeToEdge, measured.TemplateFits = 850, 1, true, true
	p.Rulings.Players[0].Tears = append(tears[:4:4], measured)
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	articles := strings.Split(buf.String(), "<article")[1:]
	require.Len(t, articles, 5)
	tests := []struct {
		name          string
		article       string
		want, notWant []string
	}{
		{"refused", articles[2],
			[]string{"Removed area, pieces, edge to edge, template fit: <strong>not measured</strong>",
				"Paper left covers the template: not measured.", "letters left (as before this tear)"},
			[]string{"covers the template: yes.", "covers the template: no.", "mm²", "piece;", "edge to edge: "}},
		{"measured", articles[0],
			[]string{"Removed 1520 mm² in 1 piece; edge to edge: yes; template fits: yes", "Paper left covers the template: yes."},
			[]string{"not measured<", "not measured.", "as before this tear"}},
		{"undecided, measured", articles[4],
			[]string{"Paper left covers the template: yes.", "<th>letters left</th>",
				"As measured, for a ruling left undecided: removed 850 mm² in 1 piece; edge to edge: yes; template fits: yes"},
			[]string{"not measured<", "not measured.", "as before this tear"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				assert.Contains(t, tc.article, w)
			}
			for _, w := range tc.notWant {
				assert.NotContains(t, tc.article, w)
			}
		})
	}
}

// TestGMRuling: a tear tearcam left undecided and the GM ruled shows tearcam's verdict, then
// "undecided → GM ruled ...", and the state after the GM's ruling; a GM ruling that overrules
// tearcam's says so, in the tear and in the summary.
func TestGMRuling(t *testing.T) {
	p := samplePage()
	ann := &p.Rulings.Players[0]
	ann.Tears[2].GMRuling = &judge.GMRuling{Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNoFullLetter}, Note: "grip changed"}
	ann.Tears[2].OwedTears = 1
	ann.Tears[0].GMRuling = &judge.GMRuling{Verdict: judge.FauxPas, Faults: []judge.Fault{judge.FaultNotEdgeToEdge},
		Overrules: []string{"verdict: tearcam ruled valid"}}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	html := buf.String()
	for _, want := range []string{
		`<span class="badge">undecided</span> <span class="badge gm">GM: faux pas</span>`,
		`<p class="gm"><strong>undecided → GM ruled faux_pas (no_full_letter); &#34;grip changed&#34;</strong>.`,
		`<p class="gm"><strong>valid → GM ruled faux_pas (not_edge_to_edge) (overrules tearcam: verdict: tearcam ruled valid)</strong>.`,
		`<td data-label="GM ruled">2 (1 overruled)</td>`,
		`Tears owed: 1.`,
	} {
		assert.Contains(t, html, want)
	}
}

// TestDiscoveryNoEmptyTable: a player who declared no skills (discovery mode) gets the words
// found, and no letters-left table with a header and no rows under each tear (a tester, as
// the text table once printed an empty "letters left" line).
func TestDiscoveryNoEmptyTable(t *testing.T) {
	p := samplePage()
	di := judge.PlayerRulings{Name: "Di",
		Sheet: judge.SheetResult{Photo: "di-0.jpg", Found: true, Words: []judge.FoundWord{{Text: "Ted", Confidence: 0.97}}},
		Tears: []judge.TearRuling{{Index: 1, Photo: "di-1.jpg", Kind: judge.KindUse, Skill: "hand", Verdict: judge.Undecided,
			Faults: []judge.Fault{}, UndecidedReason: "no skills declared for Di", LettersAsBefore: true}}}
	p.Rulings.Players = []judge.PlayerRulings{di}
	p.Players = nil
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	articles := strings.Split(buf.String(), "<article")[1:]
	require.Len(t, articles, 1)
	assert.Contains(t, articles[0], "Undecided: no skills declared for Di")
	assert.NotContains(t, articles[0], "letters left")
	assert.NotContains(t, articles[0], "<table>")
}
