package runstore

import "fmt"

// Measured is what a run directory's call log says of one trial's
// finished items.
type Measured struct {
	Items              int
	Calls              map[string]float64 // by role, all items
	Prompt, Completion map[string]float64 // tokens by role, all items
}

// MeasuredCalls reads the call log of the finished (done or failed) items
// of every trial in dir, read-only.
func MeasuredCalls(dir string) (map[string]*Measured, error) {
	out := map[string]*Measured{}
	s, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	rows, err := s.db.Query(`SELECT trial_id, COUNT(*) FROM items WHERE status IN (?, ?) GROUP BY trial_id`, StatusDone, StatusFailed)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	for rows.Next() {
		m := &Measured{Calls: map[string]float64{}, Prompt: map[string]float64{}, Completion: map[string]float64{}}
		var id string
		if err := rows.Scan(&id, &m.Items); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store %s: %w", dir, err)
		}
		out[id] = m
	}
	rows.Close()
	rows, err = s.db.Query(`SELECT c.trial_id, COALESCE(c.role, ''), COUNT(*), `+tokenSums("c.")+`
		FROM model_calls c JOIN items i ON i.trial_id = c.trial_id AND i.question_id = c.question_id
		WHERE i.status IN (?, ?) AND c.session = i.session GROUP BY c.trial_id, c.role`, StatusDone, StatusFailed)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, role string
		var n, pt, ct float64
		if err := rows.Scan(&id, &role, &n, &pt, &ct); err != nil {
			return nil, fmt.Errorf("store %s: %w", dir, err)
		}
		if m := out[id]; m != nil {
			m.Calls[role] += n
			m.Prompt[role] += pt
			m.Completion[role] += ct
		}
	}
	return out, rows.Err()
}
