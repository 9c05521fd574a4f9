package judge

import (
	"fmt"

	"tearcam/template"
)

// Schema is the value of the "schema" field of every rulings document.
const Schema = "tearcam.rulings/v1"

// Kind is what a tear is for (DESIGN.md manifest "kind").
type Kind string

// The tear kinds. A penalty tear pays a tear owed after a faux pas (seed, "TEARING FAUX PAS").
// A last_ditch "tear" is the crumpled sheet thrown at the GM (seed, "LAST DITCH EFFORT"): no
// photo, the character is out either way.
const (
	KindUse       Kind = "use"
	KindDamage    Kind = "damage"
	KindPenalty   Kind = "penalty"
	KindLastDitch Kind = "last_ditch"
)

// Verdict is a tear's ruling.
type Verdict string

// The verdicts (DESIGN.md): faux_pas means at least one Fault; undecided means tearcam could
// not measure reliably and says why in UndecidedReason.
const (
	Valid     Verdict = "valid"
	FauxPas   Verdict = "faux_pas"
	Undecided Verdict = "undecided"
)

// Fault is one broken tearing rule (seed, "RULES FOR TEARING"; DESIGN.md fault codes).
type Fault string

// The fault codes, in the order they are reported.
const (
	FaultNothingRemoved Fault = "nothing_removed"
	FaultNoFullLetter   Fault = "no_full_letter"
	FaultPieceTooSmall  Fault = "piece_too_small"
	FaultNotEdgeToEdge  Fault = "not_edge_to_edge"
	FaultSeveralPieces  Fault = "several_pieces"
)

// OutReason says why a character left the game (DESIGN.md "out_reason").
type OutReason string

// The out reasons; the empty string means the character is still in.
const (
	OutNone           OutReason = ""
	OutNoSkillsLeft   OutReason = "no_skills_left"
	OutTooLittlePaper OutReason = "too_little_paper"
	OutLastDitch      OutReason = "last_ditch"
)

// Point is a position in the sheet frame, in millimetres: origin at the untorn sheet's
// top-left corner as first photographed, x to the right, y down (DESIGN.md "Sheet frame").
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Letter is one letter (Unicode letter or digit) of a skill as located on the fresh sheet.
type Letter struct {
	Char    string  `json:"char"`    // the letter as declared, e.g. "S"
	Outline []Point `json:"outline"` // closed polygon around its ink, sheet frame, mm
}

