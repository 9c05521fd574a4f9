package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// auditOptions holds the parsed flags of `tearcam audit`.
type auditOptions struct {
	IO *IO
}

func newAuditCmd(iostreams *IO, runF func(*auditOptions) error) *cobra.Command {
	opts := &auditOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "audit (not built yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runAudit(opts)
		},
	}
	return cmd
}

func runAudit(opts *auditOptions) error {
	return errors.New("audit: not built yet")
}
