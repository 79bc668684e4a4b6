/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hostile strings for the property tests of the generators that write a
 * device-supplied string (an array name, a home host, a device name) into
 * text another program parses: stria.conf lines, mails, udev properties.
 * hostile_str(i) is the i-th of them: first a fixed list of the strings
 * that break a line, a header, a quoted word or a shell command, then
 * pseudo-random ones (a fixed seed: every run tests the same strings) of
 * 1 to 300 bytes drawn from those characters, printable ASCII and bytes
 * that are no UTF-8. A C string holds no NUL; one in the middle of a
 * device's field ends the string there, as every reader of it does.
 * unescape_hex() undoes striactl's escape_text() (\xHH), so that a test can
 * tell a value from the text it was printed as without the code under
 * test.
 */
#ifndef _STRIA_UNIT_HOSTILE_H
#define _STRIA_UNIT_HOSTILE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HOSTILE_MAX	320
#define HOSTILE_FIXED	(sizeof(hostile_fixed) / sizeof(hostile_fixed[0]))
#define HOSTILE_COUNT	(HOSTILE_FIXED + 2000)

static const char *const hostile_fixed[] = {
	"data", "a", "a\nb", "a\rb", "a\r\nBcc: evil@example.com",
	"x\nARRAY evil uuid=00000000000000000000000000000001",
	"x\nHOMEHOST <ignore>", "\nAUTO +all", "x\n\tAUTO +all",
	"x\\\nAUTO +all", "a b", "a\tb", "\"", "'", "\"a b\"", "'a b'",
	"a\"b", "a'b", "#comment", "a #b", "a=b", "uuid=1", "a,b", "\\",
	"a\\", "%", "%i", "%n%s", "$", "$(reboot)", "`reboot`", "${IFS}",
	"a;reboot", "a|b", "a&b", "a>b", "<none>", "<ignore>", "*", "?",
	"[a]", "-", "-t", "--help", ".", "..", "../../etc/passwd", "/",
	"a/b", "Subject: x", "To: evil@example.com", ":", "=?utf-8?b?QmNjOg==?=",
	"\x1b[31mred\x1b[0m", "\x7f", "\x80", "\xff\xfe", "\xc3\x28", "\xe2\x80\xae",
	"caf\xc3\xa9", "a\x01b", "\x0b\x0c", "ARRAY", "HOMEHOST", "MAILADDR root",
	"PROGRAM /tmp/x", "RUN+=\"/tmp/x\"", "\",RUN+=\"/tmp/x", "STRIA_VALID=true",
	"a\nSTRIA_VALID=true", "0123456789abcdef0123456789abcdef",
	"0123456789abcdef0123456789abcde",
	"very-long-name-very-long-name-very-long-name-very-long-name-very-long-name",
};

static uint64_t hostile_rng;

static unsigned int hostile_next(void)
{
	hostile_rng ^= hostile_rng << 13;
	hostile_rng ^= hostile_rng >> 7;
	hostile_rng ^= hostile_rng << 17;
	return (unsigned int)(hostile_rng >> 32);
}

/* The @i-th hostile string into @buf (HOSTILE_MAX bytes); returns @buf. */
static char *hostile_str(unsigned int i, char *buf)
{
	static const char special[] = "\r\n\t \"'\\=,#%$`;|&<>*?[]{}()/:@!~.-_";
	unsigned int len, k, r;

	if (i < HOSTILE_FIXED) {
		snprintf(buf, HOSTILE_MAX, "%s", hostile_fixed[i]);
		return buf;
	}
	hostile_rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)i * 0x100000001b3ULL);
	for (k = 0; k < 4; k++)
		hostile_next();
	r = hostile_next();
	/* mostly short, some at the limits of the fields, some very long */
	len = r % 4 == 0 ? 1 + hostile_next() % 300 : 1 + hostile_next() % 70;
	for (k = 0; k < len; k++) {
		r = hostile_next() % 8;
		if (r < 3)
			buf[k] = special[hostile_next() % (sizeof(special) - 1)];
		else if (r < 6)
			buf[k] = (char)(0x20 + hostile_next() % 95);
		else if (r < 7)
			buf[k] = (char)(0x80 + hostile_next() % 128);
		else
			buf[k] = (char)(1 + hostile_next() % 31);
	}
	buf[len] = '\0';
	return buf;
}

/* @s with its \xHH escapes undone, into @buf (@len bytes); 0, or -1. */
static __attribute__((unused)) int unescape_hex(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int v;

	for (; *s; s++) {
		if (n + 1 >= len)
			return -1;
		if (*s == '\\') {
			if (s[1] != 'x' || !s[2] || !s[3] ||
			    !strchr("0123456789abcdef", s[2]) ||
			    !strchr("0123456789abcdef", s[3]) ||
			    sscanf(s + 2, "%2x", &v) != 1)
				return -1;
			buf[n++] = (char)v;
			s += 3;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return 0;
}

/*
 * A string for a TAP comment: what hostile_str() gave, escaped; the last
 * two results stay valid.
 */
static __attribute__((unused)) const char *hostile_show(const char *s)
{
	static char bufs[2][4 * HOSTILE_MAX + 1];
	static unsigned int which;
	char *out = bufs[which++ % 2];
	size_t n = 0;

	for (; *s && n + 5 < sizeof(bufs[0]); s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			n += (size_t)snprintf(out + n, 5, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	out[n] = '\0';
	return out;
}

#endif /* _STRIA_UNIT_HOSTILE_H */
