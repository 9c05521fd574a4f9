package vision

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A JPEG of a few hundred bytes whose header declares 30000 x 30000 pixels (a decompression
// bomb: OpenCV would allocate 2.7 GB for it) is refused from its header, naming its size;
// the same JPEG with its true size decodes.
func TestDecodeImageRefusesHugeHeader(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 16, 8)), nil))
	small := buf.Bytes()
	m, err := DecodeImage(small)
	require.NoError(t, err)
	assert.Equal(t, 16, m.Cols())
	assert.Equal(t, 8, m.Rows())
	m.Close()

	bomb := append([]byte(nil), small...)
	sof := bytes.Index(bomb, []byte{0xFF, 0xC0}) // baseline frame header: length, precision, height, width
	require.Positive(t, sof)
	binary.BigEndian.PutUint16(bomb[sof+5:], 30000)
	binary.BigEndian.PutUint16(bomb[sof+7:], 30000)
	_, err = DecodeImage(bomb)
	require.ErrorIs(t, err, ErrImageTooLarge)
	assert.EqualError(t, err, "image too large: 30000x30000 pixels (900 megapixels; at most 200 are decoded)")
}
