// Package template holds the shapes tearcam measures against, in millimetres: the tear
// template (the piece a tear must be able to cover, DESIGN.md "Definitions") and the paper
// sizes a sheet can have. It is pure Go: no gocv, no gosseract.
package template