// SkillLayout is where one declared skill's letters lie on the fresh sheet (from ocr/).
// Letters is in reading order and has one entry per letter of the name (Letters(name));
// when the skill was not found, Located is 0 and Letters is empty.
type SkillLayout struct {
	Name    string   `json:"name"`
	Letters []Letter `json:"letters"`
	Located int      `json:"located"` // letters whose outline is known
	// Confidence, 0..1, is how sure ocr/ is of the location: the estimated probability that
	// the letters lie on the skill's own word with every letter's centre on its letter.
	Confidence float64 `json:"confidence"`
	// Identity, 0..1, is the estimated probability that the located ink is the skill's own
	// word (whatever its letters' cuts); Confidence is never above it. Outline, 0..1, is the
	// estimated probability that every letter's centre is on its letter, given the word is.
	Identity float64 `json:"identity"`
	Outline  float64 `json:"outline"`
	// Doubt, when not empty, says in a GM's words why the ink located may not be the skill's
	// beyond what the confidences say (it reads as well in another place, named in mm).
	Doubt string   `json:"doubt,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// LetterState is where a letter's ink is after one tear, relative to that tear.
type LetterState int

// The letter states. Gone means not on the paper before this tear (removed or cut earlier).
// Ambiguous means the tear line passes within measurement error of the letter's ink, so it
// cannot be called whole or cut: a ruling that depends on it is undecided. The two partial
// states say which side is certain when only part of the ink lies within measurement error:
// OnSheetOrCut (some ink certainly on the remaining sheet, so it was not removed whole, but
// it may be cut) and RemovedOrCut (some ink certainly on the removed paper, so it is not
// left, but it may have been removed whole).
const (
	LetterUnknown      LetterState = iota // not located, or the measurement was refused
	LetterOnSheet                         // all its ink is on the remaining sheet
	LetterRemoved                         // all its ink is on the removed paper
	LetterCut                             // its ink is on both: it counts as neither
	LetterGone                            // already not on the sheet before this tear
	LetterAmbiguous                       // too close to call between whole and cut
	LetterOnSheetOrCut                    // whole on the sheet or cut, too close to call
	LetterRemovedOrCut                    // removed whole or cut, too close to call
)

var letterStateNames = [...]string{"unknown", "on_sheet", "removed", "cut", "gone", "ambiguous", "on_sheet_or_cut", "removed_or_cut"}

// Undetermined reports whether s leaves the letter's fate open (ambiguous, unknown or one
// of the partial states).
func (s LetterState) Undetermined() bool {
	switch s {
	case LetterUnknown, LetterAmbiguous, LetterOnSheetOrCut, LetterRemovedOrCut:
		return true
	}
	return false
}

func (s LetterState) String() string {
	if int(s) < len(letterStateNames) {
		return letterStateNames[s]
	}
	return "invalid"
}

// MarshalText makes LetterState readable in JSON and golden files.
func (s LetterState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Measurement is what vision/ (and ocr/) measured of one tear: the sheet before it (the
// previous photo, or the fresh sheet) against the sheet after it, both in the sheet frame.
// It is the judge's only input about the photos.
type Measurement struct {
	// Refused, when not empty, says why the tear could not be measured reliably (sheet not
	// found, registration refused, unreadable photo, ...). The ruling is then undecided
	// with this reason, and every other field is ignored.
	Refused string

	RemovedAreaMM2    float64 // area of paper on the before-sheet missing from the after-sheet
	Pieces            int     // removed pieces, slivers below vision's documented floor ignored
	EdgeToEdge        bool    // every removed piece touches the sheet's outer edge
	TemplateFits      bool    // the template fits inside a removed piece
	PaperFitsTemplate bool    // the template fits on the remaining sheet

	// Letters holds, per declared skill in declaration order, the state of each of its
	// letters (same order as SkillLayout.Letters). A skill that was not located has a nil
	// slice here.
	Letters []SkillLetters

	// Doubts are measurement doubts that make the ruling undecided when they could change
	// it (e.g. "template fit within 1 mm of the piece's size", "OCR re-read disagrees with
	// the geometry for Hopscotch"). Notes are reported but never change the ruling.
	Doubts []string
	Notes  []string

	// Uncertain are structured doubts: each names the quantity it concerns, so the judge can
	// tell whether it could change the ruling (see Doubt). Prefer these to Doubts, which the
	// judge cannot read and therefore always treats as able to change the ruling.
	Uncertain []Doubt
}

// Quantity names one measured quantity of a Measurement, for a structured Doubt.
type Quantity string

// The quantities a Doubt can concern.
const (
	AboutRemoved      Quantity = "removed"             // whether anything was removed at all
	AboutPieces       Quantity = "pieces"              // one piece or several
	AboutEdgeToEdge   Quantity = "edge_to_edge"        // every piece touches the outer edge
	AboutTemplateFits Quantity = "template_fits"       // the template fits in the piece
	AboutPaperFits    Quantity = "paper_fits_template" // the template fits on the remaining sheet
	AboutLetters      Quantity = "letters"             // the letter states of Doubt.Skill
)

// Doubt is a measurement doubt about one quantity (and, for AboutLetters, one skill). The
// judge makes the ruling undecided only when flipping that quantity could change the ruling
// (its verdict, faults, letters left, paper_fits_template or out); otherwise the doubt is
// reported in the ruling's notes.
type Doubt struct {
	About Quantity `json:"about"`
	Skill string   `json:"skill,omitempty"`
	Text  string   `json:"text"`
}

// SkillLetters is the state of each letter of one skill after one tear.
type SkillLetters struct {
	Name   string        `json:"name"`
	States []LetterState `json:"states"`
}

// Tear is one entry of a player's tears in a manifest (DESIGN.md), or one GM announcement.
type Tear struct {
	Kind  Kind   `json:"kind"`
	Skill string `json:"skill,omitempty"`
	Hit   bool   `json:"hit,omitempty"` // last_ditch only: did the ball hit the GM
}

// Rulings is the whole --json document (DESIGN.md "--json"); field names are the contract.
type Rulings struct {
	Schema   string            `json:"schema"`
	Paper    string            `json:"paper"`
	Template template.Template `json:"template"`
	Players  []PlayerRulings   `json:"players"`
}

// PlayerRulings is one player's fresh sheet and every tear ruled so far.
type PlayerRulings struct {
	Name  string       `json:"name"`
	Sheet SheetResult  `json:"sheet"`
	Tears []TearRuling `json:"tears"`
	Out   bool         `json:"out"`
}

// SheetResult is what was found on the fresh sheet.
type SheetResult struct {
	Photo  string        `json:"photo"`
	SHA256 string        `json:"sha256"`
	Found  bool          `json:"found"`
	Error  string        `json:"error,omitempty"` // why the sheet was not found or read
	Skills []SkillResult `json:"skills"`
	// Words are, when no skills were declared (discovery mode), the words read on the sheet
	// for the GM to confirm, in reading order.
	Words []FoundWord `json:"words,omitempty"`
}

// FoundWord is a word read on a sheet in discovery mode, with Tesseract's own confidence
// (0..1), which is no calibrated probability on handwriting: the GM checks each on the sheet.
type FoundWord struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
}

// SkillResult is one declared skill as located on the fresh sheet.
type SkillResult struct {
	Name       string  `json:"name"`
	Letters    int     `json:"letters"`    // Letters(Name)
	Located    int     `json:"located"`    // letters whose outline was found
	Confidence float64 `json:"confidence"` // 0..1
}

// Weak reports whether the skill was located by a weak read (Confidence under
// WeakReadConfidence): its letters left are never reported as measured.
func (k SkillResult) Weak() bool { return k.Located > 0 && k.Confidence < WeakReadConfidence }

// LocatedLabel is the skill's letters located as said to a GM when the fresh sheet is read:
// "Text 4/4", or for a weak read "Text 4/4 (weak read, 21%)": the count is not certain, which
// the GM would otherwise learn only when a tear is ruled.
func (k SkillResult) LocatedLabel() string {
	s := fmt.Sprintf("%s %d/%d", k.Name, k.Located, k.Letters)
	if k.Weak() {
		s += fmt.Sprintf(" (weak read, %.0f%%)", 100*k.Confidence)
	}
	return s
}

// TearRuling is the ruling on one tear (DESIGN.md "--json" tears[]).
type TearRuling struct {
	Index              int          `json:"index"` // 1-based, in manifest order
	Photo              string       `json:"photo"`
	SHA256             string       `json:"sha256"`
	Kind               Kind         `json:"kind"`
	Skill              string       `json:"skill"`
	Hit                *bool        `json:"hit,omitempty"` // last_ditch only
	Verdict            Verdict      `json:"verdict"`
	Faults             []Fault      `json:"faults"`
	UndecidedReason    string       `json:"undecided_reason"`
	RemovedAreaMM2     float64      `json:"removed_area_mm2"`
	Pieces             int          `json:"pieces"`
	EdgeToEdge         bool         `json:"edge_to_edge"`
	TemplateFits       bool         `json:"template_fits"`
	FullLettersRemoved int          `json:"full_letters_removed"`
	Skills             []SkillState `json:"skills"`
	PaperFitsTemplate  bool         `json:"paper_fits_template"`
	OwedTears          int          `json:"owed_tears"`
	Out                bool         `json:"out"`
	OutReason          OutReason    `json:"out_reason"`
	Notes              []string     `json:"notes,omitempty"`
	// LettersAsBefore is true when Skills are carried from before this (undecided) tear
	// because nothing after it was measured reliably: the measurement refused or doubted
	// beyond what the judge can read, the tear not allowed, the character already out. An
	// undecided tear measured otherwise has its letters applied as measured (a letter torn
	// off is gone whatever the verdict).
	LettersAsBefore bool `json:"letters_as_before,omitempty"`
	// GMRuling, when the manifest gives one, is the GM's decision on this tear: Verdict,
	// Faults and UndecidedReason stay tearcam's own, and the state above (Skills,
	// PaperFitsTemplate, OwedTears, Out, OutReason) follows the GM's ruling (RuleGM).
	GMRuling *GMRuling `json:"gm_ruling,omitempty"`
}

// SkillState is one skill's full letters left on the sheet after a tear.
type SkillState struct {
	Name      string `json:"name"`
	Remaining int    `json:"remaining"`
	Available bool   `json:"available"` // at least one full letter left, character not out
	// Measured is true when Remaining comes from measurements: every letter counted as left
	// was located on the fresh sheet. False when some were not, so they are counted as left
	// without ever being measured (the ruling's notes name the skill).
	Measured bool `json:"measured"`
}
