package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// throwOptions holds the parsed flags of `tearcam throw`.
type throwOptions struct {
	IO *IO
}

func newThrowCmd(iostreams *IO, runF func(*throwOptions) error) *cobra.Command {
	opts := &throwOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "throw",
		Short: "throw (not built yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runThrow(opts)
		},
	}
	return cmd
}

func runThrow(opts *throwOptions) error {
	return errors.New("throw: not built yet")
}
