package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// watchOptions holds the parsed flags of `tearcam watch`.
type watchOptions struct {
	IO *IO
}

func newWatchCmd(iostreams *IO, runF func(*watchOptions) error) *cobra.Command {
	opts := &watchOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "watch (not built yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWatch(opts)
		},
	}
	return cmd
}

func runWatch(opts *watchOptions) error {
	return errors.New("watch: not built yet")
}
