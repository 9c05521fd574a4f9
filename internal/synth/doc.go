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
// Case folders (tearcam-synth --out DIR; GenerateSet, Case.Write) hold:
//
//   - <player>-0.jpg, the fresh sheet; <player>-N.jpg, the sheet after tear N;
//   - session.yaml, the DESIGN.md manifest (paper, template, players with skills, sheet, tears);
//   - truth.json (Truth, schema TruthSchema, read back with LoadTruth): paper, template, and per
//     player the skills with every letter's outline (mm), the fresh photo's PhotoTruth (corners,
//     homography, cut_off), and per tear a TearTruth: the photo, kind, skill and intent; areas
//     (mm²), pieces (area, edge contact, template fit, outline), letter states per skill
//     ("letters", ambiguous ones as "ambiguous"; "exact_letters" as the masks say), ambiguity
//     flag and reasons, exact faults and the expected judge.TearRuling ("expected").
//
// Measured conventions: removed pieces under SliverMM2 (4 mm²) are not counted; a letter cut
// leaving under SliverInkFrac of its ink or a part under SliverDepthMM deep on one side, or whole
// but within NearMissMM of the tear, is ambiguous; a template fit that changes when the template
// grows or shrinks by FitMarginMM is ambiguous. A tear whose verdict depends on such a measure
// expects verdict undecided; when another fault holds anyway it is a faux pas whose fault list
// may differ on the close call (Ambiguous is set in both cases, and when only the remaining
// sheet's fit is that close). Faults always lists what the exact masks give. After a tear, a character with no full letter left is out
// (no_skills_left); one whose remaining sheet cannot hold the template is out (too_little_paper).
// OwedTears: a faux pas adds one, a penalty tear pays one (an undecided tear changes nothing).
// For nothing_removed, edge_to_edge and template_fits are false.
//
// Nothing exported holds a gocv.Mat: images cross the API as Go images, and every Mat made
// inside is closed before the function returns. Photo.Mat makes a Mat the caller must Close.
package synth
