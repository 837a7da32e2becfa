package iesr

import (
	"encoding/json"
	"errors"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/mctsql"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// The six reasoning actions of IESR (paper Section 3.2, Appendix C.1) and
// the model-free termination that ends a path.
const (
	A1  mcts.Action = "A1"  // Equation Analysis
	A2  mcts.Action = "A2"  // Schema Selection
	A3  mcts.Action = "A3"  // Identify Columns
	A4  mcts.Action = "A4"  // Entity Extraction
	A5  mcts.Action = "A5"  // SQL Generation
	A6  mcts.Action = "A6"  // SQL Revision
	END mcts.Action = "END" // termination: keeps the path's SQL, no model call
)

// ActionNames names the actions for prompts and traces.
var ActionNames = map[mcts.Action]string{
	mcts.RootAction: "Root",
	A1:              "Equation Analysis",
	A2:              "Schema Selection",
	A3:              "Identify Columns",
	A4:              "Entity Extraction",
	A5:              "SQL Generation",
	A6:              "SQL Revision",
	END:             "Termination",
}

// Removable lists the actions the action ablation may remove (paper
// Table 3 removes A1-A4 and A6; "removing A5 yields degenerate
// trajectories").
var Removable = []mcts.Action{A1, A2, A3, A4, A6}

// Transitions is the valid-transition table. The paper gives none; IESR
// follows Alpha-SQL's search (Section 3.2), so t2sbench uses Alpha-SQL's
// table with IESR's actions in the corresponding places: the four
// analysis actions may precede SQL generation in any order (A1 first,
// like Alpha-SQL's rephrasing), a generated SQL may be revised once, and
// a path ends with END. An action already on the path is not offered
// again (mcts.Search enforces it).
var Transitions = mctsql.Transitions(A1, []mcts.Action{A2, A3, A4}, A5, A6, END)

// Request kinds (llm.Request.Responder), one per prompt kind.
const (
	RespUnderstand    = "iesr/understand"
	RespEquation      = "iesr/equation_analysis"
	RespSchema        = "iesr/schema_selection"
	RespColumns       = "iesr/identify_columns"
	RespEntities      = "iesr/entity_extraction"
	RespSQL           = "iesr/sql_generation"
	RespRevise        = "iesr/sql_revision"
	RespDiscriminator = "iesr/discriminator"
	RespVerify        = "iesr/verify_keywords"
)

const systemPrompt = "You are an expert SQL engineer with sound knowledge of mathematics, physics and units. You answer questions about a database by reasoning step by step and writing correct SQLite queries."

// instructions are the action prompts (paper Appendix E, condensed).
var instructions = map[mcts.Action]string{
	A1: "Equation Analysis: make every formula and numerical relation the question implies explicit: list the known quantities with their units, the unit conversions, and the formula that computes the answer from database columns. Finish with a line 'Formula: ...'.",
	A2: "Schema Selection: select the tables and columns needed to answer the question (an empty column list keeps the whole table). Answer with a JSON object {\"tables\": [{\"table\": \"<table>\", \"columns\": [\"<column>\", ...]}]} in a ```json block.",
	A3: "Identify Columns: resolve ambiguous fields: for every column the query needs, say what it holds (meaning, unit, format) and how it must be used (e.g. POWER(x, 2) rather than x * x). Answer with a JSON object {\"columns\": [{\"column\": \"<table>.<column>\", \"meaning\": \"...\"}]} in a ```json block.",
	A4: "Entity Extraction: ground the entities and values of the question in the database: for each, the column it filters and the literal value. Answer with a JSON object {\"entities\": [{\"mention\": \"...\", \"column\": \"<table>.<column>\", \"value\": \"...\"}]} in a ```json block.",
	A5: "SQL Generation: using the analysis so far, write one SQLite query that answers the question (nested queries where needed). Give the final query in a ```sql block.",
	A6: "SQL Revision: check the SQL against the question: list the known conditions, the formulas, units and key fields, diagnose logical, join and schema-mismatch errors using the execution feedback, and give the corrected query in a ```sql block.",
}

const rewardInstruction = "Write one SQLite query that answers the question, using the analysis so far. Give the final query in a ```sql block."

const discriminatorInstruction = "The reasoning above is incomplete. Continue it step by step from where it stops, then give the final SQLite query that answers the question in a ```sql block."

// step is one reasoning step of a path.
type step = mctsql.Step

// reasoningHead opens the steps of a prompt.
const reasoningHead = "\n【Reasoning so far】\n"

// stepsText renders the steps of a path.
func stepsText(steps []step) string {
	return mctsql.StepsText(steps, reasoningHead, "\n", ActionNames)
}

// AllTables is the key ParseSelection returns alone when the answer
// selects every table ("*" or "all").
const AllTables = runners.AllTables

// ParseSelection reads an A2 answer: table -> columns, an empty column list
// meaning the whole table. It accepts the strict-mode shape the schema asks
// for ({"tables": [{"table": "t", "columns": ["c"]}]}) and every other shape
// runners.DecodeSelection accepts; an answer selecting every table gives
// the single key AllTables.
func ParseSelection(out string) (map[string][]string, error) {
	sel, err := runners.DecodeSelection(out)
	if errors.Is(err, runners.ErrNoTables) {
		return nil, errors.New("schema selection names no table")
	}
	return sel, err
}

// ColumnNote is one A3 item.
type ColumnNote struct {
	Column  string `json:"column"`
	Meaning string `json:"meaning"`
}

// ParseColumns reads an A3 answer.
func ParseColumns(out string) ([]ColumnNote, error) {
	var v struct {
		Columns []ColumnNote `json:"columns"`
	}
	if err := decodeJSON(out, &v); err != nil {
		return nil, err
	}
	return v.Columns, nil
}

// EntityValue is one A4 item.
type EntityValue struct {
	Mention string `json:"mention"`
	Column  string `json:"column"`
	Value   string `json:"value"`
}

// ParseEntities reads an A4 answer.
func ParseEntities(out string) ([]EntityValue, error) {
	var v struct {
		Entities []EntityValue `json:"entities"`
	}
	if err := decodeJSON(out, &v); err != nil {
		return nil, err
	}
	return v.Entities, nil
}

// decodeJSON reads the JSON object of an answer leniently (jsontext.Decode:
// fenced or not, after any reasoning; a number where a string is expected
// is read as its text, so that one drifting field never fails a whole
// answer).
func decodeJSON(out string, v any) error { return jsontext.Decode(out, v) }

// ParseSQL extracts the SQL of an answer.
func ParseSQL(out string) (string, bool) { return sqltext.Extract(out) }

// canonicalJSON is a stable key for collapsing equal structured outputs.
func canonicalJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Schemas of the structured action answers. Each follows OpenAI's
// strict-mode rules (every property required, additionalProperties false
// on every object, no map-typed properties): the schema selection is a
// list of {table, columns} objects rather than an object keyed by table.
var (
	selectionSchema = json.RawMessage(`{"type":"object","properties":{"tables":{"type":"array","items":{"type":"object","properties":{"table":{"type":"string"},"columns":{"type":"array","items":{"type":"string"}}},"required":["table","columns"],"additionalProperties":false}}},"required":["tables"],"additionalProperties":false}`)
	columnsSchema   = json.RawMessage(`{"type":"object","properties":{"columns":{"type":"array","items":{"type":"object","properties":{"column":{"type":"string"},"meaning":{"type":"string"}},"required":["column","meaning"],"additionalProperties":false}}},"required":["columns"],"additionalProperties":false}`)
	entitiesSchema  = json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"mention":{"type":"string"},"column":{"type":"string"},"value":{"type":"string"}},"required":["mention","column","value"],"additionalProperties":false}}},"required":["entities"],"additionalProperties":false}`)
)

// Schema names as sent in llm.Request.SchemaName.
const (
	schemaState     = "semantic_state"
	schemaSelection = "schema_selection"
	schemaColumns   = "identify_columns"
	schemaEntities  = "entity_extraction"
)

// schemas returns every JSON schema the runner can send, by name (the
// strict-mode test walks them all).
func schemas() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		schemaState:     StateSchema,
		schemaSelection: selectionSchema,
		schemaColumns:   columnsSchema,
		schemaEntities:  entitiesSchema,
	}
}
