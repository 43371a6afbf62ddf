/*
 * confbool.h — a boolean setting as ArchiveBox reads one.
 *
 * conf_bool(v, dflt): True/true/1/yes/on/y (any case) → 1,
 * False/false/0/no/off/n/"" → 0, NULL or anything else → dflt.
 *
 * Apart from config.h's layers and parsers, in a file of its own, so that
 * a program that reads only booleans (the wget hook, through netzone.c)
 * links neither.  config.h includes it.
 */
#ifndef ABX_CONFBOOL_H
#define ABX_CONFBOOL_H

int conf_bool(const char *v, int dflt);

#endif
