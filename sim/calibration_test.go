package sim

import (
	"fmt"
	"math"
	"testing"
)

// checkKeepRates compares each keep rate of got with want's, within tol.
func checkKeepRates(t *testing.T, got, want KeepRates, tol float64) {
	t.Helper()
	for i := range want.Tier {
		if math.Abs(got.Tier[i]-want.Tier[i]) > tol {
			t.Errorf("tier %d: got %.7f; want %.7f", i, got.Tier[i], want.Tier[i])
		}
	}
	if math.Abs(got.Pool-want.Pool) > tol {
		t.Errorf("pool: got %.7f; want %.7f", got.Pool, want.Pool)
	}
}

// TestOperatingPoint checks the solve on a calibration small enough to do
// by hand: tier A lists 10 items with 9 hits (P 0.9), tier B 10 with 5
// (P 0.5), the pool 100 with 2; the gold holds 20 items.
//
//   - Target P 0.8, R 0.5 (10 hits): with pool rate w, the tiers give
//     10-2w hits, A whole (9) and B the rest, (1-2w)/5 of it, 12-4w items
//     in all, and the pool 100w items; P = 10/(12+96w) = 0.8 gives
//     w = 0.5/96 = 0.0052083 and B = (1-2w)/5 = 0.1979167.
//   - Target P 0.95, R 0.5 is out of reach (no tier is that precise): the
//     nearest point of the ranking is A whole, P 0.9 R 0.45 (both 0.05
//     off); any share of B lowers P by more than it raises R.
//   - Target P 0.1, R 0.6 (12 hits): A and B whole give 14 hits, so the
//     pool rate only lowers the precision, with B taken back to keep 12
//     hits: 12/(10 + (3-2w)/0.5 + 100w) = 0.1 gives w = 104/96 > 1, so
//     w = 1 and B = 1/5 (A 9, B 1, pool 2 hits).
//
// Tolerance 1e-6 (bisection to 2^-60); the ranking's grid is 1/200 of a
// tier, so the out-of-reach point is exact.
func TestOperatingPoint(t *testing.T) {
	t.Parallel()
	kc := KindCalibration{Tiers: []TierCount{{10, 9}, {10, 5}}, Pool: TierCount{100, 2}, Gold: 20}
	for _, tc := range []struct {
		name   string
		target KindPR
		want   KeepRates
	}{
		{"reachable", KindPR{0.8, 0.5}, KeepRates{Tier: []float64{1, (1 - 2*0.5/96) / 5}, Pool: 0.5 / 96}},
		{"too precise", KindPR{0.95, 0.5}, KeepRates{Tier: []float64{1, 0}, Pool: 0}},
		{"pool at most 1", KindPR{0.1, 0.6}, KeepRates{Tier: []float64{1, 0.2}, Pool: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := kc.OperatingPoint(tc.target)
			checkKeepRates(t, got, tc.want, 1e-6)
		})
	}
}

// TestCalibrationsReachExtractRows: on each stored calibration the solve
// brings the expected precision and recall of the Qwen2.5-7B-Instruct and
// Qwen3-8B extraction rows (IESR Table 4) for tables and numbers to the
// row's own figures (the rankings reach them: their best tiers are more
// precise and their tiers and pools find more than the rows ask), within
// 0.05 points; and every keep rate lies in [0, 1].
func TestCalibrationsReachExtractRows(t *testing.T) {
	t.Parallel()
	for name, cal := range calibrations {
		for _, prof := range []string{"qwen2.5-7b", "qwen3-8b"} {
			t.Run(name+"/"+prof, func(t *testing.T) {
				row := profiles[prof].Extract
				for _, kind := range []int{KindTable, KindNumber} {
					kc := cal.Kinds[kind]
					if len(kc.Tiers) != numTiers[kind] {
						t.Fatalf("%s: %d tiers; want %d", kindNames[kind], len(kc.Tiers), numTiers[kind])
					}
					k := kc.OperatingPoint(row[kind])
					got := kc.Expected(k)
					if math.Abs(got.P-row[kind].P) > 5e-4 || math.Abs(got.R-row[kind].R) > 5e-4 {
						t.Errorf("%s: got P %.4f R %.4f; want the row's P %.4f R %.4f", kindNames[kind], got.P, got.R, row[kind].P, row[kind].R)
					}
				}
				for kind := range numKinds {
					for _, row := range [][numKinds]KindPR{profiles[prof].Extract, profiles[prof].Verified} {
						k := cal.Kinds[kind].OperatingPoint(row[kind])
						for _, r := range append(append([]float64{}, k.Tier...), k.Pool) {
							if r < 0 || r > 1 || math.IsNaN(r) {
								t.Errorf("%s: keep rates %v; want each in [0, 1]", kindNames[kind], k)
							}
						}
					}
				}
			})
		}
	}
}

