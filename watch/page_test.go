package watch

import (
	"context"
	"image"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

const chromiumPath = "/usr/bin/chromium"

// TestPageShowsRulingInChromium runs watch on a test video with --http's Page and loads the
// page in headless Chromium: the live frame must load and the ruling must appear.
func TestPageShowsRulingInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium)", chromiumPath)
	}
	path, _ := writeTestVideo(t, 640, 480, nil, []image.Rectangle{image.Rect(0, 0, 60, 50)})
	page := NewPage()
	defer page.Close()
	page.FrameEvery = time.Millisecond
	srv := httptest.NewServer(page)
	defer srv.Close()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))

	src, err := OpenSource(path)
	require.NoError(t, err)
	defer src.Close()
	cfg := Config{Players: []Player{{Name: "Ann", Skills: []string{"A"}}},
		Paper: template.Paper{Name: "a4"}, Template: template.Default(),
		OnFrame: func(n int, f gocv.Mat, _ Phase, _ Stats) bool {
			page.SetFrame(n, f)
			time.Sleep(5 * time.Millisecond) // let the browser see a few live frames
			return true
		},
		OnEvent: page.Update,
	}
	_, err = Run(context.Background(), cfg, src, &fakeReferee{annotated: true}, strings.NewReader("use A\n"))
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.ruling`))))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#players`)))
	require.NoError(t, err)
	liveWidth, err := chromedp.Run(ctx, chromedp.Poll[int](`document.getElementById("live").naturalWidth`))
	require.NoError(t, err)
	annWidth, err := chromedp.Run(ctx, chromedp.Poll[int](`(document.querySelector(".ruling img") || {}).naturalWidth`))
	require.NoError(t, err)
	assert.Contains(t, text, "#1 use A: valid")
	assert.Contains(t, text, "frame:")
	assert.Equal(t, 640, liveWidth, "live frame shown at its width")
	assert.Greater(t, annWidth, 0, "annotated image shown")
}
