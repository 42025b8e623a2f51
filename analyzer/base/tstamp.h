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

struct tstamp {
	int year;      /* 0 when the format prints none (glog) */
	int month;     /* 1..12 */
	int day;       /* 1..31 */
	double sod;    /* seconds of the day, with the fraction */
};

/* 1 and *t filled when s[0..n) starts with a timestamp, else 0. */
int tstamp_parse(const char *s, size_t n, struct tstamp *t);
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
