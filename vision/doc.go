// Package vision is tearcam's gocv (OpenCV 4.6) adapter: it finds the character sheet in a
// photo or camera frame, rectifies it into the sheet frame (millimetres on the untorn sheet,
// DESIGN.md "Sheet frame") at DefaultPxPerMM, registers every later photo of the same sheet to
// it, and measures each tear from the paper masks: removed region and area, pieces, edge
// contact, tear lines, template fit, and the state of every located letter. It also draws the
// annotated image a GM or tournament judge looks at.
//
// Every gocv.Mat this package returns is owned by the caller, who must Close it (or Close the
// SheetImage / TearResult holding it). Errors are sentinels and typed errors (see errors.go)
// that read as one line naming the problem; callers add the file name.
//
// Determinism: rulings must be byte-identical across runs. Nothing here uses a random source:
// ORB and brute-force matching are deterministic, OpenCV's RANSAC seeds its own generator
// with a fixed value on every call, and the colour models and template search are plain Go.
package vision
