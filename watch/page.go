package watch

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"image"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/report"
)

//go:embed page.html
var pageHTML []byte

// Page is the HTTP view of a watch session (watch --http): the live frame, the rulings so
// far and each ruling's annotated image. Its methods are safe for concurrent use.
//
//	GET /                   the page (refreshes itself)
//	GET /frame.jpg          the latest frame, as JPEG
//	GET /live.mjpg          the frames as an MJPEG stream (multipart/x-mixed-replace)
//	GET /rulings.json       the rulings so far (DESIGN.md rulings schema) plus "status",
//	                        "waiting" (Event.Waiting: the tear each player's next sheet is for)
//	                        and "annotation_key" (report.AnnotationKey, the images' colours)
//	GET /annotated/P/I.jpg  the annotated image of player P's (0-based) tear I (1-based)
type Page struct {
	// FrameEvery is the shortest time between two live frames encoded (0: 200 ms).
	FrameEvery time.Duration
	// FrameWidth is the width live frames are scaled to (0: 640).
	FrameWidth int

	mu        sync.Mutex
	frame     []byte // latest live frame, JPEG
	frameNo   int
	frameAt   time.Time
	next      chan struct{} // closed and replaced at each new frame
	closed    bool
	doc       judge.Rulings
	annotated map[string][]byte
	status    string
	waiting   []string
	small     gocv.Mat
	commands  chan string // GM lines posted on the page's form (Commands)
}

// NewPage makes an empty Page. Close it to free its Mat.
func NewPage() *Page {
	p := &Page{annotated: map[string][]byte{}, small: gocv.NewMat(), doc: judge.Rulings{Schema: judge.Schema, Players: []judge.PlayerRulings{}},
		commands: make(chan string, 16)}
	p.next = make(chan struct{})
	return p
}

// Close frees the Page's Mat and wakes MJPEG streams so that they end.
func (p *Page) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.next)
	}
	return p.small.Close()
}

// SetFrame offers the current frame; it is scaled and encoded at most every FrameEvery.
// Call it from the capture goroutine only.
func (p *Page) SetFrame(frameNo int, frame gocv.Mat) {
	every := p.FrameEvery
	if every == 0 {
		every = 200 * time.Millisecond
	}
	p.mu.Lock()
	due := time.Since(p.frameAt) >= every
	p.mu.Unlock()
	if !due || frame.Empty() {
		return
	}
	w := p.FrameWidth
	if w == 0 {
		w = 640
	}
	if w > frame.Cols() {
		w = frame.Cols()
	}
	h := frame.Rows() * w / frame.Cols()
	gocv.Resize(frame, &p.small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, p.small, []int{gocv.IMWriteJpegQuality, 80})
	if err != nil {
		return
	}
	b := append([]byte(nil), buf.GetBytes()...)
	buf.Close()
	p.mu.Lock()
	p.frame, p.frameNo, p.frameAt = b, frameNo, time.Now()
	if !p.closed {
		close(p.next)
		p.next = make(chan struct{})
	}
	p.mu.Unlock()
}

// Update takes an event of the session: the rulings so far and the annotated image.
func (p *Page) Update(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Rulings.Schema != "" {
		p.doc = e.Rulings
	}
	if e.Ruling != nil && len(e.Annotated) > 0 {
		p.annotated[fmt.Sprintf("%d/%d", e.Player, e.Ruling.Index)] = e.Annotated
	}
	// The status line is the latest event's: a message stays up only until the next event
	// (a tester: "the sheet moved again ... taken back" stayed up through later tears).
	switch {
	case e.Message != "":
		p.status = e.Message
	case e.Ruling != nil && e.Amended:
		p.status = fmt.Sprintf("%s's tear %d amended after the OCR re-read: %s", p.playerName(e.Player), e.Ruling.Index, e.Ruling.Verdict)
	case e.Ruling != nil && e.GM:
		p.status = fmt.Sprintf("%s's tear %d: %s", p.playerName(e.Player), e.Ruling.Index, judge.GMLine(*e.Ruling))
	case e.Ruling != nil:
		name := p.playerName(e.Player)
		p.status = fmt.Sprintf("%s's tear %d ruled: %s", name, e.Ruling.Index, e.Ruling.Verdict)
		if e.Ruling.Photo != "" {
			p.status += " (" + e.Ruling.Photo + ")"
		}
	case e.Fresh != nil:
		p.status = ""
	}
	if e.Rulings.Schema != "" {
		p.waiting = e.Waiting
	}
}

