package steinersql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// scaffoldLine starts the line of the relations part that lists the
// scaffold's tables.
const scaffoldLine = "Scaffold tables: "

// structuredExamples are the worked examples of the guidelines part
// ("w/o Structured Examples" removes them): decomposition -> scaffold ->
// plan -> SQL on a schema unrelated to any benchmark.
const structuredExamples = `Structured examples:
Example 1. Question: "What is the average order value per country in 2022?"
  Decomposition: AVG(orders.amount); grouping by customer.country; temporal: orders.order_date in 2022.
  Scaffold: customer -- orders (orders.customer_id = customer.customer_id).
  Plan: FROM orders JOIN customer; filter the year; GROUP BY country; AVG(amount).
  SQL: SELECT c.country, AVG(o.amount) FROM orders AS o JOIN customer AS c ON o.customer_id = c.customer_id
       WHERE strftime('%Y', o.order_date) = '2022' GROUP BY c.country
Example 2. Question: "Which supplier's parts appear in more than 5 shipments?"
  Decomposition: COUNT(shipment.shipment_id) > 5 per supplier.
  Scaffold: supplier -- part -- shipment (part is a Steiner table joining the two terminals).
  Plan: FROM supplier JOIN part JOIN shipment; GROUP BY supplier; HAVING COUNT(...) > 5.
  SQL: SELECT s.name FROM supplier AS s JOIN part AS p ON p.supplier_id = s.supplier_id
       JOIN shipment AS sh ON sh.part_id = p.part_id GROUP BY s.supplier_id, s.name HAVING COUNT(sh.shipment_id) > 5`

// promptInput is everything the five-part prompt shows.
type promptInput struct {
	Dialect    string
	Schema     *datasets.Schema
	Question   string
	Evidence   string
	Dec        *Decomposition
	Deps       *DepGraph // dependency analysis (nil when off)
	Scaffold   *Scaffold
	GraphFKs   []datasets.ForeignKey // "remove graph module": direct FKs among terminals
	Examples   bool
	Feedback   string // validation feedback of the previous attempt
	PrevSQL    string
	Navigation bool
	Graph      bool
}

// buildPrompt renders the five-part system prompt (role, critical
// requirements, relations, optimal query plan, guidelines; paper Section
// 3.1) and the user message (schema, question, evidence, feedback).
func buildPrompt(in promptInput) (system, user string) {
	var b strings.Builder
	fmt.Fprintf(&b, "## 1. Role\nYou are a senior data analyst who writes correct %s queries for questions that need mathematical reasoning over a database. You follow the reasoning scaffold computed for this question.\n\n", in.Dialect)

	b.WriteString("## 2. Critical requirements\n")
	fmt.Fprintf(&b, "- Answer with exactly one %s query in a ```sql block.\n- Use only tables and columns from the schema.\n", in.Dialect)
	if d := in.Dec; d != nil {
		for _, op := range d.Operations {
			fmt.Fprintf(&b, "- Compute %s(%s).\n", op.Function, op.Target)
		}
		for _, q := range d.Quantities {
			fmt.Fprintf(&b, "- Numerical constraint: %s %s %s.\n", q.Attribute, q.Operator, q.Value)
		}
		for _, a := range d.Aggregations {
			fmt.Fprintf(&b, "- Grouping: %s.\n", a)
		}
		for _, t := range d.Temporal {
			fmt.Fprintf(&b, "- Temporal: %s.\n", t)
		}
	}
	if in.Scaffold != nil && len(in.Scaffold.Terminals) > 0 {
		fmt.Fprintf(&b, "- Use every terminal table: %s.\n", strings.Join(in.Scaffold.Terminals, ", "))
	}
	b.WriteString("\n## 3. Relations\n")
	switch {
	case !in.Navigation || in.Scaffold == nil:
		b.WriteString("No scaffold was computed: choose the tables and joins yourself from the schema.\n")
	case !in.Graph:
		fmt.Fprintf(&b, "%s%s\n", scaffoldLine, strings.Join(in.Scaffold.Tables, ", "))
		b.WriteString("Foreign keys among these tables:\n")
		if len(in.GraphFKs) == 0 {
			b.WriteString("- (none declared)\n")
		}
		for _, fk := range in.GraphFKs {
			fmt.Fprintf(&b, "- %s.%s = %s.%s\n", fk.FromTable, fk.FromColumn, fk.ToTable, fk.ToColumn)
		}
	default:
		fmt.Fprintf(&b, "%s%s\n", scaffoldLine, strings.Join(in.Scaffold.Tables, ", "))
		fmt.Fprintf(&b, "Reasoning scaffold (%s over the schema graph, total cost %.3f):\n", in.Scaffold.Algorithm, in.Scaffold.Cost)
		if len(in.Scaffold.Edges) == 0 {
			b.WriteString("- a single table, no join needed\n")
		}
		for _, e := range in.Scaffold.Edges {
			kind := "column similarity"
			if e.FK {
				kind = "foreign key"
			}
			fmt.Fprintf(&b, "- %s (%s, cost %.3f)\n", e.On(), kind, e.Cost)
		}
		if len(in.Scaffold.Disconnected) > 0 {
			fmt.Fprintf(&b, "- no join path connects: %s\n", strings.Join(in.Scaffold.Disconnected, "; "))
		}
	}
	if in.Navigation && in.Graph && in.Scaffold != nil {
		b.WriteString("\n## 4. Optimal query plan\n")
		for i, step := range queryPlan(in.Scaffold, in.Dec, in.Deps) {
			fmt.Fprintf(&b, "%d. %s\n", i+1, step)
		}
	}
	b.WriteString("\n## 5. Guidelines\n")
	if in.Navigation && in.Scaffold != nil {
		b.WriteString("- Join only along the relations above; do not add tables outside the scaffold.\n")
	}
	b.WriteString("- Every non-aggregated column in SELECT must appear in GROUP BY.\n")
	b.WriteString("- Use the aggregate functions the computation requires, on the right columns.\n")
	b.WriteString("- Translate every numerical constraint into WHERE or HAVING with the right operator and value.\n")
	b.WriteString("- Match text values exactly as they appear in the data examples.\n")
	if in.Examples {
		b.WriteString("\n" + structuredExamples + "\n")
	}
	system = b.String()

	var u strings.Builder
	opt := datasets.RenderOptions{}
	var others []string
	if in.Navigation && in.Scaffold != nil && len(in.Scaffold.Tables) > 0 {
		opt.Tables = map[string][]string{}
		for _, t := range in.Scaffold.Tables {
			opt.Tables[t] = nil
		}
		for _, t := range in.Schema.Tables {
			if !slices.ContainsFunc(in.Scaffold.Tables, func(x string) bool { return strings.EqualFold(x, t.Name) }) {
				others = append(others, t.Name)
			}
		}
	}
	fmt.Fprintf(&u, "Database schema (%s):\n%s\n", in.Dialect, datasets.RenderDDL(in.Schema, opt))
	if len(others) > 0 {
		fmt.Fprintf(&u, "Other tables (outside the scaffold): %s\n", strings.Join(others, ", "))
	}
	fmt.Fprintf(&u, "\nQuestion: %s\n", in.Question)
	if strings.TrimSpace(in.Evidence) != "" {
		fmt.Fprintf(&u, "Evidence: %s\n", in.Evidence)
	}
	switch {
	case in.Feedback != "" && in.PrevSQL != "":
		fmt.Fprintf(&u, "\nYour previous query:\n```sql\n%s\n```\nValidation found problems:\n%s\nWrite a corrected query.\n", in.PrevSQL, in.Feedback)
	case in.Feedback != "":
		fmt.Fprintf(&u, "\n%s\n", in.Feedback)
	}
	fmt.Fprintf(&u, "\nAnswer with the %s query in a ```sql block.\n", in.Dialect)
	return system, u.String()
}

