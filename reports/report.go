package reports

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/t2sbench/t2sbench/runstore"
)

// Formats are the output formats WriteFiles knows: table formats md, tex
// and csv, plot formats png (pngDPI), svg and pdf (vector).
var Formats = []string{"md", "tex", "csv", "png", "svg", "pdf"}

// plotFormats are the Formats that are plots, in the order report.md
// links them (the first one requested is embedded).
var plotFormats = []string{"png", "svg", "pdf"}

// ParseFormats reads a comma-separated list of Formats ("md,tex,png");
// "" means all of them.
func ParseFormats(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return append([]string(nil), Formats...), nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("reports: unknown format %q (want a comma-separated list of %s)", f, strings.Join(Formats, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// Report is the tables and plots of one or more runs.
type Report struct {
	// Title names the runs; it ends in "(simulated model)" for sim runs.
	Title     string
	Simulated bool
	// Sources are the run directories, as given.
	Sources []string
	// Setup is the code, dates, limits, models and trials of the runs.
	Setup   *Setup
	Tables  []*Table
	Figures []*Figure
	// Notes say where the report leaves output out (heat maps beyond
	// maxHeatmaps); they head the plots of report.md and end the terminal
	// output.
	Notes []string
	// Warnings are non-fatal problems (missing labels, comparisons that
	// could not be paired), sorted as they arose.
	Warnings []string
}

// Build computes every table and plot the runs have data for. The runs are
// read by runstore.ReadRunStream (their items streamed one trial at a time)
// or whole with at least runstore.ReadReport (usage, extraction reasons and
// trace counters, which the efficiency, turn and validation output need);
// both give the same report.
func Build(runs []*runstore.RunData, opt Options) (*Report, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	c, err := load(runs, opt)
	if err != nil {
		return nil, err
	}
	if opt.Baseline != "" {
		found := false
		var names []string
		for _, s := range c.systems {
			found = found || s.name == opt.Baseline || s.row == opt.Baseline
			names = append(names, s.name)
		}
		if !found {
			return nil, fmt.Errorf("reports: baseline %q is not a system of the runs (systems: %s)", opt.Baseline, strings.Join(names, ", "))
		}
	}
	r := &Report{Title: c.caption(c.title), Simulated: c.simulated}
	for _, run := range runs {
		r.Sources = append(r.Sources, run.Dir)
	}
	r.Setup = buildSetup(c, runs, opt.Commit)
	r.Setup.Facts = append(r.Setup.Facts, comparisonFact(opt))
	if t := mainTable(c, opt); t != nil {
		r.Tables = append(r.Tables, t)
	}
	r.Tables = append(r.Tables, breakdownTables(c)...)
	cs, err := planComparisons(c, opt)
	if err != nil {
		return nil, err
	}
	r.Tables = append(r.Tables, pairwiseTables(c, cs, opt)...)
	r.Tables = append(r.Tables, sweepTables(c, cs, opt)...)
	ab, err := ablationTables(c, opt)
	if err != nil {
		return nil, err
	}
	r.Tables = append(r.Tables, ab...)
	effs := efficiencies(c, opt)
	r.Tables = append(r.Tables, efficiencyTables(c, effs)...)
	if t := candidatesTable(c); t != nil {
		r.Tables = append(r.Tables, t)
	}
	if t := endpointTable(c, runs); t != nil {
		r.Tables = append(r.Tables, t)
	}
	r.Tables = append(r.Tables, turnsTables(c)...)
	if t := validationTable(c); t != nil {
		r.Tables = append(r.Tables, t)
	}
	if t := parseFailureTable(c); t != nil {
		r.Tables = append(r.Tables, t)
	}
	if t := extractionTable(c); t != nil {
		r.Tables = append(r.Tables, t)
	}
	r.Tables = append(r.Tables, table4Tables(c)...)
	if t := seedTable(c, opt); t != nil {
		r.Tables = append(r.Tables, t)
	}

	pf0, err := pairwiseFigures(c, cs, opt)
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, pf0...)
	sw, err := sweepFigures(c, cs, opt)
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, sw...)
	sx, err := simplexFigures(c, cs, opt)
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, sx...)
	bd, notes := breakdownFigures(c)
	r.Figures = append(r.Figures, bd...)
	r.Notes = append(r.Notes, notes...)
	pf, err := paretoFigures(c, effs, opt)
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, pf...)
	vf, err := validationFigure(c)
	if err != nil {
		return nil, err
	}
	if vf != nil {
		r.Figures = append(r.Figures, vf)
	}
	r.Warnings = c.warnings
	for _, run := range runs {
		for _, l := range run.Integrity.Lines() {
			// The counts say the stores were damaged; the results shown
			// are those of the entries made again.
			r.Warnings = append(r.Warnings, fmt.Sprintf("run %s: %s", run.Dir, l))
		}
		for _, l := range run.BadCounts {
			r.Warnings = append(r.Warnings, fmt.Sprintf("run %s: %s", run.Dir, l))
		}
	}
	uniqueIDs(len(r.Tables), func(i int) *string { return &r.Tables[i].ID })
	uniqueIDs(len(r.Figures), func(i int) *string { return &r.Figures[i].ID })
	return r, nil
}

