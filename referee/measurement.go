package referee

import (
	"encoding/json"
	"fmt"

	"tearcam/judge"
)

// storedMeasurement is judge.Measurement as kept in the database: judge.LetterState
// marshals to a name but does not unmarshal, so letter states are kept as numbers here.
type storedMeasurement struct {
	Refused           string          `json:"refused,omitempty"`
	RemovedAreaMM2    float64         `json:"removed_area_mm2"`
	Pieces            int             `json:"pieces"`
	EdgeToEdge        bool            `json:"edge_to_edge"`
	TemplateFits      bool            `json:"template_fits"`
	PaperFitsTemplate bool            `json:"paper_fits_template"`
	Letters           []storedLetters `json:"letters,omitempty"`
	Doubts            []string        `json:"doubts,omitempty"`
	Notes             []string        `json:"notes,omitempty"`
	Uncertain         []judge.Doubt   `json:"uncertain,omitempty"`
	// BadPhoto is, when the tear's photo could not be used as a photo at all (not an image,
	// unreadable), the one line that says so (Result.BadPhotos), kept so that a re-run that
	// re-uses the measurement says it again.
	BadPhoto string `json:"bad_photo,omitempty"`
}

type storedLetters struct {
	Name   string `json:"name"`
	States []int  `json:"states"`
}

// measurementFields is the number of fields of judge.Measurement that storedMeasurement
// mirrors; a test fails when judge adds one, so that it is not silently dropped on resume.
const measurementFields = 10

func encodeMeasurement(m judge.Measurement, badPhoto string) ([]byte, error) {
	s := storedMeasurement{BadPhoto: badPhoto, Refused: m.Refused, RemovedAreaMM2: m.RemovedAreaMM2, Pieces: m.Pieces,
		EdgeToEdge: m.EdgeToEdge, TemplateFits: m.TemplateFits, PaperFitsTemplate: m.PaperFitsTemplate,
		Doubts: m.Doubts, Notes: m.Notes, Uncertain: m.Uncertain}
	for _, l := range m.Letters {
		sl := storedLetters{Name: l.Name}
		if l.States != nil {
			sl.States = make([]int, len(l.States))
		}
		for i, st := range l.States {
			sl.States[i] = int(st)
		}
		s.Letters = append(s.Letters, sl)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode measurement: %w", err)
	}
	return b, nil
}

func decodeMeasurement(b []byte) (judge.Measurement, string, error) {
	var s storedMeasurement
	if err := json.Unmarshal(b, &s); err != nil {
		return judge.Measurement{}, "", fmt.Errorf("decode measurement: %w", err)
	}
	m := judge.Measurement{Refused: s.Refused, RemovedAreaMM2: s.RemovedAreaMM2, Pieces: s.Pieces,
		EdgeToEdge: s.EdgeToEdge, TemplateFits: s.TemplateFits, PaperFitsTemplate: s.PaperFitsTemplate,
		Doubts: s.Doubts, Notes: s.Notes, Uncertain: s.Uncertain}
	for _, l := range s.Letters {
		sl := judge.SkillLetters{Name: l.Name}
		if l.States != nil {
			sl.States = make([]judge.LetterState, len(l.States))
		}
		for i, st := range l.States {
			sl.States[i] = judge.LetterState(st)
		}
		m.Letters = append(m.Letters, sl)
	}
	return m, s.BadPhoto, nil
}
