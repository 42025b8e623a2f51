/* tarhdr.c - see tarhdr.h. */
#include "base/tarhdr.h"

#include <stdio.h>
#include <string.h>

/* Octal field: optional leading spaces, digits, then only NUL/space.
 * Returns 0 and *v, or -1 when it is not a well-formed octal field.  An
 * all-blank field is 0. */
int tar_oct_field(const unsigned char *p, size_t n, uint64_t *v)
{
	size_t i = 0;
	uint64_t x = 0;
	while (i < n && p[i] == ' ')
		i++;
	while (i < n && p[i] >= '0' && p[i] <= '7') {
		if (x > (UINT64_MAX >> 3))
			return -1;
		x = (x << 3) | (uint64_t)(p[i] - '0');
		i++;
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != 0)
			return -1;
	*v = x;
	return 0;
}

/* Numeric field: octal, or GNU base-256 (high bit of the first byte). */
int tar_num_field(const unsigned char *p, size_t n, uint64_t *v)
{
	if (p[0] & 0x80) {
		if (p[0] & 0x40)
			return -1; /* negative */
		uint64_t x = p[0] & 0x3f;
		for (size_t i = 1; i < n; i++) {
			if (x > (UINT64_MAX >> 8))
				return -1;
			x = (x << 8) | p[i];
		}
		*v = x;
		return 0;
	}
	return tar_oct_field(p, n, v);
}

int tar_checksum_ok(const unsigned char h[TAR_BLOCK])
{
	uint64_t want;
	if (tar_oct_field(h + 148, 8, &want) < 0)
		return 0;
	unsigned long u = 0;
	long sgn = 0;
	for (int i = 0; i < 512; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
		u += c;
		sgn += (signed char)c;
	}
	return want == u || (long long)want == (long long)sgn;
}

int tar_is_ustar(const unsigned char h[TAR_BLOCK])
{
	return memcmp(h + 257, "ustar\0" "00", 8) == 0 || memcmp(h + 257, "ustar  \0", 8) == 0 ||
	       memcmp(h + 257, "ustar\0", 6) == 0;
}

int tar_is_posix(const unsigned char h[TAR_BLOCK])
{
	return memcmp(h + 257, "ustar\0", 6) == 0;
}

int tar_header_valid(const unsigned char h[TAR_BLOCK])
{
	if (!tar_checksum_ok(h))
		return 0;
	if (tar_is_ustar(h))
		return 1;
	/* v7: no magic, so insist on sane fields as well */
	uint64_t v;
	if (h[0] == 0)
		return 0;
	if (tar_oct_field(h + 100, 8, &v) < 0 || tar_oct_field(h + 108, 8, &v) < 0 ||
	    tar_oct_field(h + 116, 8, &v) < 0 || tar_oct_field(h + 124, 12, &v) < 0 ||
	    tar_oct_field(h + 136, 12, &v) < 0)
		return 0;
	char t = (char)h[156];
	return t == 0 || (t >= '0' && t <= '7');
}


int tar_zero_block(const unsigned char h[TAR_BLOCK])
{
	for (int i = 0; i < TAR_BLOCK; i++)
		if (h[i])
			return 0;
	return 1;
}

int tar_has_magic(const unsigned char *h, size_t n)
{
	return n >= 263 && memcmp(h + 257, "ustar", 5) == 0 && (h[262] == 0 || h[262] == ' ');
}

static void put_oct(unsigned char *p, size_t n, uint64_t v)
{
	/* n-1 octal digits, zero-padded, then NUL (what GNU tar writes) */
	char tmp[24];
	snprintf(tmp, sizeof tmp, "%0*llo", (int)(n - 1), (unsigned long long)v);
	memcpy(p, tmp, n - 1);
	p[n - 1] = 0;
}

int tar_header_make(unsigned char h[TAR_BLOCK], const char *name, char type, unsigned mode, uint64_t size,
                    uint64_t mtime)
{
	size_t n = strlen(name);
	memset(h, 0, TAR_BLOCK);
	if (n == 0 || size >= (1ULL << 33) || mtime >= (1ULL << 33))
		return -1;
	if (n <= 100) {
		memcpy(h, name, n);
	} else {
		/* the last '/' that leaves at most 100 bytes of name and 155 of prefix */
		size_t cut = 0;
		for (size_t i = n - 1; i > 0; i--)
			if (name[i] == '/' && n - i - 1 <= 100 && n - i - 1 > 0) {
				cut = i;
				if (i <= 155)
					break;
			}
		if (cut == 0 || cut > 155)
			return -1;
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, n - cut - 1);
	}
	put_oct(h + 100, 8, mode & 07777);
	put_oct(h + 108, 8, 0);
	put_oct(h + 116, 8, 0);
	put_oct(h + 124, 12, size);
	put_oct(h + 136, 12, mtime);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6); /* "ustar\0" */
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned long sum = 0;
	for (int i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	char ck[8];
	snprintf(ck, sizeof ck, "%06lo", sum & 0777777);
	memcpy(h + 148, ck, 6);
	h[154] = 0;
	h[155] = ' ';
	return 0;
}
