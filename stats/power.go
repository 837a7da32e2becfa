package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Power calculations for McNemar's test use the normal approximation of
// Connor (1987, Biometrics 43:207-211). With ψ = p10 + p01 the discordance
// rate (the share of questions on which the two systems disagree), δ =
// p01 - p10 the accuracy difference, zα = Φ⁻¹(1 - α/2) and zβ = Φ⁻¹(power),
// a two-sided test at level α over n questions has
//
//	power = Φ((√n |δ| - zα √ψ) / √(ψ - δ²))
//
// and needs
//
//	n = (zα √ψ + zβ √(ψ - δ²))² / δ²
//
// questions. Solving the same equation for δ gives the smallest detectable
// difference
//
//	δ = √ψ (√n zα + zβ √(n - zα² + zβ²)) / (n + zβ²)
//
// These describe the uncorrected chi-square test (McNemarChi2); the
// continuity-corrected and exact tests are slightly more conservative, so
// their power is a little lower (see the tests for simulated figures).

func checkPowerArgs(psi, alpha float64) error {
	if !(psi > 0 && psi <= 1) {
		return fmt.Errorf("stats: power: discordance rate %v, want a value in (0, 1]", psi)
	}
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("stats: power: alpha %v, want a value in (0, 1)", alpha)
	}
	return nil
}

// McNemarPower returns the approximate power of the two-sided McNemar test
// at level alpha over n questions when the true accuracy difference is
// delta and the discordance rate psi (|delta| <= psi).
func McNemarPower(n int, delta, psi, alpha float64) (float64, error) {
	if err := checkPowerArgs(psi, alpha); err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, fmt.Errorf("stats: power: n = %d, want > 0", n)
	}
	d := math.Abs(delta)
	if d > psi {
		return 0, fmt.Errorf("stats: power: |delta| = %v exceeds the discordance rate %v", d, psi)
	}
	if d == psi {
		return 1, nil
	}
	za := distuv.UnitNormal.Quantile(1 - alpha/2)
	return distuv.UnitNormal.CDF((math.Sqrt(float64(n))*d - za*math.Sqrt(psi)) / math.Sqrt(psi-d*d)), nil
}

// McNemarMDE returns the smallest accuracy difference (minimum detectable
// effect, as a proportion) that the two-sided McNemar test at level alpha
// detects with the given power over n questions whose discordance rate is
// psi. It is an error when no difference up to psi is detectable.
func McNemarMDE(n int, psi, alpha, power float64) (float64, error) {
	if err := checkPowerArgs(psi, alpha); err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, fmt.Errorf("stats: power: n = %d, want > 0", n)
	}
	if !(power > 0 && power < 1) {
		return 0, fmt.Errorf("stats: power: power %v, want a value in (0, 1)", power)
	}
	za := distuv.UnitNormal.Quantile(1 - alpha/2)
	zb := distuv.UnitNormal.Quantile(power)
	nf := float64(n)
	disc := nf - za*za + zb*zb
	if disc < 0 {
		return 0, fmt.Errorf("stats: power: n = %d is too small for alpha %v and power %v", n, alpha, power)
	}
	d := math.Sqrt(psi) * (math.Sqrt(nf)*za + zb*math.Sqrt(disc)) / (nf + zb*zb)
	if d > psi {
		return 0, fmt.Errorf("stats: power: no difference up to the discordance rate %v is detectable with n = %d (would need %v)", psi, n, d)
	}
	return d, nil
}

// McNemarSampleSize returns the number of questions the two-sided McNemar
// test at level alpha needs to detect an accuracy difference delta with the
// given power when the discordance rate is psi (0 < |delta| <= psi).
func McNemarSampleSize(delta, psi, alpha, power float64) (int, error) {
	if err := checkPowerArgs(psi, alpha); err != nil {
		return 0, err
	}
	if !(power > 0 && power < 1) {
		return 0, fmt.Errorf("stats: power: power %v, want a value in (0, 1)", power)
	}
	d := math.Abs(delta)
	if d == 0 || d > psi {
		return 0, fmt.Errorf("stats: power: |delta| = %v, want a value in (0, %v]", d, psi)
	}
	za := distuv.UnitNormal.Quantile(1 - alpha/2)
	zb := distuv.UnitNormal.Quantile(power)
	s := za*math.Sqrt(psi) + zb*math.Sqrt(psi-d*d)
	return int(math.Ceil(s * s / (d * d))), nil
}
