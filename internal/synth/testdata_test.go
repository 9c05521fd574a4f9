package synth

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
)

// TestCommittedTruth loads every committed truth.json (the seeded set and the sample session)
// and checks it: the schema reads back, the photos exist, areas add up, the corners are the
// homography's images of the sheet corners and the expected rulings follow from the measures.
func TestCommittedTruth(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/images/synth/case-*")
	dirs = append(dirs, "../../testdata/images/sample")
	found := 0
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "truth.json")); err != nil {
			continue
		}
		found++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tr, err := LoadTruth(dir)
			require.NoError(t, err)
			sheetArea := tr.Paper.WidthMM * tr.Paper.HeightMM
			for _, p := range tr.Players {
				_, err := os.Stat(filepath.Join(dir, p.Sheet.File))
				assert.NoError(t, err)
				checkCorners(t, p.Sheet, tr.Paper)
				removed := 0.0
				for _, tt := range p.Tears {
					_, err := os.Stat(filepath.Join(dir, tt.Photo.File))
					assert.NoError(t, err)
					checkCorners(t, tt.Photo, tr.Paper)
					removed += tt.RemovedAreaMM2
					assert.InDelta(t, sheetArea, tt.RemainingAreaMM2+removed, 0.005*sheetArea)
					checkExpected(t, tt)
					require.Len(t, tt.Letters, len(p.Skills))
					for si, sl := range tt.Letters {
						assert.Equal(t, p.Skills[si].Name, sl.Name)
						assert.Len(t, sl.States, judge.Letters(sl.Name))
					}
					assert.Equal(t, JudgeLetters(tt.ExactLetters)[0].Name, p.Skills[0].Name)
				}
			}
		})
	}
	if found == 0 {
		t.Skip("no committed truth found")
	}
}
