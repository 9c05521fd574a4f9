package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func testIO() (*IO, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: strings.NewReader(""), Out: out, ErrOut: errOut}, out, errOut
}

func TestVersionNamesLibraries(t *testing.T) {
	iostreams, out, _ := testIO()
	assert.Equal(t, 0, Main([]string{"--version"}, iostreams))
	assert.Regexp(t, `^tearcam \S+ \(OpenCV 4\.\d+\.\d+, Tesseract 5\.\d+\.\d+\)\n$`, out.String())
}

func TestBadUsageExitsTwoWithOneLine(t *testing.T) {
	for _, args := range [][]string{{"nosuchcommand"}, {"audit", "--nosuchflag"}} {
		iostreams, out, errOut := testIO()
		assert.Equal(t, 2, Main(args, iostreams), args)
		assert.Empty(t, out.String())
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), errOut.String())
	}
}
