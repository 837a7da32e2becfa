package runners

// CallEstimator is implemented by a runner that can say, from its
// parameters and what is known of its model, before any model is called,
// how many model requests it makes per question, by role (t2sbench run
// --dry-run). A request with n samples is one request, as the run store
// counts calls. Each implementation documents its formula and the
// assumptions it makes about the model's answers where the count depends
// on them.
type CallEstimator interface {
	EstimateCalls(m ModelPrior) map[string]float64
}

// ModelPrior is what the dry run knows of the model behind a runner's
// reason role before calling it. The zero value means nothing is known;
// each estimator then states the default it assumes (from its paper where
// one exists).
type ModelPrior struct {
	// Accuracy is the probability that one sample of a final-SQL answer
	// is right, in [0, 1], where Known: a known fact about the model (a
	// sim model's configured p, its accuracy on a prompt that lacks
	// nothing; what a method's prompt lacks lowers it, which the
	// estimators do not count). Estimators take it for any answer that is
	// right or wrong (a schema selection as well as a query).
	Accuracy float64
	Known    bool
}

// EstimateCalls returns r's estimate given m, or nil and false when r
// makes none.
func EstimateCalls(r Runner, m ModelPrior) (map[string]float64, bool) {
	e, ok := r.(CallEstimator)
	if !ok {
		return nil, false
	}
	return e.EstimateCalls(m), true
}
