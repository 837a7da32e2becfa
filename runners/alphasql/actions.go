package alphasql

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/mctsql"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// The seven reasoning actions of Alpha-SQL (paper Section 3.2, Table 1).
const (
	A1 mcts.Action = "A1" // question rephrasing
	A2 mcts.Action = "A2" // schema selection
	A3 mcts.Action = "A3" // column value identification
	A4 mcts.Action = "A4" // column function identification
	A5 mcts.Action = "A5" // SQL generation (divide and conquer)
	A6 mcts.Action = "A6" // SQL revision from execution feedback
	A7 mcts.Action = "A7" // termination
)

// ActionNames names every action for prompts and traces.
var ActionNames = map[mcts.Action]string{
	mcts.RootAction: "Root",
	A1:              "Question Rephrasing",
	A2:              "Schema Selection",
	A3:              "Column Value Identification",
	A4:              "Column Function Identification",
	A5:              "SQL Generation",
	A6:              "SQL Revision",
	A7:              "Termination",
}

// Removable lists the actions an ablation may disable (the paper's action
// ablation: w/o A1, A2, A3, A4, A6). A5 and A7 carry every path.
var Removable = []mcts.Action{A1, A2, A3, A4, A6}

// Transitions is the valid-transition table (METHODS.md, from the authors'
// code; mctsql.Transitions shows it): the actions that may follow each
// action. An action already on the path is not offered again (mcts.Search
// enforces it).
var Transitions = mctsql.Transitions(A1, []mcts.Action{A2, A3, A4}, A5, A6, A7)

// Request kinds (llm.Request.Responder), one per prompt kind.
const (
	RespKeywords  = "alphasql/keywords"
	RespRephrase  = "alphasql/rephrase"
	RespSchema    = "alphasql/schema_selection"
	RespValues    = "alphasql/column_values"
	RespFunctions = "alphasql/column_functions"
	RespSQL       = "alphasql/sql_generation"
	RespRevise    = "alphasql/sql_revision"
)

const systemPrompt = "You are an expert SQLite database engineer. You answer questions about a database by reasoning step by step and writing correct SQLite queries."

// taskText is the part every prompt shares: schema, question and hint.
func taskText(dbID, schema, question, evidence string) string {
	var b strings.Builder
	b.WriteString("【Database】 " + dbID + "\n【Schema】\n" + schema + "\n\n【Question】\n" + question + "\n")
	if evidence != "" {
		b.WriteString("\n【Hint】\n" + evidence + "\n")
	}
	return b.String()
}

// contextText renders the reasoning steps already taken on a path.
func contextText(steps []step) string {
	return mctsql.StepsText(steps, "\n【Previous reasoning steps】\n", "\n\n", ActionNames)
}

// step is one earlier action on a path.
type step = mctsql.Step

// instructions holds the task part of each action's prompt.
var instructions = map[mcts.Action]string{
	A1: `【Task】Question Rephrasing
Rephrase the question into a list of explicit conditions followed by a precise question, removing ambiguity. Keep every constraint of the original question and hint.
Answer in this format:
Conditions:
- <condition>
Question: <the rephrased question>`,
	A2: `【Task】Schema Selection
Think step by step about which tables and columns are needed to answer the question, including join keys. Then end your answer with the selection as a JSON object mapping each table to its needed columns ("*" for every column of a table; {"tables": "*"} when every table is needed):
` + "```json\n{\"tables\": {\"<table>\": [\"<column>\", ...]}}\n```",
	A3: `【Task】Column Value Identification
Think step by step about the filter conditions the question puts on column values (for WHERE and HAVING clauses), using the exact values stored in the database where the schema shows them. Then end your answer with them as JSON:
` + "```json\n{\"values\": [{\"column\": \"<table>.<column>\", \"op\": \"=\", \"value\": \"<value>\"}]}\n```",
	A4: `【Task】Column Function Identification
Think step by step about the aggregate and scalar functions the query needs (COUNT, SUM, AVG, MIN, MAX, STRFTIME, CAST, ...) and the columns they apply to. Then end your answer with them as JSON:
` + "```json\n{\"functions\": [\"<function call>\"]}\n```",
	A5: `【Task】SQL Generation
Use divide and conquer: split the question into sub-questions, write a pseudo SQL for each, then assemble and simplify them into one final SQLite query. Use only tables and columns of the schema. End with the final query in a fenced block:
` + "```sql\n<query>\n```",
	A6: `【Task】SQL Revision
The SQL query below was executed on the database. Using the execution feedback, find what is wrong (errors, empty or NULL results, wrong columns or conditions) and write a corrected SQLite query. If the query is already correct, repeat it. End with the final query in a fenced block:
` + "```sql\n<query>\n```",
}

