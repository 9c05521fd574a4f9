// Package watch is tearcam's live referee: it reads frames from a camera or a video file
// (gocv VideoCapture), decides cheaply on each frame whether a sheet lies still on the table,
// takes the first still sheet as a player's fresh sheet and each later one, after the sheet
// has left the table or been covered by hands, as the "after" photo of the next tear the GM
// announced (stdin lines such as "use Swordsmanship", or the tears of a session manifest), and
// hands those frames to a Referee, the same pipeline `tearcam audit` uses. Rulings are
// committed to the session store before they are printed; an optional window and HTTP page
// show the live view and the rulings so far.
//
// The per-frame work (Analyzer) is a downscale and one pass over about 15 000 pixels; the
// decision (Detector) is pure Go and tested without OpenCV.
package watch
