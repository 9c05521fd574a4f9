package vision

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg" // DecodeConfig reads JPEG and PNG headers; jpegCorrupt checks a JPEG's data
	_ "image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"unsafe"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// DefaultPxPerMM is the sheet frame's resolution: 4 px/mm puts an A4 sheet at 840 x 1188 px,
// fine enough for 0.25 mm masks and small enough to warp and measure in a few milliseconds.
const DefaultPxPerMM = 4.0

// SheetImage is a photo rectified/registered into the sheet frame (DESIGN.md "Sheet frame").
type SheetImage struct {
	Image      gocv.Mat        // BGR, rows=round(H*PxPerMM), cols=round(W*PxPerMM); closed by Close
	Mask       gocv.Mat        // CV_8UC1 paper mask, same frame, 255 = paper; closed by Close
	PxPerMM    float64         // pixels per millimetre of Image and Mask
	Paper      template.Paper  // the paper size that fixes the millimetre scale
	Corners    [4]gocv.Point2f // where sheet-frame (0,0),(W,0),(W,H),(0,H) lie in the photo, px
	ResidualMM float64         // registration residual; 0 for a fresh sheet
	Notes      []string        // observations worth reporting; they change nothing

	// H maps sheet-frame millimetres to photo pixels (row-major 3x3).
	H [9]float64

	feat     *features  // ORB features of the fresh sheet, computed on first Register
	gray     gocv.Mat   // Image in grey, computed on first Register against this sheet (grayMat)
	inkHalo  []byte     // fresh sheets: ink dilated by fillInk's halo, computed on demand
	refGrown []byte     // Mask grown by a millimetre (refPaper), computed on demand
	refAll   bool       // refPaper found paper everywhere
	grey     byte       // greyImage: 0 not yet known, 1 colour, 2 greyscale
	paperLab *colorHist // colour model of this sheet's paper
	ink      []byte     // fresh sheets: ink mask at frame resolution, computed on demand
	// fresh sheets: strong ink (freshStrongInk) at frame resolution, computed on demand
	strongInk []byte
	// seen: where the photo shows ink (inkSeen), computed on demand
	seen   []byte
	blur   []byte // fresh sheets: Image blurred 3x3 (BGR bytes), computed on demand
	lo, hi []byte // fresh sheets: 5x5 minimum and maximum of blur, computed on demand

	// fresh sheets: blur, lo and hi in grey (three equal channels), for greyscale photos
	greyBlur, greyLo, greyHi []byte

	// fresh sheets: the untorn-edge offsets (edgeSamples keys -> mm) and paper spill (px) of
	// the fresh photo itself, which Register compares later photos with; refPending while
	// Fresh measures them.
	edgeRef    map[int]float64
	spillRef   int
	refPending bool

	// inkGray is the fresh sheet's grey image (frame layout), where letters' ink is judged:
	// registered sheets share their fresh sheet's; nil on a fresh sheet (its Image is it).
	inkGray []byte
	// zone: the fresh sheet's inkZone, shared with the sheets registered to it (samelook.go)
	zone *zoneCache
	// registered: made by Register (a later photo), not by Fresh.
	registered bool

	// foreign (registered sheets): frame layout, 255 where the photo shows neither paper
	// nor the table (something lying on the sheet; see occlusion.go); nil when unknown.
	foreign []byte

	letterHist map[letterKey]int // letters gone or in doubt after this sheet's tear (Measure)

	// unknown (registered sheets): frame layout, 255 where the paper's state is unknown (the
	// sheet frame outside the photo, and a margin inside its edge; see cutoff.go); Mask is 0
	// there. nil when the photo shows the whole sheet.
	unknown []byte
	// tornHere (registered sheets): frame layout, 255 on the pieces Measure found removed by
	// the tear this sheet's photo shows (against the sheet before it); nil before Measure.
	tornHere []byte
	// tableCut (registered sheets): the area (mm²) cut out of the paper mask as table where
	// the fresh sheet's writing did not show (inkcut.go); 0 when none.
	tableCut float64
	// stepFloor (registered sheets): the weakest real brightness step in the photo when
	// edgeRefine re-decided its mask on a pale table (stepFloor), else 0 (shadehole.go).
	stepFloor float64
}

