// Package crontick plans the ticks of recurring schedules: the cron
// expression in its time zone, and which tick runs next after a downtime.
//
// It may import the standard library and robfig/cron.
package crontick
