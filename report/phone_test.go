package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const chromiumPath = "/usr/bin/chromium"

// photo is a w x h JPEG, like the thumbnails tearcam inlines.
func photo(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, nil))
	return b.Bytes()
}

// TestReadableOnAPhone renders a report in headless Chromium at a phone's width: nothing
// may stick out sideways, and every inlined image must load.
func TestReadableOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium)", chromiumPath)
	}
	p := samplePage()
	big := photo(t, 720, 960)
	p.Players[0].Sheet = big
	p.Players[0].Tears = []Tear{{Before: big, After: photo(t, 720, 540), Annotated: big}, {Before: big}}
	p.Rulings.Players[0].Tears[1].Photo = "a-very-long-photo-name-without-any-break-at-all-0123456789abcdef0123456789.jpg"
	p.Rulings.Players[0].Tears[2].UndecidedReason = "letter 7 (i) of Dog Training is ambiguous; letter 10 (n) of Dog Training is ambiguous; " +
		"measurement refused: some-extremely-long-file-name-that-never-breaks-0123456789abcdef0123456789.jpg"
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile),
		chromedp.Navigate("file://"+path)))
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	require.NoError(t, err)
	assert.LessOrEqual(t, width, 390, "the page is wider than a phone's screen")
	broken, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).length`))
	require.NoError(t, err)
	assert.Equal(t, 0, broken, "every inlined image loads")
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.images.length`))
	require.NoError(t, err)
	assert.Equal(t, 5, shown)
	widest, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Math.max(...Array.from(document.images).map(i => i.getBoundingClientRect().right))`))
	require.NoError(t, err)
	assert.LessOrEqual(t, widest, 390, "images fit the screen")
}

// TestHeadersKeepWholeWords renders a report 400 px wide in headless Chromium: no table
// header may wrap ("playe r", "undecide d" once did), and no skill name in a cell breaks
// inside a word.
func TestHeadersKeepWholeWords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium)", chromiumPath)
	}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, samplePage()))
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(400, 2000), chromedp.Navigate("file://"+path)))
	// A header's text on more than one line box has wrapped.
	wrapped, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('th')).filter(th => {
		const r = document.createRange(); r.selectNodeContents(th); return r.getClientRects().length > 1;
	}).map(th => th.textContent)`))
	require.NoError(t, err)
	assert.Empty(t, wrapped, "headers wrapped at 400 px")
	headers, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('th').length`))
	require.NoError(t, err)
	assert.Greater(t, headers, 6, "the summary's and the tears' headers are on the page")
	// A one-word cell (a skill name, a count) on more than one line is broken mid-word.
	broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('td')).filter(td => {
		if (/\s/.test(td.textContent.trim())) return false;
		const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1;
	}).map(td => td.textContent)`))
	require.NoError(t, err)
	assert.Empty(t, broken, "one-word cells broken at 400 px")
}

// TestSummaryFitsAPhone renders a report 390 px wide in headless Chromium: no box on the
// page needs sideways scrolling (the summary's scroll box once hid its "status" column), and
// every summary cell, "in play" included, lies whole inside the screen.
func TestSummaryFitsAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium)", chromiumPath)
	}
	p := samplePage()
	inPlay := p.Rulings.Players[0]
	inPlay.Name, inPlay.Out = "Bartholomew-Maximilian", false
	p.Rulings.Players = append(p.Rulings.Players, inPlay)
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 2400), chromedp.Navigate("file://"+path)))
	scrolling, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('body *')).filter(e =>
		e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX)
	).map(e => e.tagName + '.' + e.className)`))
	require.NoError(t, err)
	assert.Empty(t, scrolling, "boxes that need sideways scrolling at 390 px")
	// Each summary cell's text, as laid out: its left and right edges.
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[][]any](`Array.from(document.querySelectorAll('table.summary td')).map(td => {
		const r = document.createRange(); r.selectNodeContents(td); const b = r.getBoundingClientRect();
		return [td.textContent.trim(), b.left, b.right];
	})`))
	require.NoError(t, err)
	require.Len(t, cells, 16, "two players, eight cells each")
	var texts []string
	for _, c := range cells {
		texts = append(texts, c[0].(string))
		assert.GreaterOrEqual(t, c[1].(float64), 0.0, "cell %q starts left of the screen", c[0])
		assert.LessOrEqual(t, c[2].(float64), 390.0, "cell %q is cut off at the right", c[0])
	}
	assert.Contains(t, texts, "in play")
}

// TestLoneImageNotFullWidth loads the report in headless Chromium at a laptop's width: a tear
// with one image (a refused measurement keeps only the photo before it) shows it as wide as
// one of a measured tear's three, not across the page (a tester: a lone "before" photo filled
// the screen). The columns are the grid's; on a phone there is one column either way.
func TestLoneImageNotFullWidth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium)", chromiumPath)
	}
	p := samplePage()
	img := photo(t, 360, 480)
	p.Players[0].Tears = []Tear{{Before: img, After: img, Annotated: img}, {}, {Before: img}}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, p))
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(900, 1000), chromedp.Navigate("file://"+path)))
	// Each .pics block's first figure's width, as a share of the block's.
	shares, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll(".pics")).map(
		p => p.firstElementChild.getBoundingClientRect().width / p.getBoundingClientRect().width)`))
	require.NoError(t, err)
	require.Len(t, shares, 2, "tears 1 and 3 have images")
	assert.Less(t, shares[0], 0.4, "a measured tear: three images side by side")
	assert.InDelta(t, shares[0], shares[1], 0.01, "the lone image is as wide as one of three")
}
