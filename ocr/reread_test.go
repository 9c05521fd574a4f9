package ocr

import (
	"image"
	"image/color"
	"math/rand"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
)

// tornMats renders the torn sheet in the sheet frame (table brown where paper is gone) and its
// paper mask, as vision hands a registered later photo to ocr. Close both.
func tornMats(t testing.TB, st *synth.State) (gocv.Mat, gocv.Mat) {
	t.Helper()
	src := st.Sheet.Image
	img := image.NewRGBA(src.Bounds())
	mask := image.NewGray(src.Bounds())
	for y := 0; y < st.Paper.H; y++ {
		for x := 0; x < st.Paper.W; x++ {
			if st.Paper.At(x, y) {
				img.Set(x, y, src.At(x, y))
				mask.SetGray(x, y, color.Gray{255})
			} else {
				img.Set(x, y, color.RGBA{70, 48, 30, 255})
			}
		}
	}
	im, err := gocv.ImageToMatRGB(img)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := gocv.ImageGrayToMatGray(mask)
	if err != nil {
		im.Close()
		t.Fatal(err)
	}
	return im, mm
}

// TestReread tears a rendered sheet (synth: a valid bite out of the first skill) and re-reads
// it: with the true letter states it must find no disagreement; with a removed letter claimed
// to be still on the sheet it must say so.
func TestReread(t *testing.T) {
	l, err := NewLocator(2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checked := 0
	for seed := int64(1); seed <= 6 && checked < 3; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sh, err := synth.RenderSheet(rng, synth.SheetSpec{PxPerMM: 4})
		if err != nil {
			t.Fatal(err)
		}
		st := synth.NewState(sh)
		res, err := st.Tear(rng, synth.TearSpec{Kind: synth.TearBite, Skill: sh.Skills[0].Name})
		if err != nil {
			t.Fatal(err)
		}
		var states []judge.SkillLetters
		removed := -1
		for _, s := range res.Truth.Letters {
			states = append(states, s.Judge())
		}
		for i, s := range states[0].States {
			if s == judge.LetterRemoved {
				removed = i
			}
		}
		if removed < 0 {
			continue // the bite took no whole letter of it (ambiguous geometry): next sheet
		}
		checked++
		img, mask := tornMats(t, st)
		layouts := sh.Layout()
		notes, err := l.Reread(img, mask, 4, layouts, states)
		if err != nil {
			img.Close()
			mask.Close()
			t.Fatal(err)
		}
		if len(notes) > 0 {
			t.Errorf("seed %d: true states, yet Reread disagrees: %q", seed, notes)
		}
		// With the outlines Locate found (instead of the exact ones), for the record.
		fresh := sheetMat(t, sh)
		empty := gocv.NewMat()
		located, err := l.Locate(fresh, empty, 4, sh.SkillNames())
		fresh.Close()
		empty.Close()
		if err != nil {
			t.Fatal(err)
		}
		own, err := l.Reread(img, mask, 4, located, states)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: with located outlines, Reread notes %q", seed, own)
		// Claim the removed letter is still there.
		wrong := make([]judge.SkillLetters, len(states))
		copy(wrong, states)
		wrong[0].States = append([]judge.LetterState(nil), states[0].States...)
		wrong[0].States[removed] = judge.LetterOnSheet
		notes, err = l.Reread(img, mask, 4, layouts, wrong)
		img.Close()
		mask.Close()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range notes {
			found = found || strings.Contains(n, "no ink is there")
		}
		if !found {
			t.Errorf("seed %d: letter %d of %q is gone, claimed on the sheet, and Reread says nothing: %q", seed, removed+1, sh.Skills[0].Name, notes)
		}
	}
	if checked == 0 {
		t.Fatal("no tear removed a whole letter: nothing checked")
	}
}
