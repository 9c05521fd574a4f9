package vision

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"
)

// TestDecodeImagePaddedJPEGSaysNothing: a JPEG padded before its end marker decodes (Go's
// decoder accepts it) to the same pixels as the unpadded file, and libjpeg's "Corrupt JPEG
// data: 24 extraneous bytes before marker 0xd9", which names no file, stays off stderr (a
// tester saw it under `tearcam judge`).
func TestDecodeImagePaddedJPEGSaysNothing(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "testdata", "images", "sample", "breta-1.jpg"))
	require.NoError(t, err)
	require.True(t, bytes.HasSuffix(orig, []byte{0xFF, 0xD9}))
	// 30 bytes of padding before the end marker: libjpeg's bit buffer read ahead 6 of them,
	// so it warned of 24 before this fix.
	padded := append(append(append([]byte(nil), orig[:len(orig)-2]...), bytes.Repeat([]byte{0x12, 0x34, 0x56}, 10)...), 0xFF, 0xD9)

	stderr := captureFD2(t, func() {
		want, err := DecodeImage(orig)
		require.NoError(t, err)
		defer want.Close()
		got, err := DecodeImage(padded)
		require.NoError(t, err)
		defer got.Close()
		diff := gocv.NewMat()
		defer diff.Close()
		gocv.AbsDiff(want, got, &diff)
		flat := diff.Reshape(1, 0)
		defer flat.Close()
		assert.Equal(t, 0, gocv.CountNonZero(flat), "the padding changes no pixel")
	})
	assert.Empty(t, stderr)
}

// captureFD2 runs f with the process's file descriptor 2 sent to a file, and returns what
// was written there.
func captureFD2(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer tmp.Close()
	saved, err := syscall.Dup(2)
	require.NoError(t, err)
	defer syscall.Close(saved)
	require.NoError(t, syscall.Dup3(int(tmp.Fd()), 2, 0))
	func() {
		defer syscall.Dup3(saved, 2, 0)
		f()
	}()
	b, err := os.ReadFile(tmp.Name())
	require.NoError(t, err)
	return string(b)
}
