package sim

import (
	"fmt"
	"testing"
)

func TestPrintReach(t *testing.T) {
	for _, cn := range []string{"mini", "spider"} {
		cal := Calibrations[cn]
		for _, pn := range []string{"qwen2.5-7b", "qwen3-8b", "deepseek-v3", "gpt-4o"} {
			p := Profiles[pn]
			for st, row := range [][numKinds]KindPR{p.Extract, p.Verified} {
				line := fmt.Sprintf("%s %s st%d:", cn, pn, st)
				for k := range numKinds {
					e := cal.Kinds[k].Expected(cal.Kinds[k].OperatingPoint(row[k]))
					line += fmt.Sprintf("  %5.1f/%5.1f (%5.1f/%5.1f)", 100*e.P, 100*e.R, 100*row[k].P, 100*row[k].R)
				}
				fmt.Println(line)
			}
		}
	}
}