// rewardInstruction is the prompt of the reward's resampling (the paper's
// self-consistency samples of the SQL generation step at the terminal's
// path context).
const rewardInstruction = `【Task】SQL Generation (self-consistency sample)
Write the SQLite query that answers the question, reasoning briefly first. Use only tables and columns of the schema. End with the final query in a fenced block:
` + "```sql\n<query>\n```"

// keywordInstruction is the prompt of the keyword-extraction call that
// feeds value retrieval (one call per question).
const keywordInstruction = `【Task】Keyword Extraction
Think step by step about the keywords, entity names and literal values mentioned in the question and hint that may be stored in the database (names, places, titles, codes, dates, numbers). Then end your answer with them as JSON:
` + "```json\n{\"keywords\": [\"<keyword>\", ...]}\n```"

// ParseKeywords reads the keyword-extraction answer: the JSON object that
// ends it (jsontext.Decode: fenced or not, after any reasoning; a single
// keyword or numbers are read as a list of strings).
func ParseKeywords(out string) ([]string, error) {
	var v struct {
		Keywords []string `json:"keywords"`
	}
	if err := jsontext.Decode(out, &v); err != nil {
		return nil, fmt.Errorf("keywords: %w", err)
	}
	var kw []string
	seen := map[string]bool{}
	for _, k := range v.Keywords {
		k = strings.TrimSpace(k)
		if k != "" && !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			kw = append(kw, k)
		}
	}
	return kw, nil
}

// ParseRephrase reads a question-rephrasing answer: its key is the text
// from "Conditions:" on, whitespace-normalised and lower-cased.
func ParseRephrase(out string) (key string, ok bool) {
	i := strings.Index(strings.ToLower(out), "question:")
	if i < 0 {
		return "", false
	}
	start := strings.Index(strings.ToLower(out), "conditions:")
	if start < 0 || start > i {
		start = i
	}
	return strings.ToLower(strings.Join(strings.Fields(out[start:]), " ")), true
}

// AllTables is the key ParseSchemaSelection returns alone when the answer
// selects every table ("*" or "all").
const AllTables = runners.AllTables

// ParseSchemaSelection reads a schema-selection answer: table -> columns,
// an empty column list meaning the whole table, in every shape
// runners.DecodeSelection accepts; an answer selecting every table gives
// the single key AllTables.
func ParseSchemaSelection(out string) (map[string][]string, error) {
	sel, err := runners.DecodeSelection(out)
	switch {
	case errors.Is(err, runners.ErrNoTables):
		return nil, fmt.Errorf("schema selection: no tables in the answer")
	case err != nil:
		return nil, fmt.Errorf("schema selection: %w", err)
	}
	return sel, nil
}

// ValueCondition is one identified column-value condition.
type ValueCondition struct {
	Column string `json:"column"`
	Op     string `json:"op"`
	Value  any    `json:"value"`
}

// ParseValues reads a column-value answer.
func ParseValues(out string) ([]ValueCondition, error) {
	var v struct {
		Values []ValueCondition `json:"values"`
	}
	if err := jsontext.Decode(out, &v); err != nil {
		return nil, fmt.Errorf("column values: %w", err)
	}
	return v.Values, nil
}

func valuesKey(vs []ValueCondition) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strings.ToLower(fmt.Sprintf("%s %s %v", v.Column, v.Op, v.Value))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// ParseFunctions reads a column-function answer.
func ParseFunctions(out string) ([]string, error) {
	var v struct {
		Functions []string `json:"functions"`
	}
	if err := jsontext.Decode(out, &v); err != nil {
		return nil, fmt.Errorf("column functions: %w", err)
	}
	return v.Functions, nil
}

func functionsKey(fs []string) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strings.ToLower(strings.Join(strings.Fields(f), ""))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// ParseSQL reads the final SQL of a generation or revision answer.
func ParseSQL(out string) (string, bool) { return sqltext.Extract(out) }
