package main

import "github.com/urfave/cli/v2"

// dataSubcommands are the `gozk data ...` tools. Each tool's file appends
// its commands in an init function, so the tools stay independent of one
// another and of this list's order (the help text sorts them by name).
var dataSubcommands []*cli.Command

func dataCommand() *cli.Command {
	return &cli.Command{
		Name:        "data",
		Usage:       "inspect, verify, import and export data directories",
		Subcommands: dataSubcommands,
	}
}
