package diff

import (
	"fmt"
	"strings"
)

// Transcript is the normalised record of one scenario run: the requests
// sent ("s1 -> ...") and every frame received ("s1 <- ..."), in the order
// the scenario consumed them.
type Transcript struct {
	Scenario string
	Lines    []string
}

func (t Transcript) String() string { return strings.Join(t.Lines, "\n") + "\n" }

// Compare returns a line diff from want to got ("-" only in want, "+"
// only in got, with a few lines of context), or "" when they are equal.
func Compare(want, got Transcript) string {
	ops := lineDiff(want.Lines, got.Lines)
	changed := false
	for _, o := range ops {
		if o.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	const context = 3
	keep := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for j := max(0, i-context); j <= min(len(ops)-1, i+context); j++ {
			keep[j] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- want %s\n+++ got %s\n", want.Scenario, got.Scenario)
	skipping := false
	for i, o := range ops {
		if !keep[i] {
			if !skipping {
				b.WriteString("@@ ...\n")
				skipping = true
			}
			continue
		}
		skipping = false
		b.WriteByte(o.kind)
		b.WriteString(o.line)
		b.WriteByte('\n')
	}
	return b.String()
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// lineDiff computes a longest-common-subsequence diff. Transcripts are a
// few hundred lines, so the quadratic table is fine.
func lineDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
