package synth

import (
	"fmt"
	"image"

	"gocv.io/x/gocv"
)

// Mask is a binary image in the sheet raster (1 = set). Pix is row-major, W*H bytes holding 0
// or 1.
type Mask struct {
	W, H int
	Pix  []uint8
}

// NewMask returns an empty w x h mask.
func NewMask(w, h int) *Mask { return &Mask{W: w, H: h, Pix: make([]uint8, w*h)} }

// Clone returns a deep copy.
func (m *Mask) Clone() *Mask {
	return &Mask{W: m.W, H: m.H, Pix: append([]uint8(nil), m.Pix...)}
}

// Count returns the number of set pixels.
func (m *Mask) Count() int {
	n := 0
	for _, v := range m.Pix {
		n += int(v)
	}
	return n
}

// At reports whether pixel (x, y) is set; outside the mask is unset.
func (m *Mask) At(x, y int) bool {
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return false
	}
	return m.Pix[y*m.W+x] != 0
}

// Alpha returns the mask as an image.Alpha (0 or 255).
func (m *Mask) Alpha() *image.Alpha {
	a := image.NewAlpha(image.Rect(0, 0, m.W, m.H))
	for i, v := range m.Pix {
		a.Pix[i] = v * 255
	}
	return a
}

// mat returns the mask as a CV_8U Mat (0 or 255). The caller closes it.
func (m *Mask) mat() (gocv.Mat, error) {
	b := make([]byte, len(m.Pix))
	for i, v := range m.Pix {
		b[i] = v * 255
	}
	return matFromBytes(m.H, m.W, gocv.MatTypeCV8U, b)
}

// matFromBytes copies data into a new Mat the caller closes (gocv's NewMatFromBytes keeps a
// pointer to Go memory, so it is cloned at once).
func matFromBytes(rows, cols int, mt gocv.MatType, data []byte) (gocv.Mat, error) {
	tmp, err := gocv.NewMatFromBytes(rows, cols, mt, data)
	if err != nil {
		return gocv.NewMat(), fmt.Errorf("new mat: %w", err)
	}
	out := tmp.Clone()
	tmp.Close()
	return out, nil
}

// maskFromMat reads a CV_8U Mat (nonzero = set).
func maskFromMat(m gocv.Mat) *Mask {
	b := m.ToBytes()
	out := NewMask(m.Cols(), m.Rows())
	for i, v := range b {
		if v != 0 {
			out.Pix[i] = 1
		}
	}
	return out
}

// and returns m AND o.
func (m *Mask) and(o *Mask) *Mask {
	r := NewMask(m.W, m.H)
	for i := range m.Pix {
		r.Pix[i] = m.Pix[i] & o.Pix[i]
	}
	return r
}

// andNot returns m AND NOT o.
func (m *Mask) andNot(o *Mask) *Mask {
	r := NewMask(m.W, m.H)
	for i := range m.Pix {
		r.Pix[i] = m.Pix[i] &^ o.Pix[i]
	}
	return r
}

// dilate grows m by r pixels with an elliptic kernel.
func (m *Mask) dilate(r int) (*Mask, error) {
	if r <= 0 {
		return m.Clone(), nil
	}
	src, err := m.mat()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*r+1, 2*r+1))
	defer k.Close()
	dst := gocv.NewMat()
	defer dst.Close()
	gocv.Dilate(src, &dst, k)
	return maskFromMat(dst), nil
}

// touchesOutside reports whether a set pixel of m lies on the raster border or next to
// (8-neighbourhood) a pixel unset in paper.
// Only pixels inside box are looked at.
func (m *Mask) touchesOutside(paper *Mask, box image.Rectangle) bool {
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if m.Pix[y*m.W+x] == 0 {
				continue
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if !paper.At(x+dx, y+dy) {
						return true
					}
				}
			}
		}
	}
	return false
}

// bounds returns the bounding rectangle of the set pixels (empty if none).
func (m *Mask) bounds() image.Rectangle {
	r := image.Rectangle{}
	first := true
	for y := 0; y < m.H; y++ {
		row := m.Pix[y*m.W : (y+1)*m.W]
		for x, v := range row {
			if v == 0 {
				continue
			}
			if first {
				r = image.Rect(x, y, x+1, y+1)
				first = false
				continue
			}
			if x < r.Min.X {
				r.Min.X = x
			}
			if x >= r.Max.X {
				r.Max.X = x + 1
			}
			if y >= r.Max.Y {
				r.Max.Y = y + 1
			}
		}
	}
	return r
}
