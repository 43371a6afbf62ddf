/*
 * tap.h — a minimal TAP producer for the C unit tests of lib/.
 *   plan(3); ok(x == 1, "x is one"); is_str(a, b, "same"); return done();
 */
#ifndef ABX_TAP_H
#define ABX_TAP_H
#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;
static void plan(int n) { printf("1..%d\n", n); }
#define ok(c, ...) do { tap_n++; if (c) printf("ok %d - ", tap_n); \
	else { tap_fail++; printf("not ok %d - ", tap_n); } \
	printf(__VA_ARGS__); printf("\n"); } while (0)
#define is_str(a, b, ...) do { const char *_a = (a), *_b = (b); \
	int _e = _a && _b && strcmp(_a, _b) == 0; ok(_e, __VA_ARGS__); \
	if (!_e) printf("# got:  '%s'\n# want: '%s'\n", _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)
static int done(void) { return tap_fail != 0; }
#endif
