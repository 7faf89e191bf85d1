package chaos

import (
	"fmt"
	"strings"
	"time"
)

// Row is one cell of the chaos matrix: a layout of members under one
// nemesis, the faults it injected, how long the ensemble took to serve
// again after the last one healed, and each workload's result.
type Row struct {
	Layout  string
	Nemesis string
	Faults  int
	Recover time.Duration
	Results []Result
}

// AllWorkloads returns a fresh instance of every workload, in the order
// of the table. An instance serves one Run and the Check after it: it
// keeps the history in between.
func AllWorkloads() []Workload {
	return []Workload{NewRegister(), NewCounter(), NewUniqueIDs(), NewSet(), NewQueue(), NewEphemeral()}
}

// Table renders rows as a markdown table, one line per workload result
// with the row's sums first, and then every anomaly found, so that a
// failing cell names what went wrong.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| layout | nemesis | workload | faults | recover | ops | ok | failed | indeterminate | anomalies | lost | duplicated | verdict |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	var details []string
	for _, row := range rows {
		for _, r := range row.Results {
			verdict := "pass"
			if !r.Passed() {
				verdict = "**FAIL**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %d | %d | %d | %d | %d | %d | %d | %s |\n",
				tableCell(row.Layout), tableCell(row.Nemesis), tableCell(r.Workload), row.Faults, recoverCell(row.Recover),
				r.Ops(), r.OK, r.Failed, r.Indeterminate, len(r.Anomalies), r.Lost, r.Duplicated, verdict)
			for _, a := range r.Anomalies {
				details = append(details, fmt.Sprintf("- %s / %s / %s: %s", row.Layout, row.Nemesis, r.Workload, a))
			}
		}
	}
	if len(details) > 0 {
		b.WriteString("\nAnomalies:\n\n")
		b.WriteString(strings.Join(details, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

func recoverCell(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return d.Round(10 * time.Millisecond).String()
}

// tableCell keeps a value from breaking the table.
func tableCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
