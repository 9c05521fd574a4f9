package synth

import (
	"encoding/json"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// TruthSchema is the value of Truth.Schema.
const TruthSchema = "tearcam.synth-truth/v1"

// Truth is the ground truth of one case folder (truth.json). Distances and areas are in the
// sheet frame (mm); photo coordinates in photo pixels (OpenCV convention: integer coordinates
// at pixel centres).
type Truth struct {
	Schema   string        `json:"schema"`
	Case     string        `json:"case"`
	Seed     int64         `json:"seed"`
	Paper    PaperTruth    `json:"paper"`
	Template TemplateTruth `json:"template"`
	// SliverMM2 is the area under which a removed piece is not counted (SliverMM2).
	SliverMM2 float64       `json:"sliver_mm2"`
	Players   []PlayerTruth `json:"players"`
}

// PaperTruth is the paper size.
type PaperTruth struct {
	Name     string  `json:"name"`
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
}

// TemplateTruth is the template the fits were measured with.
type TemplateTruth struct {
	Name      string       `json:"name"`
	PolygonMM [][2]float64 `json:"polygon_mm"`
}

// PlayerTruth is one player's sheet, photos and tears.
type PlayerTruth struct {
	Name   string       `json:"name"`
	Skills []SkillTruth `json:"skills"`
	Ruled  bool         `json:"ruled"`
	Sheet  PhotoTruth   `json:"sheet"` // the fresh, untorn sheet
	Tears  []TearTruth  `json:"tears"`
	Out    bool         `json:"out"`
	Notes  []string     `json:"notes,omitempty"`
}

// SkillTruth is one skill as written.
type SkillTruth struct {
	Name        string        `json:"name"`
	Font        string        `json:"font"`
	CapHeightMM float64       `json:"cap_height_mm"`
	AngleDeg    float64       `json:"angle_deg"` // baseline direction, clockwise from +x (y down)
	Ink         string        `json:"ink"`
	Letters     []LetterTruth `json:"letters"`
}

// LetterTruth is one letter's place on the fresh sheet.
type LetterTruth struct {
	Char       string       `json:"char"`
	OutlineMM  [][2]float64 `json:"outline_mm"` // convex hull of its ink, sheet frame
	BBoxMM     [4]float64   `json:"bbox_mm"`    // min x, min y, max x, max y
	InkAreaMM2 float64      `json:"ink_area_mm2"`
}

// PhotoTruth is where the sheet lies in one photo.
type PhotoTruth struct {
	File string `json:"file"`
	// Size is the photo's width and height in pixels.
	Size [2]int `json:"size"`
	// CornersPx are the untorn sheet frame's corners (0,0), (W,0), (W,H), (0,H) mm (TL, TR,
	// BR, BL) in photo pixels. Corners of paper already torn away are where they would be.
	CornersPx [4][2]float64 `json:"corners_px"`
	// Homography maps sheet-frame mm to photo px (row-major 3x3).
	Homography Homography `json:"homography"`
	// CutOff is true when part of the paper is outside the photo.
	CutOff      bool    `json:"cut_off"`
	Background  string  `json:"background"`
	PxPerMM     float64 `json:"px_per_mm"` // mean scale of the sheet in the photo
	RotationDeg float64 `json:"rotation_deg"`
	JPEGQuality int     `json:"jpeg_quality"`
}

// TearTruth is the measured truth of one tear.
type TearTruth struct {
	Index  int        `json:"index"` // 1-based
	Photo  PhotoTruth `json:"photo"`
	Kind   judge.Kind `json:"kind"`
	Skill  string     `json:"skill"`
	Intent TearKind   `json:"intent"` // the geometry aimed at; the fields below are measured

	BeforeAreaMM2    float64      `json:"before_area_mm2"`
	RemovedAreaMM2   float64      `json:"removed_area_mm2"` // every removed pixel, slivers included
	RemainingAreaMM2 float64      `json:"remaining_area_mm2"`
	Pieces           []PieceTruth `json:"pieces"` // pieces of at least SliverMM2
	SliversIgnored   int          `json:"slivers_ignored"`
	EdgeToEdge       bool         `json:"edge_to_edge"`  // every piece touches the before-sheet's outer edge
	TemplateFits     bool         `json:"template_fits"` // the template fits some piece
	PaperFits        FitResult    `json:"paper_fit"`
	// Letters is the state of every letter, per skill in sheet order, relative to this tear
	// (gone = not wholly on the paper before it). Ambiguous letters read "ambiguous" here;
	// ExactLetters has what the masks say for them.
	Letters      []SkillStates `json:"letters"`
	ExactLetters []SkillStates `json:"exact_letters"`
	// Ambiguous is true when a measurement the ruling depends on is too close to call (a letter
	// cut by a sliver or missed by a hair, a fit within FitMarginMM).
	Ambiguous        bool     `json:"ambiguous"`
	AmbiguousReasons []string `json:"ambiguous_reasons,omitempty"`
	// ExactFaults are the faults the exact masks give, even when Expected is undecided.
	ExactFaults []judge.Fault `json:"exact_faults"`
	// Expected is the ruling DESIGN.md's contract expects (photo sha256 left empty).
	Expected judge.TearRuling `json:"expected"`
	// Uncertain counts, per skill, letters whose state was ever ambiguous up to this tear: the
	// skill's Remaining may be off by up to that many.
	Uncertain []int `json:"uncertain"`

	letterAmbiguous map[int]bool
}

// PieceTruth is one removed piece.
type PieceTruth struct {
	AreaMM2     float64      `json:"area_mm2"`
	TouchesEdge bool         `json:"touches_edge"`
	Fit         FitResult    `json:"template_fit"`
	BBoxMM      [4]float64   `json:"bbox_mm"`
	PolygonMM   [][2]float64 `json:"polygon_mm"` // outer contour, simplified to 0.25 mm
}

// SkillStates is judge.SkillLetters that also reads back from JSON.
type SkillStates struct {
	Name   string `json:"name"`
	States States `json:"states"`
}

// Judge converts to the judge's type.
func (s SkillStates) Judge() judge.SkillLetters {
	return judge.SkillLetters{Name: s.Name, States: append([]judge.LetterState(nil), s.States...)}
}

// JudgeLetters converts a tear's letter states to what judge.Measurement.Letters holds.
func JudgeLetters(ss []SkillStates) []judge.SkillLetters {
	out := make([]judge.SkillLetters, len(ss))
	for i, s := range ss {
		out[i] = s.Judge()
	}
	return out
}

// States is a list of letter states written as their names ("on_sheet", "cut", ...).
type States []judge.LetterState

// UnmarshalJSON reads the names judge.LetterState.MarshalText writes.
func (s *States) UnmarshalJSON(b []byte) error {
	var raw []string
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	st, err := parseStates(raw)
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// parseStates reads letter state names.
func parseStates(raw []string) ([]judge.LetterState, error) {
	out := make([]judge.LetterState, len(raw))
	for i, s := range raw {
		found := false
		for st := judge.LetterUnknown; st <= judge.LetterAmbiguous; st++ {
			if st.String() == s {
				out[i], found = st, true
			}
		}
		if !found {
			return nil, fmt.Errorf("letter state %q", s)
		}
	}
	return out, nil
}

// measure fills res.Truth from the masks.
func (st *State) measure(res *TearResult, spec TearSpec) error {
	sh := st.Sheet
	ppm := sh.PxPerMM
	px2 := 1 / (ppm * ppm)
	t := &res.Truth
	t.Index = len(st.Tears) + 1
	t.Kind = spec.Action
	t.Skill = spec.Skill
	t.Intent = spec.Kind
	t.BeforeAreaMM2 = round2(float64(res.Before.Count()) * px2)
	t.RemovedAreaMM2 = round2(float64(res.Removed.Count()) * px2)
	t.RemainingAreaMM2 = round2(float64(res.After.Count()) * px2)
	t.letterAmbiguous = map[int]bool{}

	pieces, boxes, err := piecesOf(res.Removed)
	if err != nil {
		return err
	}
	t.Pieces = []PieceTruth{}
	t.EdgeToEdge = true
	for i, pm := range pieces {
		area := float64(pm.Count()) * px2
		if area < SliverMM2 {
			t.SliversIgnored++
			continue
		}
		pt := PieceTruth{AreaMM2: round2(area)}
		pt.TouchesEdge = pm.touchesOutside(res.Before, boxes[i].Inset(-1).Intersect(image.Rect(0, 0, pm.W, pm.H)))
		if !pt.TouchesEdge {
			t.EdgeToEdge = false
		}
		if pt.Fit, err = FitTemplate(pm, ppm, st.Template); err != nil {
			return err
		}
		b := boxes[i]
		pt.BBoxMM = [4]float64{round2(float64(b.Min.X) / ppm), round2(float64(b.Min.Y) / ppm), round2(float64(b.Max.X) / ppm), round2(float64(b.Max.Y) / ppm)}
		if pt.PolygonMM, err = outline(pm, b, ppm); err != nil {
			return err
		}
		t.Pieces = append(t.Pieces, pt)
	}
	if t.PaperFits, err = FitTemplate(res.After, ppm, st.Template); err != nil {
		return err
	}

	// Distance fields (px) to the removed paper and to the kept paper, for slivers and near misses.
	var toRemoved, toKept []float32
	if len(pieces) > 0 {
		if toRemoved, err = distanceTo(res.Removed); err != nil {
			return err
		}
		if toKept, err = distanceTo(res.After); err != nil {
			return err
		}
	}
	named := -1
	flat := 0
	for si, sk := range sh.Skills {
		if sk.Name == spec.Skill {
			named = si
		}
		exact := SkillStates{Name: sk.Name, States: make(States, len(sk.Letters))}
		shown := SkillStates{Name: sk.Name, States: make(States, len(sk.Letters))}
		for li, l := range sk.Letters {
			s, amb := letterState(l, res, toRemoved, toKept, ppm)
			exact.States[li] = s
			shown.States[li] = s
			if amb {
				shown.States[li] = judge.LetterAmbiguous
				t.letterAmbiguous[flat] = true
			}
			flat++
		}
		t.ExactLetters = append(t.ExactLetters, exact)
		t.Letters = append(t.Letters, shown)
	}
	st.expect(t, named)
	return nil
}

// letterState is a letter's exact state for this tear and whether it is too close to call.
func letterState(l *Letter, res *TearResult, toRemoved, toKept []float32, ppm float64) (judge.LetterState, bool) {
	if inkWithin(l, res.Before) < l.InkPx {
		return judge.LetterGone, false
	}
	rem := inkWithin(l, res.Removed)
	if toRemoved == nil {
		return judge.LetterOnSheet, false
	}
	// Walk the ink: nearest approach to the other side, and depth of each side's part.
	w := res.Before.W
	bw := l.Box.Dx()
	minToRem, minToKept := math.Inf(1), math.Inf(1)
	depthRem, depthKept := 0.0, 0.0
	for y := l.Box.Min.Y; y < l.Box.Max.Y; y++ {
		for x := l.Box.Min.X; x < l.Box.Max.X; x++ {
			if l.Ink[(y-l.Box.Min.Y)*bw+x-l.Box.Min.X] == 0 {
				continue
			}
			i := y*w + x
			if res.Removed.Pix[i] != 0 {
				d := float64(toKept[i])
				minToKept = math.Min(minToKept, d)
				depthRem = math.Max(depthRem, d)
			} else {
				d := float64(toRemoved[i])
				minToRem = math.Min(minToRem, d)
				depthKept = math.Max(depthKept, d)
			}
		}
	}
	near := NearMissMM * ppm
	switch {
	case rem == 0:
		return judge.LetterOnSheet, minToRem <= near
	case rem == l.InkPx:
		return judge.LetterRemoved, minToKept <= near
	}
	minor := math.Min(float64(rem), float64(l.InkPx-rem)) / float64(l.InkPx)
	depth := math.Min(depthRem, depthKept) / ppm
	return judge.LetterCut, minor < SliverInkFrac || depth < SliverDepthMM
}

// expect fills the expected ruling from the measured fields (DESIGN.md's rules table).
func (st *State) expect(t *TearTruth, named int) {
	e := judge.TearRuling{
		Index: t.Index, Kind: t.Kind, Skill: t.Skill, Faults: []judge.Fault{},
		RemovedAreaMM2: t.RemovedAreaMM2, Pieces: len(t.Pieces), EdgeToEdge: t.EdgeToEdge && len(t.Pieces) > 0,
	}
	certainFit, possibleFit := false, false
	for _, p := range t.Pieces {
		if p.Fit.Fits {
			e.TemplateFits = true
		}
		if p.Fit.Fits && !p.Fit.Ambiguous {
			certainFit = true
		}
		if p.Fit.Fits || p.Fit.Ambiguous {
			possibleFit = true
		}
	}
	t.TemplateFits = e.TemplateFits
	definite, ambiguous := 0, 0
	if named >= 0 {
		for li, s := range t.ExactLetters[named].States {
			if s == judge.LetterRemoved {
				e.FullLettersRemoved++
			}
			if t.Letters[named].States[li] == judge.LetterAmbiguous {
				ambiguous++
			} else if s == judge.LetterRemoved {
				definite++
			}
		}
	}
	var reasons []string
	certain := 0 // faults that hold whatever the ambiguous measures are
	if len(t.Pieces) == 0 {
		e.Faults = append(e.Faults, judge.FaultNothingRemoved)
	} else {
		if e.FullLettersRemoved == 0 {
			e.Faults = append(e.Faults, judge.FaultNoFullLetter)
		}
		if !e.TemplateFits {
			e.Faults = append(e.Faults, judge.FaultPieceTooSmall)
		}
		if !t.EdgeToEdge {
			e.Faults = append(e.Faults, judge.FaultNotEdgeToEdge)
		}
		if len(t.Pieces) > 1 {
			e.Faults = append(e.Faults, judge.FaultSeveralPieces)
		}
		if definite == 0 && ambiguous > 0 {
			reasons = append(reasons, fmt.Sprintf("a letter of %s is cut or missed by a sliver: whether a full letter was removed is too close to call", t.Skill))
		} else if e.FullLettersRemoved == 0 {
			certain++
		}
		if !certainFit && possibleFit {
			reasons = append(reasons, fmt.Sprintf("the template fits a removed piece within %.0f mm of its size", FitMarginMM))
		} else if !e.TemplateFits {
			certain++
		}
		if !t.EdgeToEdge || len(t.Pieces) > 1 {
			certain++
		}
	}
	if len(e.Faults) > 0 && len(t.Pieces) == 0 {
		certain++
	}
	t.ExactFaults = append([]judge.Fault{}, e.Faults...)

	// Skills left, availability and elimination.
	uncertain := map[int]bool{}
	for k, v := range st.uncertain {
		uncertain[k] = v
	}
	for k, v := range t.letterAmbiguous {
		if v {
			uncertain[k] = true
		}
	}
	total := 0
	flat := 0
	t.Uncertain = make([]int, len(st.Sheet.Skills))
	for si, sk := range st.Sheet.Skills {
		rem := 0
		for li := range sk.Letters {
			s := t.ExactLetters[si].States[li]
			if s == judge.LetterOnSheet {
				rem++
			}
			if uncertain[flat] {
				t.Uncertain[si]++
			}
			flat++
		}
		total += rem
		e.Skills = append(e.Skills, judge.SkillState{Name: sk.Name, Remaining: rem})
	}
	e.PaperFitsTemplate = t.PaperFits.Fits
	var other []string
	if t.PaperFits.Ambiguous {
		other = append(other, fmt.Sprintf("the template fits the remaining sheet within %.0f mm of its size", FitMarginMM))
	}
	switch {
	case st.out:
		e.Out = true
	case total == 0:
		e.Out, e.OutReason = true, judge.OutNoSkillsLeft
	case !e.PaperFitsTemplate:
		e.Out, e.OutReason = true, judge.OutTooLittlePaper
	}
	for i := range e.Skills {
		e.Skills[i].Available = e.Skills[i].Remaining > 0 && !e.Out
	}
	switch {
	case certain > 0:
		// A faux pas whatever the close calls say (they may change the fault list only).
		e.Verdict = judge.FauxPas
	case len(reasons) > 0:
		e.Verdict = judge.Undecided
		e.UndecidedReason = reasons[0]
	case len(e.Faults) > 0:
		e.Verdict = judge.FauxPas
	default:
		e.Verdict = judge.Valid
	}
	owed := st.owed
	if t.Kind == judge.KindPenalty && owed > 0 {
		owed--
	}
	if e.Verdict == judge.FauxPas {
		owed++
	}
	e.OwedTears = owed
	t.Ambiguous = len(reasons)+len(other) > 0
	t.AmbiguousReasons = append(reasons, other...)
	t.Expected = e
}

// distanceTo returns, per sheet-raster pixel, the distance (px) to the nearest set pixel of m.
func distanceTo(m *Mask) ([]float32, error) {
	inv := NewMask(m.W, m.H)
	for i, v := range m.Pix {
		inv.Pix[i] = 1 - v
	}
	src, err := inv.mat()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	dst := gocv.NewMat()
	defer dst.Close()
	labels := gocv.NewMat()
	defer labels.Close()
	gocv.DistanceTransform(src, &dst, &labels, gocv.DistL2, gocv.DistanceTransformMasks(5), gocv.DistanceTransformLabelTypes(0))
	f, err := dst.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("distance: %w", err)
	}
	return append([]float32(nil), f...), nil
}

// outline returns the outer contour of the mask's pixels in box, in mm, simplified.
func outline(m *Mask, box image.Rectangle, ppm float64) ([][2]float64, error) {
	// A one-pixel zero border so that contours along the raster edge close properly.
	b := box.Inset(-1)
	sub := NewMask(b.Dx(), b.Dy())
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			sub.Pix[(y-b.Min.Y)*sub.W+x-b.Min.X] = m.Pix[y*m.W+x]
		}
	}
	src, err := sub.mat()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	cs := gocv.FindContours(src, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer cs.Close()
	best, bestN := -1, 0
	for i := 0; i < cs.Size(); i++ {
		if n := cs.At(i).Size(); n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return nil, nil
	}
	approx := gocv.ApproxPolyDP(cs.At(best), 0.25*ppm, true)
	defer approx.Close()
	var out [][2]float64
	for _, p := range approx.ToPoints() {
		// Contour points are pixel centres: +0.5 px to the sheet frame.
		out = append(out, [2]float64{round2((float64(p.X+b.Min.X) + 0.5) / ppm), round2((float64(p.Y+b.Min.Y) + 0.5) / ppm)})
	}
	return out, nil
}

// Measurement returns the tear's truth as the judge's input: what a perfect vision/ and ocr/
// would measure. Ambiguous letters read judge.LetterAmbiguous; the ambiguity reasons are Doubts.
func (t TearTruth) Measurement() judge.Measurement {
	m := judge.Measurement{
		RemovedAreaMM2:    t.RemovedAreaMM2,
		Pieces:            len(t.Pieces),
		EdgeToEdge:        t.EdgeToEdge,
		TemplateFits:      t.TemplateFits,
		PaperFitsTemplate: t.PaperFits.Fits,
		Letters:           JudgeLetters(t.Letters),
	}
	m.Doubts = append(m.Doubts, t.AmbiguousReasons...)
	return m
}
