package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// checkOptions holds the parsed flags of `tearcam check`.
type checkOptions struct {
	IO *IO
}

func newCheckCmd(iostreams *IO, runF func(*checkOptions) error) *cobra.Command {
	opts := &checkOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "check (not built yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runCheck(opts)
		},
	}
	return cmd
}

func runCheck(opts *checkOptions) error {
	return errors.New("check: not built yet")
}
