/*
 * termsafe.h — text from records (URLs, titles, statuses) made safe to print
 * on a terminal: every control is shown, none is interpreted.
 *
 * A URL or title comes from other people's pages; printed as it is, an ESC
 * (0x1b) or a C1 control such as CSI (U+009B) would let a page move the
 * cursor, rewrite lines, set the window title or, on some terminals, answer
 * back as if typed.  termsafe() copies s, replacing
 *
 *   C0 controls 0x00-0x1f and DEL 0x7f   caret notation: ^[ ^I ^J ^?
 *   C1 controls U+0080-U+009F (UTF-8)    \u0080 ... \u009f
 *   bidirectional overrides and isolates \u202a-\u202e, \u2066-\u2069
 *   (text that would print in another order than it is stored)
 *   a byte that is not part of valid UTF-8  \x9b (a lone C1 byte of a
 *                                           Latin-1 terminal among them)
 *
 * and keeping every other character (valid UTF-8 is printed as it is).  A
 * caret shown as itself stays "^": the visible forms are for a person,
 * not a reversible encoding.  NULL gives "".  The result is malloc'd (the
 * caller frees it); termsafe_add() appends to a buf_t instead.
 */
#ifndef ABX_TERMSAFE_H
#define ABX_TERMSAFE_H

#include "base/buf.h"

char *termsafe(const char *s);
void termsafe_add(buf_t *b, const char *s);

#endif
