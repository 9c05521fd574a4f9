package vision

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestRegisterTwoSheets: a later photo showing the player's torn sheet beside another sheet
// (here an untorn copy of the same sheet, as a tester made it: the sample's breta-1 at 80%
// and breta-0 side by side on white). Register took the untorn copy, which matches the fresh
// sheet best, and the tear was ruled nothing_removed. Two sheets are refused, as Fresh
// refuses them, torn ones too; the torn sheet alone still registers. (A search of the 573
// photos of the six synthetic sets, the sample and the real sheets finds no other photo with
// two such regions.)
func TestRegisterTwoSheets(t *testing.T) {
	dir := filepath.Join("..", "testdata", "images", "sample")
	b0, err := ReadImage(filepath.Join(dir, "breta-0.jpg"))
	require.NoError(t, err)
	defer b0.Close()
	b1, err := ReadImage(filepath.Join(dir, "breta-1.jpg"))
	require.NoError(t, err)
	defer b1.Close()
	fresh, err := Fresh(b0, a4)
	require.NoError(t, err)
	defer fresh.Close()

	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(b1, &small, image.Pt(0, 0), 0.8, 0.8, gocv.InterpolationArea)
	h, w := b0.Rows(), small.Cols()+b0.Cols()
	pair := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 255, 255, 0), h, w, gocv.MatTypeCV8UC3)
	defer pair.Close()
	top := (h - small.Rows()) / 2
	left := pair.Region(image.Rect(0, top, small.Cols(), top+small.Rows()))
	small.CopyTo(&left)
	left.Close()
	right := pair.Region(image.Rect(small.Cols(), 0, w, h))
	b0.CopyTo(&right)
	right.Close()

	s, err := Register(fresh, pair)
	if err == nil {
		s.Close()
	}
	assert.ErrorIs(t, err, ErrSeveralSheets)

	alone, err := Register(fresh, b1)
	require.NoError(t, err)
	alone.Close()

	// Two torn sheets side by side (breta-4 and breta-1, a second tester): the torn one's
	// quadrilateral is 90% paper, under sheetLike's 93%; it was ruled valid.
	b4, err := ReadImage(filepath.Join(dir, "breta-4.jpg"))
	require.NoError(t, err)
	defer b4.Close()
	torn := gocv.NewMat()
	defer torn.Close()
	gocv.Hconcat(b4, b1, &torn)
	s, err = Register(fresh, torn)
	if err == nil {
		s.Close()
	}
	assert.ErrorIs(t, err, ErrSeveralSheets)
}
