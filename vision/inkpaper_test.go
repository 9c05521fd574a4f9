package vision

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegisterInkOffPaperRefused: seed 6 case-007 ines-5.jpg, a small shaded remnant (17027
// mm² left, truth.json) on a grey-green desk. To the fresh sheet nothing matches (the
// colour models give most of the remnant to the table); to the previous photo (ines-4) the
// whole photo's features align it (when that retry was made against registered sheets too),
// but its mask, from the same colour models, kept no paper: every ink patch the alignment
// matched lay off it, and the referee put the player out with two skills left. Refused
// (ErrPaperMask), and the patch it names lies on the truth's paper left.
func TestRegisterInkOffPaperRefused(t *testing.T) {
	retryRegistered = true
	defer func() { retryRegistered = false }()
	pl, fresh, register := bundledCase(t, "seed6-case007")
	defer fresh.Close()
	prev := register(pl.Tears[3].Photo.File) // ines-4
	defer prev.Close()
	e := synthRegErr(fresh, prev, homog(pl.Sheet.Homography), homog(pl.Tears[3].Photo.Homography), fresh.Paper)
	require.Less(t, e, 0.7, "ines-4's true error")

	img, err := ReadImage(filepath.Join("testdata", "seed6-case007", pl.Tears[4].Photo.File))
	require.NoError(t, err)
	defer img.Close()
	s, err := Register(prev, img)
	if s != nil {
		s.Close()
	}
	t.Logf("%v", err)
	require.ErrorIs(t, err, ErrPaperMask)
	var pe *PaperMaskError
	require.True(t, errors.As(err, &pe))
	w, h := prev.Mask.Cols(), prev.Mask.Rows()
	truth := truthPaperInFrame(fresh, pl, 5, w, h)
	q := mmToPx(pt{pe.AtMM[0], pe.AtMM[1]}, fresh.PxPerMM).img()
	require.Equal(t, byte(255), truth[q.Y*w+q.X], "the patch off the mask is on the paper left")
}
