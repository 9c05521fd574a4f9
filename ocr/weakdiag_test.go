package ocr

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/vision"
)

// TestWeakDiag (OCR_WEAKDIAG=dir1:dir2:..., "project" for testdata/images/synth) locates the
// skills on every fresh photo of the generated audit sets and tallies, per font, the skills
// located, those located weakly (confidence under judge.WeakReadConfidence), those weak
// enough to leave a tear for them undecided (under judge.VerdictReadConfidence with identity
// under judge.VerdictIdentityConfidence), and how many of each had every letter right by
// the truth. OCR_WEAKDIAG_DUMP=dir writes the crop each weak skill was read from. A
// diagnostic, skipped otherwise.
func TestWeakDiag(t *testing.T) {
	env := os.Getenv("OCR_WEAKDIAG")
	if env == "" {
		t.Skip("OCR_WEAKDIAG not set")
	}
	if v, err := strconv.ParseFloat(os.Getenv("OCR_DESLANT"), 64); err == nil {
		deslant = v
	}
	l := newTestLocator(t)
	dump := os.Getenv("OCR_WEAKDIAG_DUMP")
	type tally struct{ n, located, right, weak, weakRight, verdict, verdictRight int }
	fonts := map[string]*tally{}
	all := &tally{}
	for _, dir := range strings.Split(env, ":") {
		if strings.HasPrefix(dir, "rendered") {
			// rendered,seed,n: synthetic sheets rendered at 4 px/mm (as TestSynthSheets).
			var seed, n int64
			fmt.Sscanf(dir, "rendered,%d,%d", &seed, &n)
			for i := seed; i < seed+n; i++ {
				sh, err := synth.RenderSheet(rand.New(rand.NewSource(i)), synth.SheetSpec{PxPerMM: 4})
				if err != nil {
					t.Fatal(err)
				}
				m := sheetMat(t, sh)
				empty := gocv.NewMat()
				views := make([]*view, len(sh.Skills))
				matchHook = func(im *inkMap, k int, v *view) { views[k] = v }
				lays, evs := locateWithEvidence(t, l, m, empty, sh.PxPerMM, sh.SkillNames())
				matchHook = nil
				m.Close()
				empty.Close()
				for k, sk := range sh.Skills {
					s := scoreSkill(lays[k], sk)
					f := fonts[sk.Font]
					if f == nil {
						f = &tally{}
						fonts[sk.Font] = f
					}
					for _, x := range []*tally{f, all} {
						x.n++
						if lays[k].Located == 0 {
							continue
						}
						x.located++
						if s.lettersRight {
							x.right++
						}
						if lays[k].Confidence < judge.WeakReadConfidence {
							x.weak++
							if s.lettersRight {
								x.weakRight++
							}
						}
						if lays[k].Confidence < judge.VerdictReadConfidence && lays[k].Identity < judge.VerdictIdentityConfidence {
							x.verdict++
							if s.lettersRight {
								x.verdictRight++
							}
						}
					}
					if lays[k].Located == 0 || lays[k].Confidence >= judge.WeakReadConfidence {
						continue
					}
					ev := evs[k]
					t.Logf("WEAK rendered%d %q font %s cap %.1f angle %.0f: conf %.2f id %.2f out %.2f sim %.2f tess %.0f div %v letters %q read %q",
						i, sk.Name, sk.Font, sk.CapHeightMM, sk.AngleDeg, lays[k].Confidence, lays[k].Identity, lays[k].Outline, ev.sim, ev.tess, ev.div, s.marks, ev.read.text)
					if dump != "" && views[k] != nil && views[k].cr != nil {
						writeCrop(t, filepath.Join(dump, fmt.Sprintf("rendered%d-%s.png", i, strings.ReplaceAll(sk.Name, " ", "_"))), views[k].cr)
					}
				}
			}
			continue
		}
		if dir == "project" {
			dir = filepath.Join("..", "testdata", "images", "synth")
		}
		ForEachFreshSheet(t, dir, func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
			names := truthNames(pt)
			views := make([]*view, len(names))
			var ink *inkMap
			matchHook = func(im *inkMap, k int, v *view) { views[k], ink = v, im }
			lays, evs := locateWithEvidence(t, l, fresh.Image, fresh.Mask, fresh.PxPerMM, names)
			matchHook = nil
			for k, sk := range pt.Skills {
				truthQ := truthInFrame(pt, sk, fresh)
				chars := make([]rune, len(sk.Letters))
				for i, le := range sk.Letters {
					chars[i] = []rune(le.Char)[0]
				}
				s := scoreLetters(lays[k], truthQ, chars, sk.CapHeightMM)
				f := fonts[sk.Font]
				if f == nil {
					f = &tally{}
					fonts[sk.Font] = f
				}
				for _, x := range []*tally{f, all} {
					x.n++
					if lays[k].Located == 0 {
						continue
					}
					x.located++
					if s.lettersRight {
						x.right++
					}
					if lays[k].Confidence < judge.WeakReadConfidence {
						x.weak++
						if s.lettersRight {
							x.weakRight++
						}
					}
					if lays[k].Confidence < judge.VerdictReadConfidence && lays[k].Identity < judge.VerdictIdentityConfidence {
						x.verdict++
						if s.lettersRight {
							x.verdictRight++
						}
					}
				}
				if lays[k].Located == 0 || lays[k].Confidence >= judge.WeakReadConfidence {
					continue
				}
				src := filepath.Base(dir) + "/" + filepath.Base(caseDir) + "/" + pt.Name
				ev := evs[k]
				forced, exact := "", ""
				if ev.forced != nil {
					forced = fmt.Sprintf("%q@%.0f", ev.forced.text, ev.forced.conf)
				}
				if ev.exact != nil {
					exact = fmt.Sprintf("%s/%.2f", ev.exact.psm, ev.exact.zoom)
				}
				cov := ""
				if views[k] != nil && ink != nil {
					cov = inkCover(ink, views[k].rg, truthQ)
				}
				t.Logf("WEAK %s %q font %s cap %.1f angle %.0f: conf %.2f id %.2f out %.2f sim %.2f tess %.0f div %v forced %s exact %s letters %q located %v ink %s",
					src, sk.Name, sk.Font, sk.CapHeightMM, sk.AngleDeg, lays[k].Confidence, lays[k].Identity, lays[k].Outline, ev.sim, ev.tess, ev.div, forced, exact, s.marks, s.located, cov)
				if dump != "" && views[k] != nil && views[k].cr != nil {
					writeCrop(t, filepath.Join(dump, fmt.Sprintf("%s-%s.png", strings.ReplaceAll(src, "/", "-"), strings.ReplaceAll(sk.Name, " ", "_"))), views[k].cr)
				}
			}
		})
	}
	var keys []string
	for f := range fonts {
		keys = append(keys, f)
	}
	sort.Strings(keys)
	line := func(name string, x *tally) {
		t.Logf("%-26s skills %3d located %3d right %3d | weak %2d (right %2d) | verdict-weak %2d (right %2d)", name, x.n, x.located, x.right, x.weak, x.weakRight, x.verdict, x.verdictRight)
	}
	for _, f := range keys {
		line(f, fonts[f])
	}
	line("ALL", all)
}