// queryPlan orders the scaffold's joins breadth-first from the first
// terminal and appends the computation steps: with a dependency analysis,
// one step per entity in its dependency order (Algorithm 1), else the
// decomposition's operations in one step.
func queryPlan(sc *Scaffold, dec *Decomposition, deps *DepGraph) []string {
	var steps []string
	start := ""
	if len(sc.Terminals) > 0 {
		start = sc.Terminals[0]
	} else if len(sc.Tables) > 0 {
		start = sc.Tables[0]
	}
	if start != "" {
		steps = append(steps, "FROM "+start)
	}
	visited := map[string]bool{strings.ToLower(start): true}
	queue := []string{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range sc.Edges {
			var next string
			switch {
			case strings.EqualFold(e.A, cur) && !visited[strings.ToLower(e.B)]:
				next = e.B
			case strings.EqualFold(e.B, cur) && !visited[strings.ToLower(e.A)]:
				next = e.A
			default:
				continue
			}
			visited[strings.ToLower(next)] = true
			queue = append(queue, next)
			steps = append(steps, fmt.Sprintf("JOIN %s ON %s", next, e.On()))
		}
	}
	if dec != nil {
		if len(dec.Quantities) > 0 || len(dec.Temporal) > 0 {
			steps = append(steps, "Apply the numerical and temporal constraints in WHERE (row level) or HAVING (group level).")
		}
		if len(dec.Aggregations) > 0 {
			steps = append(steps, "GROUP BY: "+strings.Join(dec.Aggregations, "; ")+".")
		}
		var ops []string
		for _, op := range dec.Operations {
			ops = append(ops, op.Function+"("+op.Target+")")
		}
		switch {
		case deps != nil && len(deps.Order) > 0:
			steps = append(steps, "Computation in dependency order (each step uses only the results before it):")
			steps = append(steps, deps.planSteps()...)
			steps = append(steps, "Select the requested columns.")
		case len(ops) > 0:
			steps = append(steps, "Compute "+strings.Join(ops, ", ")+" and select the requested columns.")
		}
	}
	if len(steps) == 0 || dec == nil {
		steps = append(steps, "Select the requested columns with the question's filters.")
	}
	return steps
}
