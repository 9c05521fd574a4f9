package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	assert.Nil(t, newProgress(&IO{ErrOut: &buf}, 10, "x"), "no bar when stderr is not a terminal")
	bar := newProgress(&IO{ErrOut: &buf, ErrTTY: true}, 10, "auditing")
	if assert.NotNil(t, bar) {
		bar.Add(3)
		assert.Contains(t, buf.String(), "auditing")
		assert.Contains(t, buf.String(), "3/10")
	}
}
