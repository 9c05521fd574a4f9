package vision

import (
	"fmt"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"tearcam/internal/synth"
	"testing"
)

// TestRegisterSeedDump is TestRegisterAllSynthDump on other synthetic sets:
// VISION_REGSEED=/tmp/synth2[,case-003,...] registers every visible later photo of the
// named (or all) cases and logs the outcome and the true error (photos that cut the sheet off
// too with VISION_REGSEED_CUTOFF=1).
func TestRegisterSeedDump(t *testing.T) {
	env := os.Getenv("VISION_REGSEED")
	if env == "" {
		t.Skip("VISION_REGSEED=dir[,case,...] to dump")
	}
	parts := strings.Split(env, ",")
	var dirs []string
	if len(parts) > 1 {
		for _, c := range parts[1:] {
			dirs = append(dirs, filepath.Join(parts[0], c))
		}
	} else {
		ds, _ := filepath.Glob(filepath.Join(parts[0], "*", "truth.json"))
		for _, d := range ds {
			dirs = append(dirs, filepath.Dir(d))
		}
		sort.Strings(dirs)
	}
	if os.Getenv("VISION_REGSEED_EDGES") != "" {
		edgeDump = func(offs []float64, keys []int, ref map[int]float64, spill, edge int) {
			var b [4]string
			for i, o := range offs {
				s := keys[i] >> 20
				r, ok := ref[keys[i]]
				c := fmt.Sprintf("%.0f", o*4)
				if ok && r*4 != -0.5 && r*4 != 0.5 && r*4 != 0 {
					c += fmt.Sprintf("(%.0f)", r*4)
				}
				b[s] += c + " "
			}
			t.Logf("spill %d edge %d", spill, edge)
			for s := range b {
				t.Logf("  side %d: %s", s, b[s])
			}
		}
		defer func() { edgeDump = nil }()
	}
	wholeSideHook = func(skip [4]bool, edgeMM, sigmaMM float64) {
		t.Logf("  sides torn along their length %v: untorn edges then off by %.2f mm, standard error on the paper %.3f mm", skip, edgeMM, sigmaMM)
	}
	defer func() { wholeSideHook = nil }()
	photoEdgeHook = func(mask, photo []float64, keys []int, maskMM, photoMM float64) {
		var b [4]string
		for i := range keys {
			if os.Getenv("VISION_REGSEED_EDGES") != "" {
				b[keys[i]>>20] += fmt.Sprintf("%.1f ", photo[i]*4)
			}
		}
		t.Logf("  untorn edges on the photo's colour step: off by %.2f mm (on the mask %.2f mm) %v", photoMM, maskMM, b)
	}
	defer func() { photoEdgeHook = nil }()
	outlineRefusedHook = func(err error) { t.Logf("  outline refused: %v", err) }
	defer func() { outlineRefusedHook = nil }()
	if d := os.Getenv("VISION_REGSEED_DEBUG"); d != "" {
		debugDir = d
		defer func() { debugDir = "" }()
	}
	rows := registerAllDirs(t, dirs)
	for _, r := range rows {
		ref := errors.Is(r.err, ErrRegistration)
		t.Logf("%-28s refused=%v true=%.2f resid=%.2f %v %v", r.name, ref, r.trueErr, r.residual, r.notes, r.err)
	}
	regAllSummary(t, rows)
}

// regAllSummary logs, over the rows of registerAllDirs, the registered fraction and the worst
// accepted true error: at the first try (to the fresh sheet), and with the referee's fallback
// (to the previous registered photo, rows named "(to previous)"); then each refused photo
// with its reason (which names the feature matches when the alignment failed on them).
func regAllSummary(t *testing.T, rows []regAllRow) {
	t.Helper()
	const prevTag = " (to previous)"
	var n, first, final int
	var worstFirst, worstAll float64
	var silent []string
	refused := map[string]error{}
	var order []string
	for _, r := range rows {
		base, prev := strings.CutSuffix(r.name, prevTag)
		if r.err == nil {
			if r.trueErr > 1 {
				silent = append(silent, fmt.Sprintf("%s %.2f mm", r.name, r.trueErr))
			}
			worstAll = math.Max(worstAll, r.trueErr)
			final++
			delete(refused, base)
			if !prev {
				first++
				worstFirst = math.Max(worstFirst, r.trueErr)
			}
			continue
		}
		if !prev {
			n++
			order = append(order, base)
		}
		refused[base] = r.err
	}
	n += first
	t.Logf("registered to the fresh sheet: %d/%d, worst accepted true error %.2f mm", first, n, worstFirst)
	t.Logf("with the fallback to the previous photo: %d/%d, worst accepted true error %.2f mm", final, n, worstAll)
	t.Logf("accepted with a true error over 1 mm: %d %v", len(silent), silent)
	for _, b := range order {
		if err, ok := refused[b]; ok {
			t.Logf("refused: %-28s %v", b, err)
		}
	}
}

