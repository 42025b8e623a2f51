/* tstamp.h - timestamps as logs and system reports print them, one parser
 * for all (rank timelines, memory traces, the HTML report's charts):
 *
 *   YYYY-MM-DD HH:MM:SS[.frac]   also '/' between the date's fields (both the
 *                                same) and 'T' or '_' before the time
 *   Lmmdd HH:MM:SS[.frac]        glog (L one of I W E F): no year; PyTorch's
 *                                c10 logger writes the month unpadded ("E108 ...")
 *   Www Mmm DD HH:MM:SS YYYY     ctime (nvidia-smi's "Timestamp", Open MPI's
 *                                --timestamp-output, dmesg -T)
 *   Mmm DD HH:MM:SS[.frac]       syslog / journald short: no year
 *   MM-DD HH:MM:SS[.frac]        vLLM's logger: no year
 *   MM/DD/YYYY HH:MM:SS          Hugging Face's example scripts
 *
 * Leading '[' and blanks are skipped; the fraction may follow ',' too.
 * What follows the timestamp is not looked at.  No time zone is read: the
 * times of one bundle are compared with each other, never with a clock. */
#ifndef NT_TSTAMP_H
#define NT_TSTAMP_H

#include <stddef.h>
#include <string.h>

struct tstamp {
	int year;      /* 0 when the format prints none (glog) */
	int month;     /* 1..12 */
	int day;       /* 1..31 */
	double sod;    /* seconds of the day, with the fraction */
};

/* The forms at p (tstamp.c), after tstamp_parse's first test: use tstamp_parse. */
int tstamp_parse_forms(const char *p, const char *end, struct tstamp *t);

/* 1 and *t filled when s[0..n) starts with a timestamp, else 0 (and *t
 * zero).  Inline up to the first test: the rank timelines ask it of every
 * plain line, and nearly every text line is turned away here, without a
 * call.  The test is what every form needs: a digit first (the dates), a
 * glog level letter before a digit, or (syslog, ctime) 15 bytes with
 * blanks at [3] and at [6] or [7]. */
static inline int tstamp_parse(const char *s, size_t n, struct tstamp *t)
{
	if (s) {
		const char *end = s + n;
		while (s < end && (*s == '[' || *s == ' '))
			s++;
		if (s < end && ((s[0] >= '0' && s[0] <= '9') ||
		                ((s[0] == 'I' || s[0] == 'W' || s[0] == 'E' || s[0] == 'F') && end - s > 6 && s[1] >= '0' &&
		                 s[1] <= '9') ||
		                (end - s >= 15 && s[3] == ' ' && (s[6] == ' ' || s[7] == ' '))))
			return tstamp_parse_forms(s, end, t);
	}
	memset(t, 0, sizeof *t);
	return 0;
}
/* Seconds since 1970-01-01 (as if UTC); NAN without a year. */
double tstamp_epoch(const struct tstamp *t);
/* tstamp_epoch of the timestamp the string s starts with; NAN when none
 * or without a year. */
double tstamp_epoch_of(const char *s);
/* Seconds on a calendar without years (months of 32 days): orders the
 * times of one log, with or without a year, when no year boundary falls
 * inside it. */
double tstamp_order(const struct tstamp *t);

#endif
