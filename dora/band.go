package dora

import "time"

// Band is a dora.dev performance band; "" when a figure has not enough
// data or the metric has no published bands (deployment rework rate).
type Band string

const (
	Elite  Band = "elite"
	High   Band = "high"
	Medium Band = "medium"
	Low    Band = "low"
)

// The thresholds come from the performance clusters of the dora.dev
// 2024/2025 report (docs/dora.md gives them and where manent departs).
const (
	day   = 24 * time.Hour
	week  = 7 * day
	month = 30 * day
	// weeksPerMonth turns "once per month" into deploys per week.
	weeksPerMonth = 30.0 / 7.0
)

func frequencyBand(perWeek float64) Band {
	switch {
	case perWeek >= 7: // on demand: daily or more
		return Elite
	case perWeek >= 1: // between once per day and once per week
		return High
	case perWeek >= 1/weeksPerMonth: // between once per week and once per month
		return Medium
	default:
		return Low
	}
}

func leadTimeBand(d time.Duration) Band {
	switch {
	case d < day:
		return Elite
	case d <= week:
		return High
	case d <= month:
		return Medium
	default:
		return Low
	}
}

func changeFailBand(r float64) Band {
	switch {
	case r <= 0.05:
		return Elite
	case r <= 0.10:
		return High
	case r <= 0.20:
		return Medium
	default:
		return Low
	}
}

func recoveryBand(d time.Duration) Band {
	switch {
	case d < time.Hour:
		return Elite
	case d < day:
		return High
	case d < week:
		return Medium
	default:
		return Low
	}
}
