package baseline

import "github.com/t2sbench/t2sbench/runners"

// EstimateCalls implements runners.CallEstimator: direct and cot make one
// request per question (temperature 0), exactly.
func (s *single) EstimateCalls(runners.ModelPrior) map[string]float64 {
	return map[string]float64{runners.RoleReason: 1}
}

// EstimateCalls implements runners.CallEstimator: sc makes one request
// with n = k samples per question, exactly (a request counts once,
// whatever its n).
func (s *sc) EstimateCalls(runners.ModelPrior) map[string]float64 {
	return map[string]float64{runners.RoleReason: 1}
}
