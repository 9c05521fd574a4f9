package watch

import (
	"context"
	"encoding/json"
	"image"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/report"
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
	caption, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.ruling figcaption`)))
	require.NoError(t, err)
	assert.Equal(t, "annotated: "+report.AnnotationKey, caption, "the colours' key under the annotated image, as in the report")
}

func TestPageEndpoints(t *testing.T) {
	page := NewPage()
	defer page.Close()
	page.FrameEvery = time.Nanosecond
	srv := httptest.NewServer(page)
	defer srv.Close()
	get := func(path string) (int, string, []byte) {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b
	}
	code, _, _ := get("/frame.jpg")
	assert.Equal(t, http.StatusServiceUnavailable, code, "no frame yet")

	frame := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 90, 140, 0), 720, 1280, gocv.MatTypeCV8UC3)
	defer frame.Close()
	page.SetFrame(7, frame)
	code, ctype, jpeg := get("/frame.jpg")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "image/jpeg", ctype)
	img, err := gocv.IMDecode(jpeg, gocv.IMReadColor)
	require.NoError(t, err)
	assert.Equal(t, 640, img.Cols(), "scaled to FrameWidth")
	img.Close()

	r := judge.TearRuling{Index: 1, Kind: judge.KindUse, Skill: "A", Verdict: judge.Valid}
	page.Update(Event{Player: 0, Ruling: &r, Annotated: []byte("\xff\xd8jpeg"),
		Rulings: judge.NewRulings("a4", template.Default(), []judge.PlayerRulings{{Name: "Ann", Tears: []judge.TearRuling{r}}})})
	code, _, b := get("/rulings.json")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(b), `"name":"Ann"`)
	assert.Contains(t, string(b), `"annotated":["0/1"]`)
	assert.Contains(t, string(b), `"frame":7`)
	assert.Contains(t, string(b), `"annotation_key":`+strconv.Quote(report.AnnotationKey), "the report's key of the images' colours")
	code, _, b = get("/annotated/0/1.jpg")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "\xff\xd8jpeg", string(b))
	code, _, _ = get("/annotated/0/2.jpg")
	assert.Equal(t, http.StatusNotFound, code)
	code, _, _ = get("/nothing")
	assert.Equal(t, http.StatusNotFound, code)

	// The MJPEG stream: a multipart part per new frame.
	resp, err := http.Get(srv.URL + "/live.mjpg")
	require.NoError(t, err)
	defer resp.Body.Close()
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	require.NoError(t, err)
	mr := multipart.NewReader(resp.Body, params["boundary"])
	part, err := mr.NextPart()
	require.NoError(t, err)
	assert.Equal(t, "image/jpeg", part.Header.Get("Content-Type"))
	// A part ends only where the next begins: read it by its length.
	n, err := strconv.Atoi(part.Header.Get("Content-Length"))
	require.NoError(t, err)
	first := make([]byte, n)
	_, err = io.ReadFull(part, first)
	require.NoError(t, err)
	assert.Equal(t, jpeg, first, "the stream's first part is the current frame")
	page.SetFrame(8, frame)
	part, err = mr.NextPart()
	require.NoError(t, err, "a new frame is a new part")
	assert.Equal(t, "image/jpeg", part.Header.Get("Content-Type"))
}

// TestPageStatusAndWaiting: the page's status line is the latest event's (a tester: "the
// sheet moved again ... taken back" stayed up through later tears), and the page says which
// announced tear each player's next sheet is for.
func TestPageStatusAndWaiting(t *testing.T) {
	page := NewPage()
	defer page.Close()
	srv := httptest.NewServer(page)
	defer srv.Close()
	status := func() (string, []string) {
		resp, err := http.Get(srv.URL + "/rulings.json")
		require.NoError(t, err)
		defer resp.Body.Close()
		var body struct {
			Status  string   `json:"status"`
			Waiting []string `json:"waiting"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return body.Status, body.Waiting
	}
	var log strings.Builder
	c := newController(Config{Players: []Player{{Name: "Lena", Skills: []string{"Etiquette", "Mechanics"}}}, Paper: template.Paper{Name: "a4"},
		Template: template.Default(), Log: &log, Now: time.Now, OnEvent: page.Update}, &scriptReferee{})
	c.onSettle(settledAt(1, 0))
	_, waiting := status()
	assert.Equal(t, []string{"Lena: no tear announced"}, waiting)
	for _, line := range []string{"damage Mechanics", "damage Etiquette"} {
		a, err := ParseAnnouncement(line)
		require.NoError(t, err)
		c.onAnnouncement(a)
	}
	c.logf("frame 212: the sheet moved again before it settled; the tear judged on it is taken back")
	st, waiting := status()
	assert.Equal(t, "frame 212: the sheet moved again before it settled; the tear judged on it is taken back", st)
	assert.Equal(t, []string{"Lena's tear 1 (damage Mechanics): waiting for the torn sheet to settle; 1 more announced"}, waiting)
	c.onSettle(settledAt(2, 0))
	st, waiting = status()
	assert.Equal(t, "Lena's tear 1 ruled: valid (frame:2)", st, "the message is cleared by the next event")
	assert.Equal(t, []string{"Lena's tear 2 (damage Etiquette): waiting for the torn sheet to settle"}, waiting)
	c.finish(false)
}