// Close releases the Mats. It is safe to call more than once.
func (s *SheetImage) Close() error {
	if s == nil {
		return nil
	}
	closeMat(&s.Image)
	closeMat(&s.Mask)
	closeMat(&s.gray)
	if s.feat != nil {
		s.feat.close()
		s.feat = nil
	}
	return nil
}

// SizePx is the frame size in pixels (columns, rows).
func (s *SheetImage) SizePx() image.Point { return frameSize(s.Paper, s.PxPerMM) }

func frameSize(p template.Paper, pxPerMM float64) image.Point {
	return image.Pt(int(math.Round(p.WidthMM*pxPerMM)), int(math.Round(p.HeightMM*pxPerMM)))
}

func closeMat(m *gocv.Mat) {
	if m.Ptr() != nil {
		m.Close()
	}
	*m = gocv.Mat{}
}

// ReadImage reads a photo as a BGR Mat; the caller closes it. The error names the problem
// (missing file, not an image, truncated image), and the file.
func ReadImage(path string) (gocv.Mat, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return gocv.Mat{}, fmt.Errorf("%s: file not found", path)
		}
		return gocv.Mat{}, fmt.Errorf("%s: %w", path, err)
	}
	m, err := DecodeImage(data)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// MaxImagePixels is the largest photo DecodeImage decodes: 200 megapixels (600 MB as BGR),
// well above any camera's (a 108-megapixel phone photo is 12000 x 9000).
const MaxImagePixels = 200_000_000

// ErrImageTooLarge: the image's header declares more than MaxImagePixels pixels.
var ErrImageTooLarge = errors.New("image too large")

// ErrUnsupportedFormat: the file is a photo in a format OpenCV 4.6 does not decode, HEIC or
// HEIF (an iPhone's default) or AVIF; it wraps ErrNotImage, and its message says what to do
// (a tester: such a photo was "not a readable image; use the original photo file", and the
// original is the HEIC).
var ErrUnsupportedFormat = fmt.Errorf("%w: a HEIC, HEIF or AVIF photo, which tearcam cannot decode: save it as JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)", ErrNotImage)

// heifFile reports whether data is an ISO base media file (its first box "ftyp") whose major
// brand is a HEIF image (HEIC, or AVIF) rather than a video.
func heifFile(data []byte) bool {
	if len(data) < 12 || string(data[4:8]) != "ftyp" {
		return false
	}
	switch string(data[8:12]) {
	case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis":
		return true
	}
	return false
}

