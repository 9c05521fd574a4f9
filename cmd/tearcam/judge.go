package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// judgeOptions holds the parsed flags of `tearcam judge`.
type judgeOptions struct {
	IO *IO
}

func newJudgeCmd(iostreams *IO, runF func(*judgeOptions) error) *cobra.Command {
	opts := &judgeOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "judge",
		Short: "judge (not built yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runJudge(opts)
		},
	}
	return cmd
}

func runJudge(opts *judgeOptions) error {
	return errors.New("judge: not built yet")
}
