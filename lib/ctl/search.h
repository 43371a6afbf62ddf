/*
 * search.h — the words of abx-ls --search, and whether a text holds them.
 *
 *   search_parse()  splits WORDS at blanks into words; a part in double
 *                   quotes is one word, blanks and all (a phrase: "open
 *                   source").  Each word is kept folded to lower case
 *                   (towlower in C.UTF-8: É and é are one letter).
 *                   0, or -1 when there is no word (or a quote is not
 *                   closed); *why then says so.
 *   search_has()    1 if word k occurs in the n bytes of text (UTF-8), case
 *                   folded as above, a blank of the word matching any run
 *                   of blanks and line breaks; else 0.  Bytes that are not
 *                   UTF-8 are compared as they are.
 *
 * A snapshot matches when each word occurs in its title or in its text
 * (text.txt, sealtext.h): lssearch.h.  Nothing here prints or exits.
 */
#ifndef ABX_SEARCH_H
#define ABX_SEARCH_H

#include <locale.h>
#include <stddef.h>
#include "base/buf.h"

typedef struct {
	char **w;                /* folded, UTF-8 */
	size_t n;
	unsigned char first[32][256];  /* bytes a match of word k (< 32) may start with */
	locale_t loc;
} search_t;

#define SEARCH_MAX_WORDS 32

int search_parse(search_t *q, const char *words, buf_t *why);
int search_has(const search_t *q, size_t k, const char *text, size_t n);
void search_free(search_t *q);

#endif
