package runners

import "strconv"

// Model roles: the names a spec binds to models (roles: {reason: m}),
// that llm.Request.Role and Step.Role carry, and that usage and the call
// log are kept by. A role a trial does not bind runs on its RoleReason
// model (the scheduler's fallback), so every runner can run on a spec that
// binds RoleReason only.
const (
	// RoleReason writes the SQL (every runner).
	RoleReason = "reason"
	// RoleUnderstand builds IESR's semantic state (Stage 1).
	RoleUnderstand = "understand"
	// RoleDiscriminator picks IESR's final answer among the candidates.
	RoleDiscriminator = "discriminator"
	// RoleDecompose is SteinerSQL's Stage 1 decomposition.
	RoleDecompose = "decompose"
)

// Trace counter names that code outside the runner counting them reads:
// reports, the run summary and the viewer add them up across questions,
// so a runner and its reader must spell them the same way. Families of
// counters are built by the functions below.
const (
	// CounterPruned counts requests the model server refused permanently
	// (Trace.Reject, and the searches' pruned nodes).
	CounterPruned = "pruned"
	// CounterTurns counts a ReAct runner's model turns; reports' Table 6
	// (accuracy and average turns by difficulty) shows systems that have
	// it.
	CounterTurns = "turns"
	// CutPrefix starts the counters of answers cut at max_tokens:
	// "cut.<role>" (CounterCut).
	CutPrefix = "cut."
	// ParseFailedPrefix starts the names of the counters of structured
	// answers that did not parse: "parse_failed.<role>.<action>"
	// (CounterParseFailed).
	ParseFailedPrefix = "parse_failed."
	// ValidationPrefix starts SteinerSQL's validation counters
	// ("validation.l<level>", "validation.l<level>.attempts",
	// "validation.pass", ...), which reports show as trigger rates.
	ValidationPrefix = "validation."
	// Table4Prefix starts IESR's Table 4 counters
	// "table4.<stage>.<field>.<part>" (CounterTable4).
	Table4Prefix = "table4."
)

// CounterCut is the counter of answers of role cut at max_tokens,
// "cut.<role>".
func CounterCut(role string) string { return CutPrefix + role }

// CounterParseFailed is the counter of answers of role to action whose
// structure did not parse, "parse_failed.<role>.<action>".
func CounterParseFailed(role, action string) string {
	return ParseFailedPrefix + role + "." + action
}

// CounterValidation is SteinerSQL's counter of validation level l,
// "validation.l<l>", and with suffixes, "validation.l<l>.<suffix>...".
func CounterValidation(l int, suffix ...string) string {
	name := ValidationPrefix + "l" + strconv.Itoa(l)
	for _, s := range suffix {
		name += "." + s
	}
	return name
}

// CounterTable4 is IESR's Table 4 counter of one stage (extract,
// verified), field (tables, columns, ...) and part (pred, pred_hit, gold,
// gold_hit): "table4.<stage>.<field>.<part>". With part "" it is the
// prefix of the field's counters, and with field "" too, of the stage's.
func CounterTable4(stage, field, part string) string {
	name := Table4Prefix + stage + "."
	if field == "" {
		return name
	}
	name += field + "."
	return name + part
}