// inkCover says how much of the truth word's ink (pixels inside its letters' outlines grown
// by 0.3 mm) the region holds, how much is ink elsewhere, and how much is dark but no ink.
func inkCover(im *inkMap, rg *region, truth [][]judge.Point) string {
	if rg.full != nil {
		rg = rg.full
	}
	member := map[int32]bool{}
	for _, c := range rg.comps {
		member[int32(c+1)] = true
	}
	var dark, inkN, inRg, perLetter = 0, 0, 0, []string{}
	for _, q := range truth {
		x0, y0, x1, y1 := 1e9, 1e9, -1e9, -1e9
		for _, p := range q {
			x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
		}
		ld, li, lr := 0, 0, 0
		for y := int(y0*im.pxPerMM) - 1; y <= int(y1*im.pxPerMM)+1; y++ {
			for x := int(x0*im.pxPerMM) - 1; x <= int(x1*im.pxPerMM)+1; x++ {
				if x < 0 || y < 0 || x >= im.w || y >= im.h || !inQuad(q, (float64(x)+0.5)/im.pxPerMM, (float64(y)+0.5)/im.pxPerMM, 0.3) {
					continue
				}
				i := y*im.w + x
				if im.dark[i] > 40 {
					ld++
				}
				if im.label[i] != 0 {
					li++
					if member[im.label[i]] {
						lr++
					}
				}
			}
		}
		dark, inkN, inRg = dark+ld, inkN+li, inRg+lr
		perLetter = append(perLetter, fmt.Sprintf("%d/%d/%d", lr, li, ld))
	}
	return fmt.Sprintf("region %d of ink %d (dark %d) per letter %v", inRg, inkN, dark, perLetter)
}
