/* tstamp.c - see tstamp.h. */
#include "base/tstamp.h"

#include <math.h>
#include <string.h>

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

/* exactly k digits at p (p < end) */
static int num(const char *p, const char *end, int k, int *out)
{
	if (end - p < k)
		return 0;
	int v = 0;
	for (int i = 0; i < k; i++) {
		if (!digit(p[i]))
			return 0;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return 1;
}

/* "HH:MM:SS[.frac]" at *pp; advances *pp past it. */
static int hms(const char **pp, const char *end, double *sod)
{
	const char *p = *pp;
	int h, m, s;
	if (end - p < 8 || !num(p, end, 2, &h) || p[2] != ':' || !num(p + 3, end, 2, &m) || p[5] != ':' ||
	    !num(p + 6, end, 2, &s) || h > 23 || m > 59 || s > 60)
		return 0;
	double v = h * 3600.0 + m * 60.0 + s;
	p += 8;
	if (p < end && (*p == '.' || *p == ',') && p + 1 < end && digit(p[1])) {
		double f = 0.1;
		for (p++; p < end && digit(*p); p++) {
			if (f > 1e-10)
				v += (*p - '0') * f;
			f /= 10;
		}
	}
	*sod = v;
	*pp = p;
	return 1;
}

static int date_ok(const struct tstamp *t)
{
	return t->month >= 1 && t->month <= 12 && t->day >= 1 && t->day <= 31;
}

/* The time of day at P, after a date read into T: 1, or 0 with T cleared
 * (a date without a valid time is no timestamp). */
static int date_then_time(struct tstamp *t, const char *p, const char *end)
{
	if (date_ok(t) && hms(&p, end, &t->sod))
		return 1;
	memset(t, 0, sizeof *t);
	return 0;
}

/* tstamp_parse (tstamp.h) after its first test: the forms, at p. */
int tstamp_parse_forms(const char *p, const char *end, struct tstamp *t)
{
	memset(t, 0, sizeof *t);
	/* YYYY-MM-DD HH:MM:SS, YYYY/MM/DD HH:MM:SS */
	if (num(p, end, 4, &t->year) && end - p > 10 && (p[4] == '-' || p[4] == '/') && p[7] == p[4] &&
	    num(p + 5, end, 2, &t->month) && num(p + 8, end, 2, &t->day) &&
	    (p[10] == ' ' || p[10] == 'T' || p[10] == '_')) {
		return date_then_time(t, p + 11, end);
	}
	t->year = 0;
	/* MM/DD/YYYY HH:MM:SS (Hugging Face's example scripts log so) */
	if (end - p > 11 && p[2] == '/' && p[5] == '/' && num(p, end, 2, &t->month) && num(p + 3, end, 2, &t->day) &&
	    num(p + 6, end, 4, &t->year) && p[10] == ' ') {
		return date_then_time(t, p + 11, end);
	}
	t->year = 0;
	/* MM-DD HH:MM:SS (vLLM's logger): no year */
	if (end - p > 6 && p[2] == '-' && p[5] == ' ' && num(p, end, 2, &t->month) && num(p + 3, end, 2, &t->day)) {
		return date_then_time(t, p + 6, end);
	}
	/* glog: Lmmdd HH:MM:SS.frac; PyTorch's c10 logger does not pad the
	 * month: "E108 20:04:34.467642512" is January 8 */
	if (end - p > 6 && (p[0] == 'I' || p[0] == 'W' || p[0] == 'E' || p[0] == 'F') &&
	    ((num(p + 1, end, 2, &t->month) && num(p + 3, end, 2, &t->day) && p[5] == ' ') ||
	     (num(p + 1, end, 1, &t->month) && num(p + 2, end, 2, &t->day) && p[4] == ' '))) {
		return date_then_time(t, p + (p[4] == ' ' ? 5 : 6), end);
	}
	/* syslog / journald short: "Aug 12 01:22:51" (the day padded: "Aug  2"): no year */
	static const char MON[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (end - p >= 15 && p[3] == ' ' && (p[4] == ' ' || digit(p[4])) && digit(p[5]) && p[6] == ' ') {
		int mo = 0;
		for (int i = 0; i < 12 && !mo; i++)
			if (memcmp(p, MON + 3 * i, 3) == 0)
				mo = i + 1;
		if (mo) {
			t->month = mo;
			t->day = (p[4] == ' ' ? 0 : (p[4] - '0') * 10) + (p[5] - '0');
			return date_then_time(t, p + 7, end);
		}
	}
	/* ctime: "Mon Nov 30 14:30:31 2026" (the day may be padded: "Dec  1") */
	if (end - p >= 24 && p[3] == ' ' && p[7] == ' ') {
		int mo = 0;
		for (int i = 0; i < 12 && !mo; i++)
			if (memcmp(p + 4, MON + 3 * i, 3) == 0)
				mo = i + 1;
		const char *q = p + 8;
		if (*q == ' ')
			q++;
		int d = 0;
		while (q < end && digit(*q) && d < 100)
			d = d * 10 + (*q++ - '0');
		if (mo && q < end && *q == ' ') {
			q++;
			t->month = mo;
			t->day = d;
			if (date_ok(t) && hms(&q, end, &t->sod) && q < end && *q == ' ' && num(q + 1, end, 4, &t->year))
				return 1;
		}
	}
	memset(t, 0, sizeof *t);
	return 0;
}

static long days_from_civil(long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

double tstamp_epoch(const struct tstamp *t)
{
	if (!t->year)
		return NAN;
	return (double)days_from_civil(t->year, (unsigned)t->month, (unsigned)t->day) * 86400.0 + t->sod;
}

double tstamp_epoch_of(const char *s)
{
	struct tstamp t;
	if (!s || !tstamp_parse(s, strlen(s), &t))
		return NAN;
	return tstamp_epoch(&t);
}

double tstamp_order(const struct tstamp *t)
{
	return ((double)t->month * 32 + t->day) * 86400.0 + t->sod;
}
