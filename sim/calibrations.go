package sim

// DefaultCalibration is the calibration a benchmark without its own uses,
// its unmeasured tiers filled from FallbackCalibration's.
const DefaultCalibration = "spider"

// FallbackCalibration is the calibration whose counts stand in for the
// tiers DefaultCalibration did not measure (the hint tiers of numbers
// and operators: Spider dev has no hints, mini has).
const FallbackCalibration = "mini"

// calibrations are the measured calibrations of the ranked keyword
// reading, by benchmark name: per kind (table, column, number, operator),
// the items and gold hits of each tier (keywords.go: tierTable*,
// tierColumn*, tierNumber*, tierOperator*, in that order) and of the pool,
// and the gold items, summed over the question set, each made with
// TestCalibrateReading (-sim.calibrate=mini; -sim.calibrate=spider=DIR)
// on the shared data. They are measurements of the simulator's reading,
// taken once and offline; an item's answer never reads its own gold.
// TestMiniCalibrationCurrent re-measures the mini one on every test run,
// so a change to the reading cannot leave it stale unnoticed. They are
// unexported: they decide every keep rate, and so answers, and only
// BehaviourVersion, not a caller's change, moves the model's identity.
var calibrations = map[string]*Calibration{
	"mini": {Name: "mini", Source: "the bundled mini benchmark, all questions", Questions: 42, Kinds: [numKinds]KindCalibration{
		{Tiers: []TierCount{{42, 37}, {16, 14}, {8, 3}, {20, 18}, {3, 1}}, Pool: TierCount{81, 5}, Gold: 78},                                           // table
		{Tiers: []TierCount{{25, 20}, {45, 44}, {56, 25}, {4, 1}, {31, 23}, {52, 44}}, Pool: TierCount{238, 17}, Gold: 183},                            // column
		{Tiers: []TierCount{{8, 6}, {4, 2}, {14, 14}, {12, 1}}, Pool: TierCount{37, 0}, Gold: 27},                                                      // number
		{Tiers: []TierCount{{21, 19}, {4, 4}, {4, 1}, {19, 16}, {39, 38}, {8, 8}, {8, 5}, {3, 2}, {9, 1}, {8, 1}}, Pool: TierCount{633, 5}, Gold: 102}, // operator
	}},
	"spider": {Name: "spider", Source: "Spider dev, the 972 questions whose databases the shared data holds", Questions: 972, Kinds: [numKinds]KindCalibration{
		{Tiers: []TierCount{{960, 838}, {444, 315}, {279, 73}, {384, 120}, {74, 25}}, Pool: TierCount{2230, 122}, Gold: 1493},                                                     // table
		{Tiers: []TierCount{{237, 210}, {1228, 884}, {1716, 385}, {252, 28}, {568, 195}, {659, 282}}, Pool: TierCount{7744, 533}, Gold: 2734},                                     // column
		{Tiers: []TierCount{{197, 183}, {36, 30}, {0, 0}, {0, 0}}, Pool: TierCount{231, 0}, Gold: 218},                                                                            // number
		{Tiers: []TierCount{{377, 346}, {30, 20}, {92, 72}, {220, 204}, {0, 0}, {324, 276}, {357, 205}, {90, 39}, {172, 16}, {291, 70}}, Pool: TierCount{15543, 109}, Gold: 1357}, // operator
	}},
}
