package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// The scripts ask the binary itself for completions (urfave/cli's
// --generate-bash-completion), so they follow new commands and flags.
const bashCompletion = `# bash completion for gozk; load with: source <(gozk completion bash)
_gozk_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == "-"* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _gozk_complete gozk
`

const zshCompletion = `#compdef gozk
# zsh completion for gozk; load with: source <(gozk completion zsh)
# (or save as _gozk in a directory of $fpath)
_gozk() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
if [[ "$funcstack[1]" == "_gozk" ]]; then
  _gozk "$@"
else
  compdef _gozk gozk
fi
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: source <(gozk completion bash)   (or save it in /etc/bash_completion.d/gozk)\n" +
			"zsh:  source <(gozk completion zsh)    (or save it as _gozk in your $fpath)\n" +
			"fish: gozk completion fish > ~/.config/fish/completions/gozk.fish",
		BashComplete: func(c *cli.Context) {
			if c.NArg() == 0 {
				fmt.Fprintln(c.App.Writer, "bash\nzsh\nfish")
			}
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("completion: name one shell: bash, zsh or fish", exitUsage)
			}
			switch strings.ToLower(c.Args().First()) {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return cli.Exit(err.Error(), exitRuntime)
				}
				fmt.Fprint(c.App.Writer, script)
			default:
				return cli.Exit(fmt.Sprintf("completion: unknown shell %q (bash, zsh or fish)", c.Args().First()), exitUsage)
			}
			return nil
		},
	}
}
