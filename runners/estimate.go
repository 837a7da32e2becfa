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

// SharedRequests is implemented by a runner whose requests to a role do
// not depend on some of its parameters. Trials that differ only in such
// parameters (the points of a grid over selection weights) send that
// role the same requests, and the model cache answers every trial's but
// the first's: the dry run counts them once.
type SharedRequests interface {
	// IndependentParams lists the parameters the requests to role do not
	// depend on; a parameter it does not list is taken to change them.
	IndependentParams(role string) []string
}

// IndependentParams returns r's parameters that the requests to role do
// not depend on (none when r does not say).
func IndependentParams(r Runner, role string) []string {
	if s, ok := r.(SharedRequests); ok {
		return s.IndependentParams(role)
	}
	return nil
}

// TraceEstimator is implemented by a CallEstimator whose count rests on a
// rate of the method's own behaviour that its traces measure (SteinerSQL:
// how often a generated query fails validation). The dry run passes the
// traces of finished items of the same runner on the same benchmark in
// the run directory.
type TraceEstimator interface {
	// EstimateCallsFromTraces returns the estimate with the rate the
	// traces measure, and false when they measure none.
	EstimateCallsFromTraces(m ModelPrior, traces []Trace) (map[string]float64, bool)
}
