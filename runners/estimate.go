package runners

// CallEstimator is implemented by a runner that can say, from its
// parameters alone and before any model is called, how many model
// requests it makes per question, by role (t2sbench run --dry-run). A
// request with n samples is one request, as the run store counts calls.
// Each implementation documents its formula and the assumptions it makes
// about the model's answers where the count depends on them.
type CallEstimator interface {
	EstimateCalls() map[string]float64
}

// EstimateCalls returns r's estimate, or nil and false when r makes none.
func EstimateCalls(r Runner) (map[string]float64, bool) {
	e, ok := r.(CallEstimator)
	if !ok {
		return nil, false
	}
	return e.EstimateCalls(), true
}
