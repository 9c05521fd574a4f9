package session

import (
	"errors"
	"strings"
	"testing"

	"tearcam/template"
)

// FuzzParse feeds the manifest parser arbitrary bytes: it must never panic, and every error
// must be one *Error line naming the file. Run: go test -fuzz FuzzParse ./session/
func FuzzParse(f *testing.F) {
	f.Add([]byte(designExample))
	f.Add([]byte("players:\n  - name: Bo\n    skills: [A]\n    tears:\n      - {kind: use, skill: a}\n"))
	f.Add([]byte("a: &a [*a, *a]\nplayers: *a\n"))
	f.Add([]byte("players: [{name: x, sheet: ../y}]"))
	f.Add([]byte("\xff\xfe"))
	f.Add([]byte(gmExample))
	f.Add([]byte("players:\n  - name: Bo\n    skills: [A]\n    sheet: a.jpg\n    tears:\n      - {photo: b.jpg, kind: use, skill: a, gm: {verdict: faux_pas, faults: [x], remaining: {A: 9}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []Mode{Audit, Plan} {
			m, err := Parse("f.yaml", data, mode)
			if err != nil {
				var me *Error
				if !errors.As(err, &me) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "f.yaml") {
					t.Fatalf("error is not one line naming the file: %q", err)
				}
				continue
			}
			if len(m.Players) == 0 {
				t.Fatal("manifest without players accepted")
			}
			for _, p := range m.Players {
				for _, tr := range p.Tears {
					if tr.GM != nil && tr.GM.Check(p.Skills) != nil {
						t.Fatalf("GM ruling accepted that does not check: %+v", tr.GM)
					}
					if tr.Photo != "" && checkLocal(tr.Photo) != nil {
						t.Fatalf("photo %q escapes", tr.Photo)
					}
				}
			}
		}
	})
}

// FuzzTemplateParse feeds template.Parse (the loader behind a manifest's template file)
// arbitrary bytes: it must never panic, and a template it accepts must validate.
// Run: go test -fuzz FuzzTemplateParse ./session/
func FuzzTemplateParse(f *testing.F) {
	f.Add([]byte(`{"name":"tri","polygon_mm":[[0,0],[40,0],[0,30]]}`))
	f.Add([]byte(`{"polygon_mm":[[0,0],[10,10],[10,0],[0,10]]}`))
	f.Add([]byte(`{"polygon_mm":[[0,0],[1e308,0],[0,1e308]]}`))
	f.Add([]byte(`{"polygon_mm":[[0,0],[1,0,5],[0]]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := template.Parse(data)
		if err != nil {
			return
		}
		if err := tp.Validate(); err != nil {
			t.Fatalf("Parse accepted a template that does not validate: %v", err)
		}
		if a := tp.AreaMM2(); !(a > 0) {
			t.Fatalf("accepted template has area %v", a)
		}
	})
}