// WriteTerminal prints the title and every table for a terminal.
func (r *Report) WriteTerminal(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n", r.Title)
	if r.Setup != nil {
		for _, f := range r.Setup.Facts {
			fmt.Fprintf(w, "%s\n", strings.ReplaceAll(f, "`", ""))
		}
		fmt.Fprintf(w, "(models and trials: the Setup section of %s)\n\n", ReportFile)
	}
	for _, t := range r.Tables {
		if err := t.WriteTerminal(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// ReportFile is the name of the report index inside the output directory.
const ReportFile = "report.md"

// CaptionsFile is the stem of the figure captions inside the output
// directory: plots/captions.md (Markdown) and plots/captions.tex (one
// LaTeX \caption and \label per plot). A caption holds the figure's
// title, its number of questions, its intervals and its notes.
const CaptionsFile = "plots/captions"

// WriteFiles writes the report into dir: tables/<id>.<fmt> for each table
// format, plots/<id>.<fmt> for each plot format, the captions of the plots
// (CaptionsFile) and report.md, which
// holds every table (Markdown) and links every file. It returns the paths
// written, relative to dir, sorted as written.
func (r *Report) WriteFiles(dir string, formats []string) ([]string, error) {
	var written []string
	write := func(rel string, data []byte) error {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
		written = append(written, rel)
		return nil
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# %s\n\n", mdEscape(r.Title))
	if r.Simulated {
		md.WriteString("All numbers in this report come from the offline simulated model (`sim`), not a real LLM.\n\n")
	}
	md.WriteString("Runs:")
	for _, s := range r.Sources {
		fmt.Fprintf(&md, " `%s`", s)
	}
	md.WriteString("\n\n")
	writeTable := func(t *Table) error {
		var links []string
		for _, f := range []string{"md", "tex", "csv"} {
			if !slices.Contains(formats, f) {
				continue
			}
			var b bytes.Buffer
			var err error
			switch f {
			case "md":
				err = t.WriteMarkdown(&b)
			case "tex":
				err = t.WriteLaTeX(&b)
			case "csv":
				err = t.WriteCSV(&b)
			}
			if err != nil {
				return err
			}
			rel := "tables/" + t.ID + "." + f
			if err := write(rel, b.Bytes()); err != nil {
				return err
			}
			links = append(links, fmt.Sprintf("[%s](%s)", f, rel))
		}
		fmt.Fprintf(&md, "### %s\n\n", t.ID)
		if err := t.WriteMarkdown(&md); err != nil {
			return err
		}
		if len(links) > 0 {
			fmt.Fprintf(&md, "\nFiles: %s\n", strings.Join(links, ", "))
		}
		md.WriteString("\n")
		return nil
	}
	if r.Setup != nil {
		md.WriteString("## Setup\n\n")
		for _, f := range r.Setup.Facts {
			fmt.Fprintf(&md, "- %s\n", f)
		}
		md.WriteString("\n")
		for _, t := range r.Setup.Tables {
			if err := writeTable(t); err != nil {
				return written, err
			}
		}
	}
	md.WriteString("## Tables\n\n")
	for _, t := range r.Tables {
		if err := writeTable(t); err != nil {
			return written, err
		}
	}
	if len(r.Figures) > 0 {
		md.WriteString("## Plots\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&md, "Note: %s\n\n", mdEscape(n))
		}
	}
	rendered, err := r.renderFigures(formats)
	if err != nil {
		return written, err
	}
	for fi, f := range r.Figures {
		fmt.Fprintf(&md, "### %s\n\n", f.ID)
		var links []string
		embedded := false
		for _, ft := range plotFormats {
			if !slices.Contains(formats, ft) {
				continue
			}
			data := rendered[fi][ft]
			rel := "plots/" + f.ID + "." + ft
			if err := write(rel, data); err != nil {
				return written, err
			}
			if !embedded {
				fmt.Fprintf(&md, "![%s](%s)\n\n", mdEscape(f.Title), rel)
				embedded = true
			}
			links = append(links, fmt.Sprintf("[%s](%s)", ft, rel))
		}
		if f.Data != nil && slices.Contains(formats, "csv") {
			var b bytes.Buffer
			if err := f.Data.WriteCSV(&b); err != nil {
				return written, err
			}
			rel := "plots/" + f.ID + ".csv"
			if err := write(rel, b.Bytes()); err != nil {
				return written, err
			}
			links = append(links, fmt.Sprintf("[data: csv](%s)", rel))
		}
		if !embedded {
			md.WriteString("(no plot format requested)\n\n")
			if len(links) > 0 {
				fmt.Fprintf(&md, "Files: %s\n\n", strings.Join(links, ", "))
			}
		} else {
			fmt.Fprintf(&md, "Files: %s\n\n", strings.Join(links, ", "))
		}
		fmt.Fprintf(&md, "%s\n\n", mdEscape(f.Caption()))
	}
	if len(r.Figures) > 0 {
		var cm, ct bytes.Buffer
		cm.WriteString("# Figure captions\n\n")
		ct.WriteString("% Figure captions, one per plot: \\caption{...} and \\label{fig:<id>}.\n")
		for _, f := range r.Figures {
			fmt.Fprintf(&cm, "- **%s**: %s\n", f.ID, mdEscape(f.Caption()))
			fmt.Fprintf(&ct, "%% plots/%s\n\\caption{%s}\n\\label{fig:%s}\n", f.ID, texEscape(f.Caption()), f.ID)
		}
		if err := write(CaptionsFile+".md", cm.Bytes()); err != nil {
			return written, err
		}
		if err := write(CaptionsFile+".tex", ct.Bytes()); err != nil {
			return written, err
		}
		fmt.Fprintf(&md, "Captions: [%s.md](%s.md), [%s.tex](%s.tex) (LaTeX `\\caption` lines).\n\n", CaptionsFile, CaptionsFile, CaptionsFile, CaptionsFile)
	}
	if len(r.Warnings) > 0 {
		md.WriteString("## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&md, "- %s\n", mdEscape(w))
		}
		md.WriteString("\n")
	}
	if err := write(ReportFile, md.Bytes()); err != nil {
		return written, err
	}
	return written, nil
}

// renderFigures renders every figure in each requested plot format, the
// figures in parallel (one worker per CPU; a figure's formats one after
// another, as drawing one figure is not safe for concurrent use), and
// returns the bytes by figure index and format.
func (r *Report) renderFigures(formats []string) ([]map[string][]byte, error) {
	out := make([]map[string][]byte, len(r.Figures))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range r.Figures {
		out[i] = map[string][]byte{}
		g.Go(func() error {
			for _, ft := range plotFormats {
				if !slices.Contains(formats, ft) {
					continue
				}
				data, err := f.Render(ft)
				if err != nil {
					return err
				}
				out[i][ft] = data
			}
			return nil
		})
	}
	return out, g.Wait()
}

// slugID joins parts into a file stem: lower case, every run of
// characters other than letters, digits and dots turned into one "-"
// ("ex-by-difficulty", "bird/minidev" -> "ex-by-difficulty-bird-minidev").
func slugID(parts ...string) string {
	var b strings.Builder
	dash := false
	for _, p := range parts {
		for _, r := range strings.ToLower(p) {
			if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' {
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				b.WriteRune(r)
				dash = false
			} else {
				dash = true
			}
		}
		dash = true
	}
	return b.String()
}

// uniqueIDs makes the n ids id(0..n-1) distinct, in order: a repeated id
// gets "-2", "-3", ... so that no file overwrites another.
func uniqueIDs(n int, id func(i int) *string) {
	seen := map[string]bool{}
	for i := range n {
		p := id(i)
		base := *p
		for k := 2; seen[*p]; k++ {
			*p = fmt.Sprintf("%s-%d", base, k)
		}
		seen[*p] = true
	}
}