// DecodeImage decodes encoded image bytes (JPEG, PNG, ...) into a BGR Mat the caller closes.
// A JPEG without an end-of-image marker after its scan (data after the marker, as a phone's
// motion photo appends, is ignored) or a PNG without its IEND chunk is ErrTruncated:
// OpenCV would otherwise return the missing part as grey and we would measure it. A JPEG or
// PNG whose header declares more than MaxImagePixels is ErrImageTooLarge. A JPEG whose
// compressed data is damaged is ErrCorrupt (see jpegCorrupt).
func DecodeImage(data []byte) (gocv.Mat, error) {
	if len(data) == 0 {
		return gocv.Mat{}, fmt.Errorf("%w: empty file", ErrNotImage)
	}
	if truncated(data) {
		return gocv.Mat{}, ErrTruncated
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width*cfg.Height > MaxImagePixels {
		// A few kilobytes can declare a huge image (a decompression bomb): refused from its
		// header, before OpenCV allocates it.
		return gocv.Mat{}, fmt.Errorf("%w: %dx%d pixels (%.0f megapixels; at most %d are decoded)",
			ErrImageTooLarge, cfg.Width, cfg.Height, float64(cfg.Width)*float64(cfg.Height)/1e6, MaxImagePixels/1000000)
	}
	if err := jpegCorrupt(data); err != nil {
		return gocv.Mat{}, err
	}
	m, err := imdecodeQuiet(data) // gocv.IMDecode, without libjpeg's padding warning
	if err != nil || m.Empty() {
		if err == nil {
			m.Close()
		}
		if heifFile(data) {
			return gocv.Mat{}, ErrUnsupportedFormat
		}
		return gocv.Mat{}, ErrNotImage
	}
	return m, nil
}

func truncated(data []byte) bool {
	switch {
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF: // JPEG
		// The end-of-image marker after the first scan; data may follow it (a phone's motion
		// photo appends its video), which decoders ignore. A marker inside that data makes a
		// truncated JPEG pass here; Go's decoder (jpegCorrupt) then finds it cut short.
		sos := bytes.Index(data, []byte{0xFF, 0xDA})
		return sos < 0 || !bytes.Contains(data[sos:], []byte{0xFF, 0xD9})
	case len(data) >= 8 && bytes.Equal(data[:8], []byte("\x89PNG\r\n\x1a\n")):
		return !bytes.Contains(data[max(0, len(data)-64):], []byte("IEND"))
	}
	return false
}

// jpegCorrupt decodes a JPEG with Go's image/jpeg, which stops at damaged compressed data
// (a marker inside the entropy-coded data, a Huffman code that does not exist) with a
// FormatError: ErrCorrupt; or at data that ends before the image does: ErrTruncated.
// libjpeg, under OpenCV, decodes such a file anyway: it prints "Corrupt JPEG data: ..." on
// the process's stderr, naming no file, and fills what it could not decode with grey or with
// smeared blocks, which would then be measured as paper or table. So a damaged JPEG is
// refused before OpenCV sees it. Costs one decode (about 30 ms for a
// 1600 x 1200 photo); a JPEG feature Go does not decode (arithmetic coding, 12-bit
// samples) is an UnsupportedError and left to OpenCV. Not a JPEG: nil.
func jpegCorrupt(data []byte) error {
	if len(data) < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF {
		return nil
	}
	_, err := jpeg.Decode(bytes.NewReader(data))
	var fe jpeg.FormatError
	switch {
	case errors.As(err, &fe):
		return fmt.Errorf("%w (%v)", ErrCorrupt, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ErrTruncated
	}
	return nil
}

// int32s views a continuous CV_32S Mat's data (valid while the Mat is open).
func int32s(m gocv.Mat) []int32 {
	b, err := m.DataPtrUint8()
	if err != nil || len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// float32s copies a continuous CV_32F Mat's data.
func float32s(m gocv.Mat) []float32 {
	f, err := m.DataPtrFloat32()
	if err != nil {
		return nil
	}
	return append([]float32(nil), f...)
}

// f32view is a continuous CV_32F Mat's data, not copied: valid until the Mat is closed or
// written.
func f32view(m gocv.Mat) []float32 {
	f, err := m.DataPtrFloat32()
	if err != nil {
		return nil
	}
	return f
}

// u8view is a continuous CV_8U Mat's data, not copied: valid until the Mat is closed or
// written.
func u8view(m gocv.Mat) []byte {
	b, err := m.DataPtrUint8()
	if err != nil {
		return nil
	}
	return b
}

// matBytes returns a copy of a Mat's pixels (continuous, row-major).
func matBytes(m gocv.Mat) []byte { return m.ToBytes() }

// newMask builds a CV_8UC1 Mat holding a copy of data; the caller closes it. (gocv's
// NewMatFromBytes shares the Go slice with OpenCV, so an in-place operation on the Mat would
// silently rewrite the slice: the copy keeps the two apart.)
func newMask(w, h int, data []byte) gocv.Mat {
	m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, data)
	if err != nil {
		panic(fmt.Sprintf("vision: NewMatFromBytes %dx%d: %v", w, h, err)) // programming error
	}
	defer m.Close()
	return m.Clone()
}

func colorRGBA(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }
