package report

// pageHTML is the report's template: one page, inline CSS, no scripts, no network.
const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root { --valid: #1a7f37; --faux: #c2410c; --undecided: #6e7781; --ink: #1f2328; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0 auto; padding: 12px; max-width: 1100px; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; margin: .2rem 0; } h2 { font-size: 1.2rem; margin: 1.6rem 0 .4rem; }
h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
.meta { color: #57606a; font-size: .9rem; }
.sha { color: #57606a; font-size: .85rem; font-family: monospace; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; max-width: 640px; font-size: .92rem; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
.scroll { overflow-x: auto; }
/* Cells never break a word in the middle (body's overflow-wrap: anywhere would let a narrow
   table squeeze "player" to "playe r"): headers stay on one line, a long value breaks only
   where it must, and a table too wide for the screen scrolls in its .scroll box. */
th, td { overflow-wrap: normal; } th { white-space: nowrap; } td { overflow-wrap: break-word; }
.unmeasured { color: #9a6700; font-size: .85em; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-weight: 600; font-size: .85rem; }
.valid .badge, .badge.valid { background: var(--valid); }
.faux_pas .badge, .badge.faux_pas { background: var(--faux); }
.undecided .badge, .badge.undecided { background: var(--undecided); }
.badge.gm, .tear .badge.gm { background: #2b5d8a; }
.gm { border-left: 3px solid #2b5d8a; padding-left: 6px; }
.out { color: #cf222e; font-weight: 600; }
.tear { border: 1px solid var(--line); border-left: 6px solid var(--undecided); border-radius: 6px; padding: 10px; margin: 12px 0; }
.tear.valid { border-left-color: var(--valid); } .tear.faux_pas { border-left-color: var(--faux); }
.pics { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 8px; margin: 8px 0; }
figure { margin: 0; } figure img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { font-size: .8rem; color: #57606a; }
.sheet img { max-width: 320px; width: 100%; }
.reason { background: #f6f8fa; padding: 6px 8px; border-radius: 4px; }
.lost { color: #cf222e; }
details { font-size: .88rem; color: #57606a; }
@media (max-width: 600px) { body { padding: 8px; font-size: 15px; } table { font-size: .85rem; } th, td { padding: 3px 4px; } }
/* On a phone the summary's seven columns do not fit: each player becomes a block, the name on
   its own line and the counts below it, each labelled and wrapping as a whole. */
@media (max-width: 600px) {
  table.summary thead { display: none; }
  table.summary, table.summary tbody { display: block; }
  table.summary tr { display: flex; flex-wrap: wrap; column-gap: 14px; border-bottom: 1px solid var(--line); padding: 4px 0; }
  table.summary td { display: block; border: 0; padding: 1px 0; white-space: nowrap; }
  table.summary td.player { flex-basis: 100%; font-weight: 600; white-space: normal; overflow-wrap: anywhere; }
  table.summary td:not(.player)::before { content: attr(data-label) ": "; color: #57606a; }
}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<div class="meta">{{if .Manifest}}session {{.Manifest}} · {{end}}paper {{.Paper}} · template {{.Template}}{{if .Version}} · {{.Version}}{{end}}</div>
</header>

<div class="scroll"><table class="summary">
<thead><tr><th>player</th><th>tears</th><th>valid</th><th>faux pas</th><th>undecided</th><th>GM ruled</th><th>last ditch</th><th>status</th></tr></thead>
<tbody>
{{range $i, $s := .Summary}}<tr><td class="player" data-label="player"><a href="#p{{inc $i}}">{{$s.Name}}</a></td><td data-label="tears">{{$s.Tears}}</td><td data-label="valid">{{$s.Valid}}</td><td data-label="faux pas">{{$s.FauxPas}}</td><td data-label="undecided">{{$s.Undecided}}</td><td data-label="GM ruled">{{$s.GMRuled}}{{if $s.Overruled}} ({{$s.Overruled}} overruled){{end}}</td><td data-label="last ditch">{{if $s.LastDitch}}{{$s.LastDitch}}{{else}}none{{end}}</td>
<td data-label="status">{{if $s.Out}}<span class="out">out{{if $s.OutReason}} ({{words $s.OutReason}}){{end}}</span>{{else}}in play{{end}}</td></tr>
{{end}}</tbody></table></div>

{{range .Players}}
<section id="{{.Anchor}}">
<h2>{{.Name}}{{if .Out}} <span class="out">· out</span>{{end}}</h2>
<div class="sheet">
<p>Untorn sheet <code>{{.Sheet.Photo}}</code>{{if .Sheet.SHA256}} <span class="sha" title="SHA-256 {{.Sheet.SHA256}}">(SHA-256 {{short .Sheet.SHA256}})</span>{{end}}: {{if .Sheet.Found}}found{{else}}<strong>not read</strong>{{end}}{{if .Sheet.Error}} <span class="reason">{{.Sheet.Error}}</span>{{end}}</p>
</div>
{{if .Sheet.Skills}}<div class="scroll"><table>
<thead><tr><th>skill</th><th>letters</th><th>located</th><th>confidence</th></tr></thead>
<tbody>{{range .Sheet.Skills}}<tr><td>{{.Name}}</td><td>{{.Letters}}</td><td>{{.Located}}</td><td>{{pct .Confidence}}</td></tr>{{end}}</tbody>
</table></div>{{end}}
{{if .Words}}<p>No skills declared. Words found on the sheet, for the GM to confirm:</p>
<ul>{{range .Words}}<li>{{.Text}} ({{pct .Confidence}})</li>{{end}}</ul>{{end}}
{{if .SheetImg}}<figure class="sheet"><img src="{{.SheetImg}}" alt="untorn sheet of {{.Name}}"><figcaption>untorn sheet</figcaption></figure>{{end}}

{{range .Tears}}
<article class="tear {{.Class}}">
<h3>Tear {{.Index}} · {{words (print .Kind)}}{{if .Skill}} · {{.Skill}}{{end}} <span class="badge">{{words (print .Verdict)}}</span>{{with .GMRuling}} <span class="badge gm">GM: {{words (print .Verdict)}}{{if .Ignored}} (ignored){{end}}</span>{{end}}</h3>
{{if .Photo}}<div class="meta">photo <code>{{.Photo}}</code>{{if .SHA256}} <span class="sha" title="SHA-256 {{.SHA256}}">SHA-256 {{short .SHA256}}</span>{{end}}</div>{{end}}
{{if .Faults}}<p>Faults: <strong>{{.Faults}}</strong></p>{{end}}
{{if .UndecidedReason}}<p class="reason">Undecided: {{.UndecidedReason}}</p>{{end}}
{{if .GM}}<p class="gm"><strong>{{.GM}}</strong>. Letters left, tears owed, paper and out below follow the GM's ruling.</p>{{end}}
{{if eq (print .Kind) "last_ditch"}}<p>Last ditch effort: the ball {{if .Hit}}{{if deref .Hit}}hit{{else}}missed{{end}}{{end}} the GM.</p>
{{else if .Refused}}<p>Removed area, pieces, edge to edge, template fit: <strong>not measured</strong> (the measurement was refused).</p>
{{else if ne (print .Verdict) "undecided"}}<p>Removed {{area .RemovedAreaMM2}} in {{pieces .Pieces}}; edge to edge: {{yesno .EdgeToEdge}}; template fits: {{yesno .TemplateFits}}; full letters of the skill removed: {{.FullLettersRemoved}}.</p>
{{else if gt .RemovedAreaMM2 0.0}}<p>As measured, for a ruling left undecided: removed {{area .RemovedAreaMM2}} in {{pieces .Pieces}}; edge to edge: {{yesno .EdgeToEdge}}; template fits: {{yesno .TemplateFits}}; full letters of the skill removed: {{.FullLettersRemoved}}.</p>{{end}}
{{if .Skills}}<div class="scroll"><table>
<thead><tr><th>skill</th><th>letters left{{if .LettersAsBefore}} (as before this tear){{end}}</th></tr></thead>
<tbody>{{range .Skills}}<tr{{if not .Available}} class="lost"{{end}}><td>{{.Name}}</td><td>{{.Remaining}}{{if not .Measured}}?{{end}}{{if not .Available}} (unavailable){{end}}</td></tr>{{end}}</tbody>
</table></div>{{end}}
{{with legend .Skills}}<p class="unmeasured">{{.}}</p>{{end}}
<p>{{if .OwedTears}}Tears owed: {{.OwedTears}}. {{end}}Paper left covers the template: {{if .Refused}}not measured{{else}}{{yesno .PaperFitsTemplate}}{{end}}.{{if .Out}} <span class="out">Out: {{words (print .OutReason)}}.</span>{{end}}</p>
{{if or .Before .After .Annotated}}<div class="pics">
{{if .Before}}<figure><img src="{{.Before}}" alt="before tear {{.Index}}"><figcaption>before</figcaption></figure>{{end}}
{{if .After}}<figure><img src="{{.After}}" alt="after tear {{.Index}}"><figcaption>after</figcaption></figure>{{end}}
{{if .Annotated}}<figure><img src="{{.Annotated}}" alt="tear {{.Index}} annotated"><figcaption>annotated: {{annotationKey}}</figcaption></figure>{{end}}
</div>{{end}}
{{if .Notes}}<details><summary>notes</summary><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
</article>
{{end}}
</section>
{{end}}
<footer class="meta"><p>Rulings schema {{"tearcam.rulings/v1"}}. Undecided means tearcam could not measure reliably: the GM decides.</p></footer>
</body>
</html>
`
