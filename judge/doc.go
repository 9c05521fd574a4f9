// Package judge holds the rules of the tear game (seeds/000_95befa804697ec6b.txt, as
// DESIGN.md "The rules tearcam judges" tabulates them) and the rulings contract
// (DESIGN.md "--json"). It turns measurements made by vision/ and ocr/ into rulings and
// carries each character's state from tear to tear. It is pure Go: no gocv, no gosseract.
package judge