// playerName is player i's name in the document shown (p.mu held).
func (p *Page) playerName(i int) string {
	if i >= 0 && i < len(p.doc.Players) {
		return p.doc.Players[i].Name
	}
	return fmt.Sprintf("player %d", i+1)
}

// SetStatus sets the status line shown on the page.
func (p *Page) SetStatus(s string) {
	p.mu.Lock()
	p.status = s
	p.mu.Unlock()
}

// Commands are the GM's rulings posted on the page's form (POST /gm: player, tear, ruling),
// each as the line the GM would type on stdin ("NAME: gm N RULING"): give it to
// Config.Commands.
func (p *Page) Commands() <-chan string { return p.commands }

// postGM takes the form's GM ruling: a line that does not parse is refused at once (400,
// saying why); one that does is queued for the session, which applies it, or says in one
// line (on the page's status and stderr) why it changed nothing.
func (p *Page) postGM(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST the GM's ruling: player, tear, ruling", http.StatusMethodNotAllowed)
		return
	}
	player := strings.TrimSpace(r.FormValue("player"))
	line := fmt.Sprintf("gm %s %s", strings.TrimSpace(r.FormValue("tear")), r.FormValue("ruling"))
	if player != "" {
		line = player + ": " + line
	}
	if _, err := ParseAnnouncement(line); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case p.commands <- line:
	default:
		http.Error(w, "too many GM rulings waiting: try again", http.StatusServiceUnavailable)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// ServeHTTP implements http.Handler.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(pageHTML)
	case r.URL.Path == "/frame.jpg":
		p.mu.Lock()
		b, n := p.frame, p.frameNo
		p.mu.Unlock()
		if b == nil {
			http.Error(w, "no frame yet", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame", strconv.Itoa(n))
		w.Write(b)
	case r.URL.Path == "/gm":
		p.postGM(w, r)
	case r.URL.Path == "/live.mjpg":
		p.serveMJPEG(w, r)
	case r.URL.Path == "/rulings.json":
		p.mu.Lock()
		body := struct {
			judge.Rulings
			Status    string   `json:"status"`
			Waiting   []string `json:"waiting"`
			Frame     int      `json:"frame"`
			Annotated []string `json:"annotated"`
			// AnnotationKey: what the annotated images' colours mean, as the report's
			// caption says it (a tester: the page had no key).
			AnnotationKey string `json:"annotation_key"`
		}{Rulings: p.doc, Status: p.status, Waiting: append([]string{}, p.waiting...), Frame: p.frameNo, AnnotationKey: report.AnnotationKey}
		for k := range p.annotated {
			body.Annotated = append(body.Annotated, k)
		}
		b, err := json.Marshal(body)
		p.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	case strings.HasPrefix(r.URL.Path, "/annotated/") && strings.HasSuffix(r.URL.Path, ".jpg"):
		key := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/annotated/"), ".jpg")
		p.mu.Lock()
		b := p.annotated[key]
		p.mu.Unlock()
		if b == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// serveMJPEG streams frames until the client goes or the page is closed.
func (p *Page) serveMJPEG(w http.ResponseWriter, r *http.Request) {
	mw := multipart.NewWriter(w)
	w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary="+mw.Boundary())
	w.Header().Set("Cache-Control", "no-store")
	fl, _ := w.(http.Flusher)
	last := -1
	for {
		p.mu.Lock()
		b, n, next, closed := p.frame, p.frameNo, p.next, p.closed
		p.mu.Unlock()
		if closed {
			return
		}
		if b != nil && n != last {
			last = n
			pw, err := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"image/jpeg"}, "Content-Length": {strconv.Itoa(len(b))}})
			if err != nil {
				return
			}
			if _, err := bytes.NewReader(b).WriteTo(pw); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
	}
}
