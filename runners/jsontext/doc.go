// Package jsontext decodes the JSON object a model answer carries, leniently,
// the way real models write it.
//
// Models asked for JSON rarely send only JSON. Instruction-tuned models
// (Qwen2.5, Llama-3.x) write prose before and after a fenced ```json block;
// GPT-4o-class models fence it or not; reasoning models (DeepSeek-R1, Qwen3)
// think first, sometimes drafting an object inside <think> before the final
// one; weaker models write numbers as strings, snake_case keys where the
// schema said camelCase, a bare string where a list was asked, trailing
// commas and // comments. Decode accepts all of these:
//
// Finding the object. Reasoning blocks (<think>, <thinking>, <reasoning>)
// are removed as think.Split removes them, in case the caller passed the raw
// text: closed blocks, an unclosed block at the end, and everything before a
// closing tag whose opening tag was in the prompt. Then the complete top-level
// JSON objects of the rest are collected in order (inside fences or not;
// string literals honoured; // and /* */ comments and trailing commas
// removed; Python's True, False and None read as true, false and null), and
// the LAST one that parses is decoded: a model that drafts and then corrects
// itself means the later object. When none parses the error wraps ErrNoJSON.
//
// Decoding into the target. Field names match the struct's json tag (or the
// field name) ignoring case, '_', '-' and spaces, so "table_name",
// "tableName" and "TableName" all fill `json:"table_name"`. Where the target
// type makes the meaning clear, a JSON value of another kind is converted:
//
//	target int / uint    3, 3.0, "3", " 3 "           (3.5 and "x" are errors)
//	target float         3.6, "3.6"
//	target bool          true, "true", "yes", 1, "1"  (and their negations)
//	target string        "x", 3 -> "3", true -> "true",
//	                     a list of scalars -> its elements joined by ", "
//	target slice         a list; a single value -> a one-element list;
//	                     null -> nil
//	target struct, map   an object (map keys are strings)
//	target any           the value as encoding/json would give it
//
// Types that implement json.Unmarshaler receive the value re-encoded as JSON,
// so a caller keeps full control of a field (Selection does this). null
// gives the zero value (a nullable strict-mode field left empty). Unknown
// keys are ignored and missing keys leave the zero value. A value that cannot
// be converted fails with an error naming the field's path
// ("field tables[1].columns: want a list of strings, got an object").
//
// Selection is the typed helper for answers that choose items from a set
// (tables, columns): a list, a single name, or "*" / "all" for every item.
package jsontext
