package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"tearcam/judge"
)

// Page is everything one report shows.
type Page struct {
	Title    string        // e.g. the manifest's name
	Version  string        // the program versions that made the rulings
	Rulings  judge.Rulings // the --json document
	Players  []Player      // pictures and words, in the order of Rulings.Players (may be shorter)
	Manifest string        // the manifest's name as given, shown in the header
}

// Player holds one player's pictures (JPEG bytes; nil where there is none) and, in
// discovery mode, the words found on the sheet.
type Player struct {
	Sheet []byte
	Words []Word
	Tears []Tear // in the order of the player's rulings
}

// Word is a word found on a sheet whose skills were not declared.
type Word struct {
	Text       string
	Confidence float64
}

// Tear holds one tear's pictures (JPEG bytes).
type Tear struct {
	Before, After, Annotated []byte
}

// Write writes the page as HTML to w.
func Write(w io.Writer, p Page) error {
	if err := page.Execute(w, view(p)); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// The view model: what the template ranges over.
type pageView struct {
	Title, Version, Manifest, Paper, Template string
	Summary                                   []summaryRow
	Players                                   []playerView
}

type summaryRow struct {
	Name                                     string
	Tears, Valid, FauxPas, Undecided, Reused int // tears: a last ditch effort is none
	// GMRuled counts the tears the GM ruled (undecided ones resolved, decided ones confirmed
	// or overruled), Overruled those where the GM's ruling differs from tearcam's.
	GMRuled, Overruled int
	// LastDitch is the last ditch effort's outcome ("hit", "missed"), "" when none was made;
	// it is counted here, not as a valid tear.
	LastDitch string
	Out       bool
	OutReason string
}

type playerView struct {
	Anchor string
	judge.PlayerRulings
	SheetImg template.URL
	Words    []Word
	Tears    []tearView
}

type tearView struct {
	judge.TearRuling
	Before, After, Annotated template.URL
	Class                    string
	Faults                   string
	// Refused: the tear is undecided because its measurement was refused, so it has no
	// measured values to show (the JSON's zeros and carried flags are not measurements).
	Refused bool
	// GM is the GM's ruling as read ("undecided → GM ruled ..."), "" when there is none.
	GM string
}

// refusedReason is how judge starts the reason of a tear whose measurement was refused.
const refusedReason = "measurement refused"

func view(p Page) pageView {
	v := pageView{Title: p.Title, Version: p.Version, Manifest: p.Manifest, Paper: p.Rulings.Paper,
		Template: templateText(p.Rulings)}
	if v.Title == "" {
		v.Title = "tearcam rulings"
	}
	for i, pr := range p.Rulings.Players {
		var imgs Player
		if i < len(p.Players) {
			imgs = p.Players[i]
		}
		pv := playerView{Anchor: fmt.Sprintf("p%d", i+1), PlayerRulings: pr, SheetImg: dataURL(imgs.Sheet), Words: imgs.Words}
		row := summaryRow{Name: pr.Name, Out: pr.Out}
		for j, t := range pr.Tears {
			var ti Tear
			if j < len(imgs.Tears) {
				ti = imgs.Tears[j]
			}
			tv := tearView{TearRuling: t, Before: dataURL(ti.Before), After: dataURL(ti.After),
				Annotated: dataURL(ti.Annotated), Class: string(t.Verdict),
				Refused: t.Verdict == judge.Undecided && strings.Contains(t.UndecidedReason, refusedReason)}
			fs := make([]string, len(t.Faults))
			for k, f := range t.Faults {
				fs[k] = strings.ReplaceAll(string(f), "_", " ")
			}
			tv.Faults = strings.Join(fs, ", ")
			switch {
			case t.Kind == judge.KindLastDitch:
				row.LastDitch = "made"
				if t.Hit != nil && *t.Hit {
					row.LastDitch = "hit"
				} else if t.Hit != nil {
					row.LastDitch = "missed"
				}
			case t.Verdict == judge.Valid:
				row.Valid++
			case t.Verdict == judge.FauxPas:
				row.FauxPas++
			default:
				row.Undecided++
			}
			if t.Kind != judge.KindLastDitch {
				row.Tears++
			}
			if t.GMRuling != nil {
				if t.GMRuling.Ignored == "" {
					// A ruling on a tear after the character was out changed nothing.
					row.GMRuled++
				}
				if len(t.GMRuling.Overrules) > 0 {
					row.Overruled++
				}
				tv.GM = judge.GMLine(t)
			}
			if t.Out {
				row.OutReason = string(t.OutReason)
			}
			pv.Tears = append(pv.Tears, tv)
		}
		v.Summary = append(v.Summary, row)
		v.Players = append(v.Players, pv)
	}
	return v
}

func templateText(r judge.Rulings) string {
	minX, minY, maxX, maxY := r.Template.Bounds()
	if len(r.Template.PolygonMM) == 0 {
		return r.Template.Name
	}
	return fmt.Sprintf("%s (%.1f × %.1f mm)", r.Template.Name, maxX-minX, maxY-minY)
}

// dataURL inlines JPEG bytes. The bytes are ours (encoded by tearcam), so the URL is safe.
func dataURL(b []byte) template.URL {
	if len(b) == 0 {
		return ""
	}
	return template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b))
}

// AnnotationKey says what the colours of an annotated image mean (vision.Annotate draws
// them: colRemoved, colPiece, colTear, letterColor, colTplPiece, colTplPaper, colPlace), for
// the caption under each annotated image: a GM reading the report on a phone has no other
// key (a tester).
const AnnotationKey = "removed paper tinted red, outlined in magenta, tear lines in amber; " +
	"letters outlined blue (left on the sheet), green (removed whole by this tear), red (cut), " +
	"orange (too close to call), grey (gone before this tear), magenta (not measured); " +
	"dashed green: the template inside the removed piece; dashed violet: the template on the paper left; " +
	"cyan rings: places the text names, numbered"

var funcs = template.FuncMap{
	"annotationKey": func() string { return AnnotationKey },
	"inc":           func(i int) int { return i + 1 },
	"legend":        judge.UncertainLegend,
	"deref":         func(b *bool) bool { return b != nil && *b },
	"pct":           func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"pieces": func(n int) string {
		if n == 1 {
			return "1 piece"
		}
		return fmt.Sprintf("%d pieces", n)
	},
	// short is a photo's SHA-256 cut to 12 hex digits: enough for an auditor to match a photo
	// file (sha256sum) with the ruling made on it; the whole digest is in the title and JSON.
	"short": func(h string) string { return h[:min(len(h), 12)] },
	"area":  func(f float64) string { return fmt.Sprintf("%.0f mm²", f) },
	"words": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
}

var page = template.Must(template.New("page").Funcs(funcs).Parse(pageHTML))