// registerAllDirs is registerAllSynth over the synthetic sets in dirs (with regseed's debug
// dumps when VISION_REGSEED_DEBUG or VISION_REGSEED_OUT ask for them).
func registerAllDirs(t *testing.T, dirs []string) []regAllRow {
	keepRefused = true
	defer func() { keepRefused = false }()
	var rows []regAllRow
	for _, dir := range dirs {
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := truthPaper(tr)
		for _, pl := range tr.Players {
			if pl.Sheet.CutOff {
				continue
			}
			img0, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
			require.NoError(t, err)
			fresh, err := Fresh(img0, paper)
			img0.Close()
			if err != nil {
				// The untorn sheet of a wholly visible photo not found: a Fresh failure,
				// counted by TestSynthSet, not a registration one.
				t.Logf("%s %s: fresh sheet not found: %v", filepath.Base(dir), pl.Sheet.File, err)
				continue
			}
			th0 := homog(pl.Sheet.Homography)
			var prev *SheetImage // the last registered sheet (the referee's fallback)
			for i, tt := range pl.Tears {
				if tt.Photo.CutOff && os.Getenv("VISION_REGSEED_CUTOFF") == "" {
					continue
				}
				img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				require.NoError(t, err)
				if edgeDump != nil {
					t.Logf("#### %s t%d", filepath.Base(dir), i+1)
				}
				if os.Getenv("VISION_REGSEED_OUTLINE") != "" {
					// The remnant retry's estimates against the truth (sheet 3x3 grid, frame mm).
					F := homog(fresh.H).inv().mul(th0)
					th := homog(tt.Photo.Homography)
					remnantHook = func(stage string, h homog, _ []pt, _ []pair) {
						var es []float64
						for _, fx := range []float64{0.1, 0.5, 0.9} {
							for _, fy := range []float64{0.1, 0.5, 0.9} {
								q := pt{fx * paper.WidthMM, fy * paper.HeightMM}
								es = append(es, dist(h.inv().apply(th.apply(q)), F.apply(q)))
							}
						}
						sort.Float64s(es)
						t.Logf("    remnant %s: off the truth by %.1f mm (median), %.1f mm (most)", stage, es[4], es[8])
					}
				}
				if os.Getenv("VISION_REGSEED_OUTLINE") != "" {
					// How many feature matches are right (within 5 photo px of the truth).
					F := homog(fresh.H).inv().mul(th0)
					th := homog(tt.Photo.Homography)
					featMatchHook = func(m regMode, src, dst []pt) {
						right := 0
						for i := range src {
							if dist(th.apply(F.inv().apply(src[i])), dst[i]) < 5 {
								right++
							}
						}
						t.Logf("    %v: %d of %d feature matches right", m, right, len(src))
						// The similarity most matches agree with (within 4 px), and its error.
						bi, bj, bn := -1, -1, 0
						sim := func(i, j int) (complex128, complex128) {
							si, sj := complex(src[i].X, src[i].Y), complex(src[j].X, src[j].Y)
							di, dj := complex(dst[i].X, dst[i].Y), complex(dst[j].X, dst[j].Y)
							a := (dj - di) / (sj - si)
							return a, di - a*si
						}
						for i := range src {
							for j := i + 1; j < len(src); j++ {
								if dist(src[i], src[j]) < 5 {
									continue
								}
								a, b := sim(i, j)
								n := 0
								for k := range src {
									z := a*complex(src[k].X, src[k].Y) + b
									if dist(pt{real(z), imag(z)}, dst[k]) < 4 {
										n++
									}
								}
								if n > bn {
									bi, bj, bn = i, j, n
								}
							}
						}
						if bi >= 0 {
							a, b := sim(bi, bj)
							var es []float64
							nr := 0
							for k := range src {
								z := a*complex(src[k].X, src[k].Y) + b
								if dist(pt{real(z), imag(z)}, dst[k]) < 4 {
									tz := th.apply(F.inv().apply(src[k]))
									es = append(es, dist(tz, dst[k]))
									if es[len(es)-1] < 5 {
										nr++
									}
								}
							}
							// The similarity's error (mm) at points 0..60 mm from the inliers' centre.
							var cz complex128
							var in []int
							for k := range src {
								z := a*complex(src[k].X, src[k].Y) + b
								if dist(pt{real(z), imag(z)}, dst[k]) < 4 {
									cz += complex(src[k].X, src[k].Y)
									in = append(in, k)
								}
							}
							cz /= complex(float64(len(in)), 0)
							span := 0.0
							for _, k := range in {
								span = math.Max(span, dist(src[k], pt{real(cz), imag(cz)}))
							}
							errAt := func(q pt) float64 {
								z := a*complex(q.X, q.Y) + b
								return dist(pt{real(z), imag(z)}, th.apply(F.inv().apply(q))) / cmplxAbs(a)
							}
							var e0, e20, e40 float64
							for k := 0; k < 8; k++ {
								ang := float64(k) * math.Pi / 4
								for _, r := range []float64{0, 20, 40} {
									q := pt{real(cz) + r*math.Cos(ang), imag(cz) + r*math.Sin(ang)}
									e := errAt(q)
									switch r {
									case 0:
										e0 = e
									case 20:
										e20 = math.Max(e20, e)
									default:
										e40 = math.Max(e40, e)
									}
								}
							}
							t.Logf("      similarity: %d inliers (%d right) within %.0f mm of (%.0f, %.0f) mm, scale %.2f px/mm; true error %.2f mm there, %.2f within 20 mm, %.2f within 40 mm", bn, nr, span, real(cz), imag(cz), cmplxAbs(a), e0, e20, e40)
						}
					}
				}
				after, err := Register(fresh, img)
				remnantHook = nil
				if debugDir != "" {
					for _, f := range []string{"colourframe", "maskframe", "warpframe"} {
						os.Rename(filepath.Join(debugDir, f+".png"), filepath.Join(debugDir, filepath.Base(dir)+"-"+strings.TrimSuffix(tt.Photo.File, ".jpg")+"-"+f+".png"))
					}
				}
				if od := os.Getenv("VISION_REGSEED_OUT"); od != "" && after != nil {
					n := filepath.Join(od, filepath.Base(dir)+"-"+strings.TrimSuffix(tt.Photo.File, ".jpg"))
					gocv.IMWrite(n+"-mask.png", after.Mask)
					gocv.IMWrite(n+"-img.png", after.Image)
				}
				img.Close()
				row := regAllRow{name: fmt.Sprintf("%s t%d %s", filepath.Base(dir), i+1, tt.Photo.File), err: err}
				if after != nil {
					row.trueErr = synthRegErr(fresh, after, th0, homog(tt.Photo.Homography), paper)
					row.residual = after.ResidualMM
					row.notes = after.Notes
				} else {
					row.trueErr = -1
				}
				rows = append(rows, row)
				if err != nil && prev != nil && !errors.Is(err, ErrPaperMask) {
					// The referee's fallback: register to the previous measured sheet (not
					// when the photo's paper mask contradicts the fresh sheet).
					if after != nil {
						after.Close()
						after = nil
					}
					img, _ := ReadImage(filepath.Join(dir, tt.Photo.File))
					if os.Getenv("VISION_REGSEED_OUTLINE") != "" {
						// Each outline pose's error against the truth at the sheet's 3x3 grid
						// (frame mm): the median and the largest.
						F := homog(fresh.H).inv().mul(th0)
						th := homog(tt.Photo.Homography)
						outlineHook = func(hs []homog, ss []float64) {
							for k := range hs {
								var es []float64
								for _, fx := range []float64{0.1, 0.5, 0.9} {
									for _, fy := range []float64{0.1, 0.5, 0.9} {
										q := pt{fx * paper.WidthMM, fy * paper.HeightMM}
										es = append(es, dist(hs[k].inv().apply(th.apply(q)), F.apply(q)))
									}
								}
								sort.Float64s(es)
								t.Logf("    outline pose %d score %.1f: off the truth by %.1f mm (median), %.1f mm (most)", k, ss[k], es[4], es[8])
							}
						}
						inkHook = func(a, b float64) { t.Logf("    pose ink: %.1f mm² on blank, %.1f mm² of writing not shown", a, b) }
					}
					a2, err2 := Register(prev, img)
					outlineHook, inkHook, featMatchHook = nil, nil, nil
					img.Close()
					r2 := regAllRow{name: row.name + " (to previous)", err: err2, trueErr: -1}
					if a2 != nil {
						r2.trueErr = synthRegErr(fresh, a2, th0, homog(tt.Photo.Homography), paper)
						r2.residual = a2.ResidualMM
						r2.notes = a2.Notes
						if err2 == nil {
							after, err = a2, nil
						} else {
							a2.Close()
						}
					}
					rows = append(rows, r2)
				}
				if err == nil {
					if prev != nil {
						prev.Close()
					}
					prev = after
				} else if after != nil {
					after.Close()
				}
			}
			if prev != nil {
				prev.Close()
			}
			fresh.Close()
		}
	}
	return rows
}

func cmplxAbs(a complex128) float64 { return math.Hypot(real(a), imag(a)) }
