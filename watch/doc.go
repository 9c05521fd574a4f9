// Package watch is tearcam's live referee (`tearcam watch`): it reads frames from a camera or
// a video file (gocv VideoCapture; V4L2 with MJPG at 1280x720 for cameras), decides cheaply on
// each frame whether a sheet lies still on the table, and hands the settled frames to a
// Referee, the same pipeline `tearcam audit` runs on photos.
//
// # Per frame (Analyzer, Detector)
//
// Each frame is shrunk to 160 pixels wide (area averaging, which also smooths sensor noise)
// and read once, in Go: paper pixels (bright, unsaturated), motion (grey level moved since the
// previous frame), change from the last taken frame, and hands (skin-coloured pixels that
// differ from the empty table, the last still frame without paper; a wooden table is
// skin-coloured too, but it is background). About 1 ms a frame at 1280x720.
//
// The Detector takes a frame when paper is present and nothing moved, and no hands were on
// the table, for StillFor (0.4 s). It takes the next one only after the sheet has left the
// table or been covered (a quarter of the taken sheet's paper changed) and settled anew, so
// each lay-down is taken exactly once; or once something moved and the sheet lies still and
// uncovered with at least 1% of its paper changed (torn where it lay, MinTornChange); or, when the frame taken was refused (something lay on
// the sheet: Referee.Tear returned ErrCovered; or no sheet was found in it), once anything
// moved and the sheet lay still again. A video file read without Realtime waits for each
// taken frame to be judged before it reads on, so what is taken does not depend on speed.
//
// # Pairing frames with tears (controller)
//
// The first settled frame of each player is their fresh sheet (players in the order given,
// unless "sheet NAME" was announced; a frame that is no sheet is not taken). Frames that
// differ only by sensor noise can read differently (a skill located at 99% on one frame, by a
// weak read at 16% on the next), so the fresh sheet is read on the still run's last two
// frames too (the capture hands them over with the frame taken), and the first frame's read
// is kept unless another locates more letters by a strong read; the frame kept is the one
// recorded, and the log names the frames read. Later frames are
// told apart by registration against each fresh sheet (Referee.Identify); failing that, the
// only player with a tear waiting takes it. The GM announces tears on stdin (ParseAnnouncement)
// or a --session manifest lists them in order; the n-th announced tear of a player is ruled on
// the n-th frame settled after their fresh sheet (a frame that settles again before any tear
// was announced supersedes the earlier one). A frame in which something covers the sheet (a
// hand resting on it) rules nothing: its tear waits for the sheet to settle uncovered. A
// last-ditch effort needs no frame.
//
// A settled sheet with nothing removed cannot tell a sheet picked up and put back untorn from
// a tear that removed nothing. So a ruling whose only finding is nothing_removed is not
// reported at once: it is retracted (Retractor), its frame is held, and the tear is ruled on
// the next frame of that player's sheet that settles, its notes naming the untorn frame held
// before it. The held frame is ruled (nothing_removed) only when nothing else settles before
// that player's next announcement or the end of the source. With --session there are no
// announcements: the next frame that settles is ruled, and its notes say so. Each decision is
// logged in one line. These notes are watch's own: `tearcam audit` of the recorded manifest,
// which lists only the frames ruled, gives the same rulings without them.
//
// Frames of a sheet that settled again before a tear was announced are dropped: the tear is
// ruled on the latest. But a missing or late announcement would then add two tears' removal
// up into one ruling, stated with certainty. So, before ruling, the latest frame is compared
// with the frames dropped since the last ruling (checkDropped: the dropped frame ruled as the
// tear, the latest ruled after it, both retracted at once): a dropped frame with nothing
// removed was the sheet put back untorn; one with the same paper as the latest, the sheet
// picked up and put back; otherwise the sheet changed more than once with one tear announced,
// and the referee is told (Doubter) to rule the latest frame undecided, its reason naming the
// dropped frame (a structured doubt about the removed paper, recorded with the measurement:
// audits with the session's database re-use it; the manifest says it in a comment).
//
// # The GM's ruling, live (GMRuler)
//
// "gm N RULING" on stdin (ParseGM), or the page's form (Page.Commands, Config.Commands),
// gives the GM's ruling on a player's ruled tear N: the referee records it as audit records a
// manifest's gm: (AuditReferee.RuleGM: the manifest's tear gets gm:, its audit re-rules the
// player's tears from N on, every measurement re-used, and commits them), and the event
// (Event.GM) carries the tear as re-ruled and the later tears whose state changed. Later
// tears are ruled from the GM's state. A ruling that cannot be applied is one logged line and
// changes nothing. A tear being judged on a candidate frame (Speculate) is taken back and
// judged anew. --resume gives the recorded rulings again (Replayed.GM).
//
// # The OCR re-read after the ruling (Rereader)
//
// With AuditReferee.DeferReread the ruling on a tear is reported before the OCR re-read of
// its frame (referee.Referee.DeferReread: the measurement is stored as pending), which is
// about a third of judging a tear; right after the report, Rereader.Reread audits again,
// doing the re-read on the re-used measurement, and each ruling it changed is reported again
// (Event.Amended, with Before as it was reported): its disagreements as notes, or the verdict
// a doubt changed. A re-read left pending (killed in between) is done by the session's next
// audit.
//
// # Restarting (Config.Resume)
//
// A watch restarted with a --db that already holds a watch of the session (killed, say) is
// refused: a new session would take the torn sheet for a fresh one. With --resume the frames
// the earlier watch recorded are taken again first, each for its player and tear (the
// referee re-uses its recorded rulings), then the source, numbered after them.
//
// # Rulings (AuditReferee)
//
// Each settled frame is written as a lossless PNG beside the session database, with an
// audit manifest of the frames so far (session.yaml), and referee.Referee.Audit rules that
// manifest: earlier tears are re-used from the database, a caching Eye keeps the fresh and
// last registered sheets, so only the new tear is measured, by the very code audit uses.
// `tearcam audit` on the recorded manifest gives the same rulings. The ruling is committed
// to the database before it is printed (and before the --json file is rewritten).
//
// # What people see (Page, Display)
//
// Page serves the live frame (JPEG, refreshed, or MJPEG), the rulings so far and each annotated
// image; Display draws the phase and the last ruling over the live view in a window.
package watch
