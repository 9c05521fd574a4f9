package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testIO() (*IO, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: strings.NewReader(""), Out: out, ErrOut: errOut}, out, errOut
}

func TestVersionNamesLibraries(t *testing.T) {
	iostreams, out, _ := testIO()
	assert.Equal(t, 0, Main([]string{"--version"}, iostreams))
	assert.Regexp(t, `^tearcam \S+ \((commit [0-9a-f]{12}(\+dirty)?, )?OpenCV 4\.\d+\.\d+, Tesseract 5\.\d+\.\d+\)\n$`, out.String())
}

// The Makefile stamps the commit (-X main.Revision): --version and every stored run name it, and
// the store's versions also carry the English model's digest, so that an audit can be tied to
// the code and the model that made it.
func TestVersionNamesRevisionAndModel(t *testing.T) {
	old := Revision
	t.Cleanup(func() { Revision = old })
	Revision = "9ee76a51d748+dirty"
	assert.Regexp(t, `^tearcam 0\.1\.0 \(commit 9ee76a51d748\+dirty, OpenCV 4\.\d+\.\d+, Tesseract 5\.\d+\.\d+\)$`, VersionString())
	v := versions()
	assert.Regexp(t, `^0\.1\.0\+9ee76a51d748\+dirty\+exe\.[0-9a-f]{12}$`, v.Tearcam)

	// The model's digest is the file's own (computed here with sha256sum's algorithm on a copy).
	dir := t.TempDir()
	model := []byte("not really a model")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eng.traineddata"), model, 0o644))
	t.Setenv("TESSDATA_PREFIX", dir)
	sum := sha256.Sum256(model)
	assert.Equal(t, " (eng.traineddata "+hex.EncodeToString(sum[:])[:12]+")", languageModel())
	assert.True(t, strings.HasSuffix(versions().Tesseract, languageModel()), versions().Tesseract)
	t.Setenv("TESSDATA_PREFIX", filepath.Join(dir, "none"))
	assert.Equal(t, "", languageModel())
}

func TestBadUsageExitsTwoWithOneLine(t *testing.T) {
	for _, args := range [][]string{{"nosuchcommand"}, {"audit", "--nosuchflag"}} {
		iostreams, out, errOut := testIO()
		assert.Equal(t, 2, Main(args, iostreams), args)
		assert.Empty(t, out.String())
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
	}
}

// failingWriter fails every write, as standard output on /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestFailedStdoutWriteIsAnError: every command whose data on standard output cannot be
// written exits 1 with one line saying so, never 0 (README: "a failed write is an error,
// never silent"); audit's table and help ignored the error before.
func TestFailedStdoutWriteIsAnError(t *testing.T) {
	dir := t.TempDir()
	// A grey square: no sheet in it, so the audit rules its tear undecided without OCR.
	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 128
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "grey.png"), b.Bytes(), 0o644))
	manifest := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("paper: a4\nplayers:\n  - name: Ann\n    skills: [Archery]\n    sheet: grey.png\n    tears:\n      - {photo: grey.png, kind: use, skill: Archery}\n"), 0o644))
	for _, args := range [][]string{
		{"audit", manifest, "--db", filepath.Join(dir, "x.db")},
		{"audit", manifest, "--db", filepath.Join(dir, "y.db"), "--json", "-"},
		{"help"},
		{"--version"},
		{"throw", "--skill", "A", "--choice", "stones", "--gm-choice", "swords"},
		{"check", "--skill", "A", "--level", "2", "--trained", "--ts", "12", "--seed", "1"},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			var errOut bytes.Buffer
			code := Main(args, &IO{In: strings.NewReader(""), Out: failingWriter{}, ErrOut: &errOut})
			assert.Equal(t, 1, code, errOut.String())
			lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
			assert.Regexp(t, `^tearcam: (write standard output: )?.*no space left on device$`, lines[len(lines)-1])
		})
	}
}

// TestSingleValueFlagsRefuseRepeats: every command refuses a single-value flag given twice
// (--json a.json --json b.json) as bad usage naming the flag, in one line, before doing
// anything; judge did, audit and watch took the last value silently (a tester). Bool flags
// and repeatable ones (--player, --bonus) are not single-value.
func TestSingleValueFlagsRefuseRepeats(t *testing.T) {
	iostreams, _, _ := testIO()
	tried := 0
	for _, cmd := range NewRootCmd(iostreams).Commands() {
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			if _, many := fl.Value.(pflag.SliceValue); many || fl.Value.Type() == "bool" {
				return
			}
			// The flag's default twice: a value it accepts, so only the repeat is refused.
			v := fl.DefValue
			args := []string{cmd.Name(), "--" + fl.Name + "=" + v, "--" + fl.Name + "=" + v}
			t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
				iostreams, out, errOut := testIO()
				assert.Equal(t, 2, Main(args, iostreams))
				assert.Empty(t, out.String())
				assert.Equal(t, fmt.Sprintf("tearcam: invalid argument %q for \"--%s\" flag: given twice (first %q): give it once\n", v, fl.Name, v),
					errOut.String())
			})
			tried++
		})
	}
	assert.GreaterOrEqual(t, tried, 40, "audit's, judge's, watch's, throw's and check's flags")
}

// TestUnexpectedArgument: an argument a command does not take is called unexpected, naming
// it, exit 2 (cobra's NoArgs said `unknown command "extra" for "tearcam judge"`, as if a
// subcommand were misspelt: a tester).
func TestUnexpectedArgument(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"judge", "--before", "a.jpg", "--after", "b.jpg", "--skills", "A", "--tear", "use:A", "extra-arg"},
			`tearcam: unexpected argument "extra-arg": tearcam judge takes flags only (see tearcam judge --help)`},
		{[]string{"throw", "extra"}, `tearcam: unexpected argument "extra": tearcam throw takes flags only (see tearcam throw --help)`},
		{[]string{"check", "extra"}, `tearcam: unexpected argument "extra": tearcam check takes flags only (see tearcam check --help)`},
		{[]string{"watch", "--source", "0", "extra"}, `tearcam: unexpected argument "extra": tearcam watch takes flags only (see tearcam watch --help)`},
		{[]string{"audit", "s.yaml", "extra"}, `tearcam: unexpected argument "extra": tearcam audit takes one SESSION.yaml (see tearcam audit --help)`},
		{[]string{"audit"}, `tearcam: accepts 1 arg(s), received 0: give SESSION.yaml (see tearcam audit --help)`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			iostreams, stdout, stderr := testIO()
			assert.Equal(t, 2, Main(tc.args, iostreams))
			assert.Empty(t, stdout.String())
			assert.Equal(t, tc.want+"\n", stderr.String())
		})
	}
}
