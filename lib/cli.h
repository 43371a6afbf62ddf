/*
 * cli.h — what every abx tool's main shares: the usage text printed by -h
 * and on a usage error (exit 64), and the data directory from -d, else
 * $ABX_DIR, else the default (store_default_dir()).
 *
 * usage strings are constants in each main and mirror its man page's
 * SYNOPSIS; cli_usage() prints "usage: " + the text to stderr and exits 64,
 * cli_help() prints it to stdout and exits 0.
 */
#ifndef ABX_CLI_H
#define ABX_CLI_H

#include "buf.h"

void cli_usage(const char *usage) __attribute__((noreturn));
void cli_help(const char *usage) __attribute__((noreturn));
/* Write a whole line to stdout (adds '\n'); a closed pipe exits quietly. */
void cli_out(const char *s, size_t n);
/* Split "a,b,c" into a NULL-terminated array of malloc'd names, each
 * checked with name_valid(); returns NULL and sets *bad on a bad name. */
char **cli_names(const char *list, const char **bad);
void cli_names_free(char **v);
int cli_isatty_out(void);

#endif