// TestRecallPoint checks the recall-only solve on the calibration of
// TestOperatingPoint (tier A 10 items, 9 hits; tier B 10, 5; the pool
// 100, 2; 20 gold items), by hand: recall 0.5 (10 hits) keeps A whole
// and 1/5 of B; 0.75 (15 hits) both tiers (14) and half the pool; 0.9
// (18 hits, more than the 16 there are) everything. And on every stored
// calibration, a profile's SchemaRecall gives that expected table recall
// (the tiers and pool together find every gold table), within 1e-9.
func TestRecallPoint(t *testing.T) {
	t.Parallel()
	kc := KindCalibration{Tiers: []TierCount{{10, 9}, {10, 5}}, Pool: TierCount{100, 2}, Gold: 20}
	for _, tc := range []struct {
		r    float64
		want KeepRates
	}{
		{0.5, KeepRates{Tier: []float64{1, 0.2}}},
		{0.75, KeepRates{Tier: []float64{1, 1}, Pool: 0.5}},
		{0.9, KeepRates{Tier: []float64{1, 1}, Pool: 1}},
	} {
		t.Run(fmt.Sprint(tc.r), func(t *testing.T) {
			got := kc.RecallPoint(tc.r)
			checkKeepRates(t, got, tc.want, 1e-9)
		})
	}
	for name, cal := range calibrations {
		for _, prof := range ProfileNames() {
			t.Run(name+"/"+prof, func(t *testing.T) {
				kc := cal.Kinds[KindTable]
				r := profiles[prof].SchemaRecall()
				if got := kc.Expected(kc.RecallPoint(r)).R; math.Abs(got-r) > 1e-9 {
					t.Errorf("expected table recall %.4f; want the profile's %.4f", got, r)
				}
			})
		}
	}
}

// TestDefaultCalibrationFillsUnmeasuredTiers: on a benchmark without its
// own calibration, every tier the default calibration did not measure
// (Spider dev's hint tiers of numbers and operators) gets a keep rate
// above 0, for every profile, stage and kind, wherever the fallback
// calibration's own operating point keeps that tier; without the fill
// such a tier's keep rate is 0 and the hint's items are never listed.
func TestDefaultCalibrationFillsUnmeasuredTiers(t *testing.T) {
	base, from := calibrations[DefaultCalibration], calibrations[FallbackCalibration]
	cal := calibrationFor("bird")
	filled := 0
	for name, prof := range profiles {
		for stage, rows := range [][numKinds]KindPR{prof.Extract, prof.Verified} {
			for kind := range numKinds {
				got := cal.Kinds[kind].OperatingPoint(rows[kind])
				ref := from.Kinds[kind].OperatingPoint(rows[kind])
				for tier, c := range base.Kinds[kind].Tiers {
					if c.N > 0 || ref.Tier[tier] == 0 {
						continue
					}
					filled++
					t.Run(fmt.Sprintf("%s/stage%d/%s/tier%d", name, stage, kindNames[kind], tier), func(t *testing.T) {
						if got.Tier[tier] <= 0 {
							t.Errorf("keep rate %g; want > 0 (%s keeps %g)", got.Tier[tier], FallbackCalibration, ref.Tier[tier])
						}
					})
				}
			}
		}
	}
	if filled == 0 {
		t.Fatalf("got no tier that %s left unmeasured and %s keeps; want some", DefaultCalibration, FallbackCalibration)
	}
	// The default calibration itself is left as it is.
	for kind := range numKinds {
		for tier, c := range base.Kinds[kind].Tiers {
			if c.N == 0 {
				continue
			}
			if g := cal.Kinds[kind].Tiers[tier]; g != c {
				t.Errorf("%s tier %d: got %+v; want %s's %+v", kindNames[kind], tier, g, DefaultCalibration, c)
			}
		}
	}
}
