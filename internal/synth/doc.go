// Package synth makes realistic test photos of torn character sheets with exact ground truth,
// since no camera is attached to the machines tearcam is developed on.
//
// The pipeline has three steps, each usable on its own from other packages' tests:
//
//   - RenderSheet draws an untorn sheet (A4, letter or WxH; off-white, sometimes ruled) with six
//     skills in Debian handwriting fonts, any size (cap height 5-18 mm), ink colour and angle. It
//     keeps every letter's exact ink mask and outline.
//   - State.Tear removes paper with a jagged, realistic tear of a chosen kind (valid bite,
//     corner, a bite that only cuts letters, a piece too small, a hole, two pieces, nothing),
//     cumulatively, and measures the truth of that tear from the masks (never from intent).
//   - Photograph puts the current paper on a procedural table (wood, felt, desk, dark cloth) under
//     a camera: rotation, perspective, uneven light, shadow, blur, noise, JPEG.
//
// Generate and WriteCase tie the steps together into case folders (truth.json, session.yaml,
// JPEGs) that LoadTruth reads back.
//
// Units and frames:
//
//   - Sheet frame: millimetres on the untorn sheet, origin at its top-left corner, x right, y down
//     (DESIGN.md "Sheet frame"). Every outline, area and polygon in the truth is in this frame.
//   - Sheet raster: the sheet frame sampled at Sheet.PxPerMM pixels per millimetre (default 8);
//     pixel (i, j) covers [i, i+1) x [j, j+1) / PxPerMM mm. Masks and Sheet.Image use it.
//   - Photo pixels: OpenCV's convention, integer coordinates at pixel centres (the top-left
//     pixel's top-left corner is (-0.5, -0.5)). PhotoTruth.CornersPx and PhotoTruth.Homography
//     (sheet-frame mm to photo px) use it.
//
// Nothing exported holds a gocv.Mat: images cross the API as Go images, and every Mat made
// inside is closed before the function returns. Photo.Mat makes a Mat the caller must Close.
package synth
